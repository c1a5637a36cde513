//! A real terminal for the tests: one tmux session on a tmux server of its own.
//!
//! Each session gets its own server (`tmux -L <socket>`). On the shared default server, tests
//! running in parallel raced: the last session killed made the server exit while another test's
//! `new-session` was connecting to it ("server exited unexpectedly", `new-session` failing).

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a host (Claude Code, Gemini CLI, Codex, …) may take to draw its prompt: minutes on
/// two cores busy with the rest of the suite (measured: Gemini CLI took over 60 s in a CI run).
pub const HOST_START: Duration = Duration::from_secs(180);

/// A tmux server holding one session (`main`) of `width`×`height`; the server is killed when
/// this is dropped.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `command` (one shell word each) in a new session, in `dir` when given. The pane
    /// stays (with its last screen) when the command exits.
    pub fn start(width: u16, height: u16, dir: Option<&Path>, command: &[String]) -> Tmux {
        static N: AtomicUsize = AtomicUsize::new(0);
        let tmux = Tmux {
            socket: format!(
                "mcpick-test-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::SeqCst)
            ),
        };
        let (width, height) = (width.to_string(), height.to_string());
        let mut args = vec![
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            &width,
            "-y",
            &height,
        ];
        let dir = dir.map(|d| d.display().to_string());
        if let Some(dir) = &dir {
            args.extend(["-c", dir.as_str()]);
        }
        args.extend(command.iter().map(String::as_str));
        let out = tmux.run(&args);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tmux.run(&["set-option", "-t", "main", "remain-on-exit", "on"]);
        tmux
    }

    /// `program` in a 160×40 session in `dir`, with `env` on top of the test's environment,
    /// as a user starts it in a terminal of their own: the CI markers (`CI`, `GITHUB_ACTIONS`)
    /// are removed, because a host that sees them (Gemini CLI) runs headless even on a terminal.
    pub fn program(dir: &Path, env: &[(String, String)], program: &Path) -> Tmux {
        Tmux::program_with(dir, env, program, &[])
    }

    /// [`Tmux::program`] with arguments.
    pub fn program_with(
        dir: &Path,
        env: &[(String, String)],
        program: &Path,
        args: &[&str],
    ) -> Tmux {
        let mut command: Vec<String> = ["env", "-u", "CI", "-u", "GITHUB_ACTIONS"]
            .map(String::from)
            .into();
        command.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        command.push(program.display().to_string());
        command.extend(args.iter().map(|a| a.to_string()));
        let shell = command
            .iter()
            .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
            .collect::<Vec<_>>()
            .join(" ");
        Tmux::start(160, 40, Some(dir), &[shell])
    }

    /// A 120×40 interactive bash with nothing of the user's: a clean environment (plus `env`),
    /// the isolated home ([`super::isolated_home`]), `$ ` as its prompt; returns once the prompt
    /// shows.
    pub fn bash(env: &[&str]) -> Tmux {
        Tmux::bash_sized(120, 40, env)
    }

    /// [`Tmux::bash`] in a terminal of `width`×`height`.
    pub fn bash_sized(width: u16, height: u16, env: &[&str]) -> Tmux {
        let home = super::isolated_home().display().to_string();
        let mut command: Vec<String> = [
            "env",
            "-i",
            "TERM=xterm-256color",
            "PATH=/usr/local/bin:/usr/bin:/bin",
            "PS1=$ ",
            "NO_COLOR=1",
        ]
        .map(String::from)
        .into();
        command.push(format!("HOME={home}"));
        command.push(format!("XDG_CONFIG_HOME={home}/.config"));
        command.extend(env.iter().map(|e| e.to_string()));
        command.extend(["bash", "--norc", "--noprofile", "-i"].map(String::from));
        let tmux = Tmux::start(width, height, None, &command);
        tmux.wait_for("the shell prompt", |s| {
            s.lines().any(|l| l.starts_with('$'))
        });
        tmux
    }

    /// Runs a tmux command against this server.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run tmux ({e}): the terminal tests need tmux installed \
                     (apt-get install tmux; .ci/run does this)"
                )
            })
    }

    /// A tmux command's standard output.
    pub fn output(&self, args: &[&str]) -> String {
        String::from_utf8_lossy(&self.run(args).stdout).into_owned()
    }

    /// Sends keys by name (`Enter`, `C-c`, `q`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Types text literally.
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "main", "-l", text]);
    }

    /// The screen as text.
    pub fn screen(&self) -> String {
        self.output(&["capture-pane", "-p", "-t", "main"])
    }

    /// The screen with its escape sequences (colours, modifiers).
    pub fn screen_styled(&self) -> String {
        self.output(&["capture-pane", "-p", "-e", "-t", "main"])
    }

    /// A tmux format (`#{alternate_on}`) of the pane.
    pub fn format(&self, f: &str) -> String {
        self.output(&["display-message", "-p", "-t", "main", f])
            .trim()
            .to_string()
    }

    /// Waits up to `limit` for the screen to satisfy `ok`: the screen that did, or the last one.
    pub fn wait(&self, limit: Duration, ok: impl Fn(&str) -> bool) -> Result<String, String> {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return Ok(screen);
            }
            if start.elapsed() > limit {
                return Err(screen);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Answers a host's question: waits for `option` (the answer's own text) to be drawn,
    /// presses `keys`, and checks the answer took (`question` is gone from the screen),
    /// pressing them once more if a busy host dropped them. `Err` holds the screen.
    pub fn answer(&self, question: &str, option: &str, keys: &[&str]) -> Result<(), String> {
        self.wait(HOST_START, |s| s.contains(option))?;
        for _ in 0..2 {
            for key in keys {
                self.keys(&[key]);
                std::thread::sleep(Duration::from_millis(300));
            }
            if self
                .wait(Duration::from_secs(20), |s| !s.contains(question))
                .is_ok()
            {
                return Ok(());
            }
        }
        Err(self.screen())
    }

    /// Waits up to 30 s for the screen to satisfy `ok`; fails the test naming `what` otherwise.
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.wait(Duration::from_secs(30), ok)
            .unwrap_or_else(|screen| panic!("timed out waiting for {what}; the screen:\n{screen}"))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}
