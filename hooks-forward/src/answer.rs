//! The command form of an answer: what a command hook prints and its exit code. The daemon
//! renders it (it knows the event, and every rule of Claude Code's command protocol), so a
//! forwarding client prints exactly what `hooks claude` would have printed in its own process.

use std::io::Write;

use serde::{Deserialize, Serialize};

/// A command hook's answer, whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandAnswer {
    /// Written to stdout as is (a JSON answer and its newline, a `WorktreeCreate` path, or
    /// nothing).
    pub stdout: String,
    /// Written to stderr as is (what the run says to the user, one line each).
    pub stderr: String,
    /// The exit code.
    pub code: u8,
    /// Whether the event is one that can block: an answer that cannot be written then exits
    /// 2 (blocked, since nothing was said), else 1.
    pub may_block: bool,
}

impl CommandAnswer {
    /// Writes the answer to this process's stderr and stdout and returns its exit code. An
    /// answer that cannot be written to stdout (closed, a broken pipe) decides nothing: it is
    /// refused like any other failure to decide, never left to a panic (exit 101, which
    /// Claude Code takes as "proceed").
    pub fn emit(self) -> u8 {
        self.emit_to(&mut std::io::stdout().lock(), &mut std::io::stderr().lock())
    }

    /// [`CommandAnswer::emit`] to the writers given.
    pub fn emit_to(self, out: &mut impl Write, err: &mut impl Write) -> u8 {
        // stderr first, as `hooks claude` writes it; a stderr that cannot be written loses
        // only the message.
        let _ = err.write_all(self.stderr.as_bytes());
        if !self.stdout.is_empty()
            && let Err(e) = out
                .write_all(self.stdout.as_bytes())
                .and_then(|()| out.flush())
        {
            let _ = writeln!(err, "hooks claude: cannot write the answer to stdout: {e}");
            return if self.may_block { 2 } else { 1 };
        }
        self.code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn answer(may_block: bool) -> CommandAnswer {
        CommandAnswer {
            stdout: "{\"continue\":true}\n".into(),
            stderr: "hooks claude: a note\n".into(),
            code: 0,
            may_block,
        }
    }

    #[test]
    fn the_answer_is_written_as_it_came() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(answer(true).emit_to(&mut out, &mut err), 0);
        assert_eq!(out, b"{\"continue\":true}\n");
        assert_eq!(err, b"hooks claude: a note\n");
    }

    #[test]
    fn an_answer_that_cannot_be_written_blocks_where_the_event_can_be_blocked() {
        let mut err = Vec::new();
        assert_eq!(answer(true).emit_to(&mut Closed, &mut err), 2);
        assert!(String::from_utf8_lossy(&err).contains("cannot write the answer"));
        assert_eq!(answer(false).emit_to(&mut Closed, &mut Vec::new()), 1);
    }
}
