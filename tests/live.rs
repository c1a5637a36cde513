//! `mcpick turn`, driven as the hosts drive it (their hook events as JSON on stdin), without a
//! host: what each event answers, in each host's format, and that it never stops a host. The
//! real hosts' model requests over several turns are in `tests/delivery.rs`.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::*;
use serde_json::Value;

/// A project with a set over the demo server (a budget, the clock left out: it changes at
/// every read) delivered to `host`, and a home and data folder of its own.
struct Project {
    dir: tempfile::TempDir,
}

/// The daemons a host left running for this test go with it.
impl Drop for Project {
    fn drop(&mut self) {
        end_processes_under(self.dir.path());
    }
}

impl Project {
    fn new(host: &str) -> Project {
        let p = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(p.path()).unwrap();
        std::fs::create_dir_all(p.home()).unwrap();
        p.ok(&["pin", "--demo", "file:///project/docs/guides/*"]);
        p.ok(&["exclude", "--demo", "demo://clock/*"]);
        p.ok(&["policy", "--budget", "12000"]);
        p.ok(&["install", host, "--deliver", "session"]);
        p
    }

    fn path(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path())
            .unwrap()
            .join("project")
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(mcpick_bin());
        command
            .args(args)
            .current_dir(self.path())
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join(".config"))
            .env("MCPICK_DATA_DIR", self.dir.path().join("data"));
        command
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.command(args).stdin(Stdio::null()).output().unwrap();
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// `mcpick turn HOST` given `event` on stdin, as a hook runs it: its stdout.
    fn turn(&self, host: &str, event: &str) -> String {
        let mut child = self
            .command(&["turn", host])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(event.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(exit_code(&out), 0, "a hook never stops the host");
        assert_eq!(stderr(&out), "", "a hook says nothing on stderr");
        stdout(&out)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("data/live/turn.log")).unwrap_or_default()
    }

    /// The first included and the first resource left out by the budget.
    fn included_and_left_out(&self) -> (String, String) {
        let doc: Value = serde_json::from_str(&self.ok(&["preview", "--format", "json"])).unwrap();
        let included = doc["included"][0]["uri"].as_str().unwrap().to_string();
        let left = doc["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["reason"] == "over budget")
            .unwrap()["uri"]
            .as_str()
            .unwrap()
            .to_string();
        (included, left)
    }
}

fn event(name: &str, session: &str) -> String {
    serde_json::json!({ "session_id": session, "hook_event_name": name, "prompt": "hi" })
        .to_string()
}

/// The additional context of a hook's answer (Claude Code's format, which Codex and Gemini CLI
/// read too).
fn context(answer: &str, event: &str) -> String {
    let v: Value = serde_json::from_str(answer.trim()).expect("JSON on stdout");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event);
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn each_turn_carries_only_what_changed_in_each_hosts_event() {
    for (host, prompt) in [
        ("claude-code", "UserPromptSubmit"),
        ("gemini", "BeforeAgent"),
        ("codex", "UserPromptSubmit"),
    ] {
        let p = Project::new(host);
        let (included, left) = p.included_and_left_out();
        assert_eq!(p.turn(host, &event("SessionStart", "s1")), "");
        assert_eq!(p.turn(host, &event("SessionStart", "s2")), "");
        // What the session-start file could not carry comes first (Codex's 32 KiB cuts
        // this set), then nothing: nothing changed.
        for session in ["s1", "s2"] {
            let mut drained = 0;
            while !p.turn(host, &event(prompt, session)).is_empty() {
                drained += 1;
                assert!(drained < 4, "{host}: the cut ones come in a few turns");
            }
            assert_eq!(drained > 0, host == "codex", "{host}");
        }
        p.ok(&["pin", "--demo", &left]);
        p.ok(&["exclude", "--demo", &included]);
        let said = context(&p.turn(host, &event(prompt, "s1")), prompt);
        let text = p.ok(&["read", "--demo", &left]);
        assert!(
            said.contains(text.trim_end()),
            "{host}: the pinned one verbatim"
        );
        assert!(
            said.contains("disregard what it said") && said.contains(&included),
            "{host}: the excluded one withdrawn:\n{said}"
        );
        assert_eq!(p.turn(host, &event(prompt, "s1")), "", "{host}: said once");
        // Another session, started before the change, gets it too, on its own next turn.
        assert_eq!(
            context(&p.turn(host, &event(prompt, "s2")), prompt),
            said,
            "{host}: per session"
        );
        // A session starting now reads the file as it is: nothing to add on its turn, except
        // where the file is held back while others run (Claude Code) or cut (Codex).
        p.turn(host, &event("SessionStart", "s3"));
        let s3 = p.turn(host, &event(prompt, "s3"));
        assert_eq!(s3.is_empty(), host == "gemini", "{host}: {s3}");
        assert_eq!(p.log(), "", "{host}: nothing failed");
    }
}

/// Qwen Code's one hook event is `UserPromptSubmit` (no session start): a session's first turn
/// starts it from what the file holds, and `--next-turn` shows the text as Qwen Code wraps and
/// escapes it.
#[test]
fn qwen_codes_turns_start_a_session_on_its_first_prompt() {
    let host = "qwen-code";
    let p = Project::new(host);
    let (included, left) = p.included_and_left_out();
    let prompt = "UserPromptSubmit";
    assert_eq!(p.turn(host, &event(prompt, "s1")), "", "nothing changed");
    p.ok(&["pin", "--demo", &left]);
    p.ok(&["exclude", "--demo", &included]);
    let predicted = p.ok(&["preview", "--host", host, "--next-turn"]);
    let said = context(&p.turn(host, &event(prompt, "s1")), prompt);
    let text = p.ok(&["read", "--demo", &left]);
    assert!(said.contains(text.trim_end()), "the pinned one verbatim");
    assert!(
        said.contains(&included),
        "the excluded one withdrawn:\n{said}"
    );
    assert_eq!(
        predicted.trim_end(),
        format!(
            "<qwen:user-prompt-submit-context>\n{}\n</qwen:user-prompt-submit-context>",
            said.replace('<', "&lt;").replace('>', "&gt;")
        )
        .trim_end(),
        "Qwen Code escapes < and >: the prediction shows what its model reads"
    );
    assert_eq!(p.turn(host, &event(prompt, "s1")), "", "said once");
    // A session starting now reads the file as it is: nothing to add on its first turn.
    assert_eq!(p.turn(host, &event(prompt, "s3")), "");
    assert_eq!(p.log(), "", "nothing failed");
}

