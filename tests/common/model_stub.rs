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

    /// Kilo CLI (`kilo run`), an opencode fork: opencode's recipe under Kilo's names, with
    /// its session upload, sharing, daemon and LSP downloads off.
    pub fn kilo_env(&self) -> Vec<(&'static str, String)> {
        let mut env: Vec<(&'static str, String)> = self
            .opencode_env()
            .into_iter()
            .map(|(k, v)| match k {
                "OPENCODE_CONFIG_CONTENT" => ("KILO_CONFIG_CONTENT", v),
                "OPENCODE_DISABLE_MODELS_FETCH" => ("KILO_DISABLE_MODELS_FETCH", v),
                "OPENCODE_DISABLE_AUTOUPDATE" => ("KILO_DISABLE_AUTOUPDATE", v),
                other => (other, v),
            })
            .collect();
        for k in [
            "KILO_DISABLE_SESSION_INGEST",
            "KILO_DISABLE_SHARE",
            "KILO_NO_DAEMON",
            "KILO_DISABLE_LSP_DOWNLOAD",
        ] {
            env.push((k, "1".into()));
        }
        env
    }

    /// pi (`pi -p`, or its TUI): offline, no telemetry, no version check; its provider's base
    /// URL is in `~/.pi/agent/models.json` (see [`Stub::headless`]).
    pub fn pi_env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("ANTHROPIC_API_KEY", "dummy".into()),
            ("PI_OFFLINE", "1".into()),
            ("PI_TELEMETRY", "0".into()),
            ("PI_SKIP_VERSION_CHECK", "1".into()),
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

/// How to run one host headless against a [`Stub`]: its program in `tests/peers`, its
/// arguments and environment, and the API its requests are recorded under.
pub struct Headless {
    pub program: &'static str,
    pub args: Vec<String>,
    pub env: Vec<(&'static str, String)>,
    pub api: &'static str,
}

impl Stub {
    /// `host` (its command-line name, `claude-code`, …) asked `prompt` once, headless, in
    /// `project` with home `home`: what each host needs to reach this stub and nothing else
    /// (Gemini CLI's auth choice, Codex's provider and trusted project, Qwen Code's telemetry
    /// off: written into `home` where the host reads them; a Qwen Code `settings.json`
    /// already there is kept).
    pub fn headless(&self, host: &str, prompt: &str, home: &Path, project: &Path) -> Headless {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        match host {
            "claude-code" => Headless {
                program: "claude",
                args: args(&["-p", prompt, "--output-format", "json"]),
                env: self.claude_env(),
                api: "anthropic",
            },
            "gemini" => {
                std::fs::create_dir_all(home.join(".gemini")).unwrap();
                std::fs::write(
                    home.join(".gemini/settings.json"),
                    r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
                )
                .unwrap();
                Headless {
                    program: "gemini",
                    args: args(&["-p", prompt, "--output-format", "json"]),
                    env: self.gemini_env(),
                    api: "gemini",
                }
            }
            "codex" => {
                let codex_home = home.join(".codex");
                std::fs::create_dir_all(&codex_home).unwrap();
                std::fs::write(
                    codex_home.join("config.toml"),
                    format!(
                        "model_provider = \"stub\"\nmodel = \"gpt-5\"\napproval_policy = \"never\"\nsandbox_mode = \"read-only\"\n\
                         [model_providers.stub]\nname = \"stub\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nenv_key = \"STUB_API_KEY\"\nwire_api = \"responses\"\n\
                         [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                        self.port,
                        project.display()
                    ),
                )
                .unwrap();
                Headless {
                    program: "codex",
                    args: args(&["exec", "--skip-git-repo-check", prompt]),
                    env: vec![
                        ("STUB_API_KEY", "dummy".into()),
                        ("CODEX_HOME", codex_home.display().to_string()),
                    ],
                    api: "openai",
                }
            }
            "opencode" => Headless {
                program: "opencode",
                args: args(&["run", "--format", "json", prompt]),
                env: self.opencode_env(),
                api: "anthropic",
            },
            "kilo" => Headless {
                program: "kilo",
                args: args(&[
                    "run",
                    "--format",
                    "json",
                    "-m",
                    "anthropic/claude-sonnet-4-5",
                    prompt,
                ]),
                env: self.kilo_env(),
                api: "anthropic",
            },
            "cline" => {
                // Its OpenAI-compatible provider at the stub (its Anthropic one refuses a base
                // URL), telemetry off.
                let settings = home.join(".cline/data/settings");
                std::fs::create_dir_all(&settings).unwrap();
                std::fs::write(
                    settings.join("global-settings.json"),
                    r#"{"telemetryOptOut": true}"#,
                )
                .unwrap();
                let base = format!("http://127.0.0.1:{}/v1", self.port);
                let env = [
                    ("HOME".to_string(), home.display().to_string()),
                    (
                        "PATH".to_string(),
                        std::env::var("PATH").unwrap_or_default(),
                    ),
                ];
                run_host(
                    "cline",
                    &[
                        "auth",
                        "-p",
                        "openai",
                        "-k",
                        "dummy",
                        "-m",
                        "stub-model",
                        "-b",
                        &base,
                    ],
                    project,
                    &env,
                    &[],
                );
                // It takes a one-word prompt for a command it does not know: said as a
                // sentence.
                let prompt = match prompt.contains(' ') {
                    true => prompt.to_string(),
                    false => format!("{prompt}, please"),
                };
                Headless {
                    program: "cline",
                    args: args(&["-P", "openai", "-m", "stub-model", "--json", &prompt]),
                    env: vec![],
                    api: "chat",
                }
            }
            "pi" => {
                // Its Anthropic provider at the stub, offline, no telemetry or version check.
                std::fs::create_dir_all(home.join(".pi/agent")).unwrap();
                std::fs::write(
                    home.join(".pi/agent/models.json"),
                    serde_json::json!({"providers": {"anthropic": {
                        "baseUrl": format!("http://127.0.0.1:{}", self.port)
                    }}})
                    .to_string(),
                )
                .unwrap();
                Headless {
                    program: "pi",
                    args: args(&["-p", prompt]),
                    env: self.pi_env(),
                    api: "anthropic",
                }
            }
            "copilot-cli" => Headless {
                program: "copilot",
                args: args(&[
                    "-p",
                    prompt,
                    "--output-format",
                    "json",
                    "--no-auto-update",
                    "--no-ask-user",
                ]),
                env: self.copilot_env(),
                api: "anthropic",
            },
            "qwen-code" => {
                let settings = home.join(".qwen/settings.json");
                if !settings.exists() {
                    std::fs::create_dir_all(home.join(".qwen")).unwrap();
                    std::fs::write(&settings, QWEN_SETTINGS).unwrap();
                }
                Headless {
                    program: "qwen",
                    args: args(&["--auth-type", "anthropic", "-o", "json", prompt]),
                    env: self.qwen_env(),
                    api: "anthropic",
                }
            }
            other => panic!("no headless run for {other}"),
        }
    }
}

/// Qwen Code's user settings with usage statistics and telemetry off, as Qwen Code leaves
/// them (it rewrites a settings file it reads in this form, with its `$version`).
pub const QWEN_SETTINGS: &str = "{\n  \"privacy\": {\n    \"usageStatisticsEnabled\": false\n  },\n  \"telemetry\": {\n    \"enabled\": false\n  },\n  \"$version\": 4\n}";

/// Runs host CLI `program` (from `tests/peers`) with `args` in `project`, with nothing of the
/// test's environment but `env` (HOME, PATH, …) and the host's own `host_env`: its stdout and
/// stderr, joined.
pub fn run_host(
    program: &str,
    args: &[&str],
    project: &Path,
    env: &[(String, String)],
    host_env: &[(&str, String)],
) -> String {
    let bin = super::peers().join("node/node_modules/.bin").join(program);
    let mut command = Command::new(&bin);
    command
        .args(args)
        .current_dir(project)
        .stdin(Stdio::null())
        .env_clear()
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb");
    for (k, v) in env {
        command.env(k, v);
    }
    for (k, v) in host_env {
        command.env(k, v);
    }
    let out = super::run_with_timeout(command, std::time::Duration::from_secs(120));
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Ends the `cline --cline-hub-daemon` that every Cline CLI run in `project` leaves behind,
/// by its pid (found by its command line).
pub fn end_cline_hub(project: &Path) {
    let cwd = format!("--cwd\0{}\0", project.display());
    super::end_processes_where(|cmdline| {
        cmdline.contains("--cline-hub-daemon") && cmdline.contains(&cwd)
    });
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

/// Claude Code's interactive TUI in `project` (tmux), its model API `stub`: onboarding, the
/// dummy API key and the project's trust (its MCP servers too) answered in `home/.claude.json`
/// as a user answers them once; `env` is the rest of its environment (`HOME`, `PATH`).
pub fn claude_tui(
    project: &Path,
    home: &Path,
    env: &[(String, String)],
    stub: &Stub,
) -> super::tmux::Tmux {
    std::fs::write(
        home.join(".claude.json"),
        serde_json::json!({
            "hasCompletedOnboarding": true, "theme": "dark",
            "customApiKeyResponses": { "approved": ["dummy"], "rejected": [] },
            "projects": { project.to_str().unwrap(): {
                "hasTrustDialogAccepted": true, "enableAllProjectMcpServers": true,
                "hasCompletedProjectOnboarding": true } }
        })
        .to_string(),
    )
    .unwrap();
    let mut env = env.to_vec();
    env.extend(
        stub.claude_env()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v)),
    );
    super::tmux::Tmux::program(
        project,
        &env,
        &super::peers().join("node/node_modules/.bin/claude"),
    )
}

/// Types `prompt` into a host's TUI and waits up to 120 s for that turn's model request to
/// `api`: the newest one `pick` (given the request and the prompt) takes, as `pick` gives it.
pub fn take_turn(
    tmux: &super::tmux::Tmux,
    stub: &Stub,
    api: &str,
    prompt: &str,
    pick: impl Fn(&Value, &str) -> Option<String>,
) -> Option<String> {
    submit(tmux, prompt);
    let found = || {
        stub.requests(api)
            .iter()
            .rev()
            .find_map(|r| pick(r, prompt))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut pressed_again = false;
    let started = std::time::Instant::now();
    while std::time::Instant::now() < deadline {
        if let Some(found) = found() {
            return Some(found);
        }
        // A busy host may drop the Enter: once, if the prompt still waits in its input line.
        if !pressed_again
            && started.elapsed() > std::time::Duration::from_secs(20)
            && still_typed(&tmux.screen(), prompt)
        {
            tmux.keys(&["Enter"]);
            pressed_again = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    None
}

/// Types `prompt` into a host's input and presses Enter once the host has drawn it (a host
/// busy starting drops keys, so it is typed again if it does not show within 15 s).
pub fn submit(tmux: &super::tmux::Tmux, prompt: &str) {
    for _ in 0..2 {
        tmux.type_text(prompt);
        if tmux
            .wait(std::time::Duration::from_secs(15), |s| s.contains(prompt))
            .is_ok()
        {
            break;
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    tmux.keys(&["Enter"]);
}

/// Whether `prompt` is still on the screen's last line that holds it as typed input (not
/// yet sent): the hosts echo a sent prompt above their input box, so the test is that the
/// last line holding it is also the last non-empty line of the input area.
pub fn still_typed(screen: &str, prompt: &str) -> bool {
    let lines: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    let Some(at) = lines.iter().rposition(|l| l.contains(prompt)) else {
        return false;
    };
    // The input box sits within the last few lines (box border, status line, hints).
    lines.len() - at <= 4
}

/// The text of every string in `value` ([`all_text`]).
pub fn text_of(value: &Value) -> String {
    let mut text = String::new();
    all_text(value, &mut text);
    text
}

/// A [`take_turn`]'s pick: the text under `key` of the request that holds the prompt there.
pub fn under(key: &str) -> impl Fn(&Value, &str) -> Option<String> + '_ {
    move |r, prompt| {
        let text = text_of(&r[key]);
        text.contains(prompt).then_some(text)
    }
}

/// Codex's question before new hooks run, answered as a person answers it ("Trust all and
/// continue"). A busy Codex can drop the `2` and take the Enter as "Review hooks": its review
/// panel opens instead (seen once), where `t` trusts all and Escape closes it.
pub fn trust_codex_hooks(tmux: &super::tmux::Tmux) -> Result<(), String> {
    tmux.answer(
        "Hooks need review",
        "Trust all and continue",
        &["2", "Enter"],
    )?;
    if tmux
        .wait(std::time::Duration::from_secs(3), |s| {
            s.contains("t trust all")
        })
        .is_ok()
    {
        tmux.keys(&["t"]);
        std::thread::sleep(std::time::Duration::from_millis(500));
        tmux.keys(&["Escape"]);
        tmux.wait(std::time::Duration::from_secs(20), |s| {
            !s.contains("t trust all")
        })?;
    }
    Ok(())
}
