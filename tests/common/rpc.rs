//! A bare MCP client over stdio for tests that need what no mcpick command asks for (a
//! prompt, a tool call) or the exact JSON of an answer: newline-delimited JSON-RPC, legacy
//! `initialize` handshake, one request at a time, notifications kept aside
//! ([`Rpc::notification`]).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// A running stdio server and the client end of its pipes. Killed on drop.
pub struct Rpc {
    child: Child,
    /// `None` once closed.
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
    /// The server's stderr, read to the end once it exits (see [`Rpc::finish`]).
    stderr: Option<std::thread::JoinHandle<String>>,
    /// Notifications the server sent while a request waited for its answer.
    seen: Vec<Value>,
}

impl Rpc {
    /// Starts `program args` in `cwd` (isolated home) and completes the handshake.
    pub fn start(program: &str, args: &[&str], cwd: &Path) -> Rpc {
        Rpc::start_home(program, args, cwd, super::isolated_home())
    }

    /// [`Rpc::start`] with `home` as the home directory (where the user's data, approvals
    /// among it, is kept).
    pub fn start_home(program: &str, args: &[&str], cwd: &Path, home: &Path) -> Rpc {
        let mut child = Command::new(program)
            .args(args)
            .current_dir(cwd)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start {program}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr_pipe = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr_pipe, &mut text);
            text
        });
        let mut rpc = Rpc {
            child,
            stdin: Some(stdin),
            lines,
            next_id: 1,
            stderr: Some(stderr),
            seen: Vec::new(),
        };
        let init = rpc.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "mcpick-tests", "version": "1" }
            }),
        );
        assert!(init.get("result").is_some(), "handshake failed: {init}");
        rpc.notify("notifications/initialized", json!({}));
        rpc
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends a request and waits (60 s at most) for its answer: the whole JSON-RPC message,
    /// `result` or `error`.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let message: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
            if message.get("id").is_none() && message.get("method").is_some() {
                self.seen.push(message);
            }
        }
    }

    /// The first notification of `method` the server sent, waiting up to `within` for it
    /// when none came yet.
    pub fn notification(&mut self, method: &str, within: Duration) -> Option<Value> {
        let deadline = std::time::Instant::now() + within;
        loop {
            if let Some(found) = self.seen.iter().find(|m| m["method"] == method) {
                return Some(found.clone());
            }
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            if let Ok(message) = serde_json::from_str::<Value>(&line)
                && message.get("id").is_none()
            {
                self.seen.push(message);
            }
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Closes stdin, waits (10 s at most) for the server to exit, and returns its exit code
    /// (`None`: killed by a signal, or still running) and its stderr.
    pub fn end(mut self) -> (Option<i32>, String) {
        self.stdin = None;
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let code = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.code(),
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => break None,
            }
        };
        let _ = self.child.kill();
        let _ = self.child.wait();
        (code, self.stderr.take().unwrap().join().unwrap())
    }

    /// Closes stdin, waits for the server to exit, and returns its stderr.
    pub fn finish(mut self) -> String {
        self.stdin = None;
        let _ = self.child.wait();
        self.stderr.take().unwrap().join().unwrap()
    }
}

impl Drop for Rpc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