/// Copilot CLI reads a top-level `additionalContext` (Claude Code's `hookSpecificOutput` it
/// ignores, measured): the answer is in that shape, and `--next-turn` shows it trimmed in
/// `<system_reminder>`, as Copilot sends it.
#[test]
fn copilot_clis_turn_answers_at_the_top_level() {
    let host = "copilot-cli";
    let p = Project::new(host);
    let (included, left) = p.included_and_left_out();
    let prompt = "UserPromptSubmit";
    assert_eq!(p.turn(host, &event(prompt, "s1")), "", "nothing changed");
    p.ok(&["pin", "--demo", &left]);
    p.ok(&["exclude", "--demo", &included]);
    let predicted = p.ok(&["preview", "--host", host, "--next-turn"]);
    let answer: Value = serde_json::from_str(p.turn(host, &event(prompt, "s1")).trim()).unwrap();
    assert!(answer.get("hookSpecificOutput").is_none(), "{answer}");
    let said = answer["additionalContext"].as_str().unwrap();
    assert!(said.contains(p.ok(&["read", "--demo", &left]).trim_end()));
    assert_eq!(
        predicted.trim_end(),
        format!("<system_reminder>\n{}\n</system_reminder>", said.trim_end())
    );
    assert_eq!(p.turn(host, &event(prompt, "s1")), "", "said once");
    assert_eq!(p.log(), "", "nothing failed");
}

#[test]
fn next_turn_predicts_what_the_hook_hands_on_in_the_hosts_wrapper() {
    let p = Project::new("gemini");
    let (_, left) = p.included_and_left_out();
    p.turn("gemini", &event("SessionStart", "s1"));
    p.ok(&["pin", "--demo", &left]);
    let predicted = p.ok(&["preview", "--host", "gemini", "--next-turn"]);
    let said = context(
        &p.turn("gemini", &event("BeforeAgent", "s1")),
        "BeforeAgent",
    );
    assert_eq!(
        predicted.trim_end(),
        format!(
            "<hook_context>{}</hook_context>",
            said.replace('<', "&lt;").replace('>', "&gt;")
        )
        .trim_end(),
        "Gemini CLI escapes < and >: the prediction shows what its model reads"
    );
    assert_eq!(
        p.ok(&["preview", "--host", "gemini", "--next-turn"]),
        "",
        "and nothing once it is said"
    );
}

#[test]
fn claude_codes_file_is_held_back_while_a_session_runs_and_written_at_its_end() {
    let p = Project::new("claude-code");
    let (_, left) = p.included_and_left_out();
    let file = p.path().join(".mcpick/mcpick.claude-code.md");
    let text = p.ok(&["read", "--demo", &left]);
    p.turn("claude-code", &event("SessionStart", "s1"));
    p.ok(&["pin", "--demo", &left]);
    let held = std::fs::read_to_string(&file).unwrap();
    assert!(!held.contains(text.trim_end()), "held back while s1 runs");
    p.turn("claude-code", &event("PreCompact", "s1"));
    let compacted = std::fs::read_to_string(&file).unwrap();
    assert!(
        compacted.contains(text.trim_end()),
        "written before the host reads it again at compaction"
    );
    // After the compaction the model holds the file: the next turn repeats nothing.
    p.turn("claude-code", &event("SessionStart", "s1"));
    assert_eq!(p.turn("claude-code", &event("UserPromptSubmit", "s1")), "");
    // Held again while it runs, written when the last session ends.
    p.ok(&["exclude", "--demo", &left]);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains(text.trim_end())
    );
    p.turn("claude-code", &event("SessionEnd", "s1"));
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains(text.trim_end())
    );
}

#[test]
fn a_hook_that_cannot_answer_says_nothing_and_logs_one_line() {
    let p = Project::new("codex");
    for bad in ["not json", "{}", r#"{"session_id": 7}"#] {
        assert_eq!(p.turn("codex", bad), "", "{bad}");
    }
    let log = p.log();
    assert_eq!(log.lines().count(), 3, "{log}");
    assert!(log.lines().all(|l| l.contains("codex:")), "{log}");
    // A host without a per-turn channel is refused the same quiet way.
    assert_eq!(p.turn("cursor", &event("UserPromptSubmit", "s")), "");
    assert!(p.log().contains("no per-turn channel"));
}

/// The set's path as a hook names it does not matter: relative or absolute, one session.
#[test]
fn the_set_is_the_same_set_however_the_hook_names_it() {
    let p = Project::new("claude-code");
    let (_, left) = p.included_and_left_out();
    p.turn("claude-code", &event("SessionStart", "s1"));
    p.ok(&["pin", "--demo", &left]);
    let absolute = p.path().join("mcpick.context.json");
    let mut child = p
        .command(&["turn", "claude-code", "--set", absolute.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event("UserPromptSubmit", "s1").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(stdout(&out).contains("changed since your last turn"));
    assert_eq!(p.turn("claude-code", &event("UserPromptSubmit", "s1")), "");
}
