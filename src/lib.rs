//! Support code for the workspace's examples: a scripted model and real tools, so that an
//! example agent can run a whole session deterministically. Not published.

use std::path::{Path, PathBuf};
use std::process::Command;

pub mod narrate;

use hookrail_core::context::{ErrorKind, TokenUsage, ToolCall};
use serde_json::{Value, json};

/// A tool call the model asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRequest {
    /// The call's id, given by [`ScriptedModel::call`] as a provider would (`toolu_01`, …);
    /// empty in a script.
    pub id: String,
    /// The tool: `Bash`, `Write` or `Read` (Claude Code's names).
    pub name: String,
    /// Its arguments, as Claude Code shapes them.
    pub input: Value,
}

impl ToolRequest {
    /// A `Bash` call.
    pub fn bash(command: &str) -> Self {
        ToolRequest {
            id: String::new(),
            name: "Bash".into(),
            input: json!({ "command": command }),
        }
    }

    /// A `Write` call.
    pub fn write(path: &str, content: &str) -> Self {
        ToolRequest {
            id: String::new(),
            name: "Write".into(),
            input: json!({ "file_path": path, "content": content }),
        }
    }

    /// A `Read` call.
    pub fn read(path: &str) -> Self {
        ToolRequest {
            id: String::new(),
            name: "Read".into(),
            input: json!({ "file_path": path }),
        }
    }

    /// The request as the [`ToolCall`] a session runs.
    pub fn call(&self) -> ToolCall {
        ToolCall::new(self.id.clone(), self.name.clone(), self.input.clone())
    }
}

/// One scripted model turn: either a failure, or streamed text plus tool requests.
#[derive(Debug, Clone)]
pub enum Turn {
    /// The call fails with this kind of error.
    Fail(ErrorKind, &'static str),
    /// The model answers.
    Reply {
        /// The text, as it is streamed (one string per chunk).
        chunks: Vec<&'static str>,
        /// Tools it asks for.
        tools: Vec<ToolRequest>,
    },
}

/// What a model call returned.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The streamed chunks.
    pub chunks: Vec<String>,
    /// Requested tools.
    pub tools: Vec<ToolRequest>,
    /// Tokens used.
    pub usage: TokenUsage,
}

/// A model that plays back a fixed script, one turn per call.
#[derive(Debug)]
pub struct ScriptedModel {
    turns: std::collections::VecDeque<Turn>,
    /// Tool calls handed out so far (their ids count up).
    calls: u32,
}

impl ScriptedModel {
    /// A model that will answer with `turns`, in order.
    pub fn new(turns: Vec<Turn>) -> Self {
        ScriptedModel {
            turns: turns.into(),
            calls: 0,
        }
    }

    /// The next turn. A finished script answers with an empty reply (the model is done).
    pub fn call(&mut self, prompt_tokens: u64) -> Result<Reply, (ErrorKind, String)> {
        match self.turns.pop_front() {
            Some(Turn::Fail(kind, msg)) => Err((kind, msg.to_owned())),
            Some(Turn::Reply { chunks, mut tools }) => {
                for tool in &mut tools {
                    self.calls += 1;
                    tool.id = format!("toolu_{:02}", self.calls);
                }
                let output = chunks
                    .iter()
                    .map(|c| c.split_whitespace().count() as u64)
                    .sum();
                Ok(Reply {
                    chunks: chunks.into_iter().map(str::to_owned).collect(),
                    tools,
                    usage: TokenUsage::new(prompt_tokens, output),
                })
            }
            None => Ok(Reply {
                chunks: Vec::new(),
                tools: Vec::new(),
                usage: TokenUsage::new(prompt_tokens, 0),
            }),
        }
    }
}

/// Real tools, confined to one directory.
#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// Tools that work in `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Workspace { root: root.into() }
    }

    /// The directory the tools work in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Run a tool; `Err` is the tool's error message.
    pub fn run(&self, name: &str, input: &Value) -> Result<Value, String> {
        let field = |key: &str| {
            input
                .get(key)
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{name}: missing string field `{key}`"))
        };
        match name {
            "Bash" => {
                let out = Command::new("sh")
                    .arg("-c")
                    .arg(field("command")?)
                    .current_dir(&self.root)
                    .output()
                    .map_err(|e| format!("Bash: cannot run sh: {e}"))?;
                Ok(json!({
                    "exit_code": out.status.code(),
                    "stdout": String::from_utf8_lossy(&out.stdout),
                    "stderr": String::from_utf8_lossy(&out.stderr),
                }))
            }
            "Write" => {
                let path = self.root.join(field("file_path")?);
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).map_err(|e| format!("Write: {e}"))?;
                }
                let content = field("content")?;
                std::fs::write(&path, content).map_err(|e| format!("Write: {e}"))?;
                Ok(json!({ "filePath": path, "success": true, "bytes": content.len() }))
            }
            "Read" => {
                let path = self.root.join(field("file_path")?);
                let text = std::fs::read_to_string(&path).map_err(|e| format!("Read: {e}"))?;
                Ok(json!({ "content": text }))
            }
            other => Err(format!("unknown tool `{other}`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripted_model_plays_turns_in_order_then_stops() {
        let mut m = ScriptedModel::new(vec![
            Turn::Fail(ErrorKind::RateLimit, "slow down"),
            Turn::Reply {
                chunks: vec!["two words"],
                tools: vec![ToolRequest::bash("ls")],
            },
        ]);
        assert!(matches!(m.call(5), Err((ErrorKind::RateLimit, _))));
        let reply = m.call(5).unwrap();
        assert_eq!(reply.usage, TokenUsage::new(5, 2));
        let mut ls = ToolRequest::bash("ls");
        ls.id = "toolu_01".into();
        assert_eq!(reply.tools, [ls]);
        assert!(m.call(5).unwrap().chunks.is_empty());
    }

    #[test]
    fn workspace_tools_write_read_and_run_in_their_directory() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path());
        ws.run("Write", &json!({"file_path": "a/b.txt", "content": "hi"}))
            .unwrap();
        let read = ws.run("Read", &json!({"file_path": "a/b.txt"})).unwrap();
        assert_eq!(read["content"], "hi");
        let out = ws.run("Bash", &json!({"command": "cat a/b.txt"})).unwrap();
        assert_eq!(out["stdout"], "hi");
        assert_eq!(out["exit_code"], 0);
        assert!(
            ws.run("Read", &json!({}))
                .unwrap_err()
                .contains("file_path")
        );
    }
}

// The README's Rust snippets are compiled and run as doctests, so that they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
