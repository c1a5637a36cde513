//! The recording stub of the hosts' model APIs (`tests/peers/model_stub.py`), for driving real
//! hosts offline: started on a free port, stopped with the test (its stdin closes when the
//! child is dropped).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::repo_root;

pub struct Stub {
    child: Child,
    pub port: u16,
    dir: PathBuf,
}

impl Stub {
    /// A stub that answers every request "ok".
    pub fn start(dir: &Path) -> Stub {
        Stub::spawn(dir, &[])
    }

    /// A stub that answers a request offering tool `name` (a Responses namespace's tool as
    /// `NS__TOOL`) with a call of it with `arguments`, and "ok" once the result came.
    pub fn calling(dir: &Path, name: &str, arguments: &Value) -> Stub {
        Stub::spawn(
            dir,
            &["--call", name, "--call-args", &arguments.to_string()],
        )
    }

    fn spawn(dir: &Path, extra: &[&str]) -> Stub {
        let mut child = Command::new("python3")
            .arg(repo_root().join("tests/peers/model_stub.py"))
            .args(["--dir", dir.to_str().unwrap(), "--idle", "300"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs the model stub");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the stub prints its port");
        let port = line.trim().parse().expect("a port");
        Stub {
            child,
            port,
            dir: dir.to_path_buf(),
        }
    }

    /// Every recorded request body whose file name says `api`, in order.
    pub fn requests(&self, api: &str) -> Vec<Value> {
        let mut names: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "json")
                    && p.file_name().unwrap().to_string_lossy().contains(api)
            })
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| {
                let doc: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
                doc["body"].clone()
            })
            .collect()
    }

    /// Claude Code's environment for the stub: its base URL, a dummy key, no other traffic.
    pub fn claude_env(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("ANTHROPIC_API_KEY", "dummy".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("DISABLE_TELEMETRY", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("DISABLE_ERROR_REPORTING", "1".into()),
        ]
    }

    /// Gemini CLI's: its base URL, a dummy key, the folder trusted.
    pub fn gemini_env(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "GOOGLE_GEMINI_BASE_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("GEMINI_API_KEY", "dummy".into()),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true".into()),
        ]
    }
}

impl Stub {
    /// opencode (`opencode run`): the Anthropic provider at the stub, no models list fetched,
    /// no update, and npm offline (else it installs a plugin package first, or waits ~70 s
    /// for that to fail).
    pub fn opencode_env(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "OPENCODE_CONFIG_CONTENT",
                serde_json::json!({
                    "provider": {"anthropic": {"options": {
                        "baseURL": format!("http://127.0.0.1:{}/v1", self.port),
                        "apiKey": "dummy"
                    }}},
                    "model": "anthropic/claude-sonnet-4-5",
                    "autoupdate": false,
                    "share": "disabled"
                })
                .to_string(),
            ),
            ("OPENCODE_DISABLE_MODELS_FETCH", "1".into()),
            ("OPENCODE_DISABLE_AUTOUPDATE", "1".into()),
            ("npm_config_offline", "true".into()),
        ]
    }

    /// GitHub Copilot CLI (`copilot -p`): bring-your-own-key with the Anthropic API at the
    /// stub, offline, no GitHub sign-in.
    pub fn copilot_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("COPILOT_OFFLINE", "true".into()),
            (
                "COPILOT_PROVIDER_BASE_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("COPILOT_PROVIDER_TYPE", "anthropic".into()),
            ("COPILOT_PROVIDER_API_KEY", "dummy".into()),
            ("COPILOT_MODEL", "claude-sonnet-4-5".into()),
        ]
    }

    /// Qwen Code (`qwen --auth-type anthropic`); its usage statistics are turned off in
    /// `~/.qwen/settings.json`.
    pub fn qwen_env(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("ANTHROPIC_API_KEY", "dummy".into()),
            ("ANTHROPIC_MODEL", "claude-sonnet-4-5".into()),
        ]
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every string inside a JSON document, joined: the text a model request carries.
pub fn all_text(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|v| all_text(v, out)),
        Value::Object(o) => o.values().for_each(|v| all_text(v, out)),
        _ => {}
    }
}
