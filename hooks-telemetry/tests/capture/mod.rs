//! A log writer for `tracing_subscriber::fmt().with_writer(...)` that keeps what was written,
//! shared by the webhook test binaries that check what the sender logs.

use std::io::Write;
use std::sync::{Arc, Mutex};

/// Everything written to it (clones share the buffer).
#[derive(Clone, Default)]
pub struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capture {
    /// What was written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}
