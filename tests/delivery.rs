//! Session-start delivery, proven by the hosts' own model requests: a real `mcpick install`
//! into a throwaway project, then Claude Code (`claude -p`), Gemini CLI (`gemini -p`) and Codex
//! (`codex exec`) from `tests/peers` (pinned versions, offline) are pointed at a recording
//! stub of their model APIs (`tests/peers/model_stub.py`). The first model request must hold
//! every resource `preview --host` includes, verbatim and in order, and none of what the set
//! excludes or the host's channel cannot carry; `uninstall` must leave every file as it was.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::model_stub::{
    Stub, all_text, claude_tui, end_cline_hub, run_host, still_typed, submit, take_turn, text_of,
    under,
};
use common::snapshot::{Files, assert_same_files, files};
use common::tmux::{HOST_START, Tmux};
use common::*;
use serde_json::Value;

/// A project with a set over the demo server (guides pinned, README and logs excluded, a
/// budget) and a home of its own.
struct World {
    dir: tempfile::TempDir,
    /// The project folder's name in `dir`.
    folder: &'static str,
    /// How the set's server is named on a command line (`read URI …`).
    upstream: Vec<String>,
}

/// The daemons a host left running for this test go with it.
impl Drop for World {
    fn drop(&mut self) {
        end_processes_under(self.dir.path());
    }
}

impl World {
    fn new() -> World {
        World::in_folder("project")
    }

    /// [`World::new`] with the project in a folder of that name.
    fn in_folder(folder: &'static str) -> World {
        let world = World {
            dir: tempfile::tempdir().unwrap(),
            folder,
            upstream: vec!["--demo".into()],
        };
        std::fs::create_dir_all(world.project()).unwrap();
        std::fs::create_dir_all(world.home().join(".gemini")).unwrap();
        world.ok(&["pin", "--demo", "file:///project/docs/guides/*"]);
        world.ok(&["exclude", "--demo", "file:///project/README.md"]);
        world.ok(&["exclude", "--demo", "file:///project/logs/*"]);
        world.ok(&["policy", "--budget", "12000"]);
        world
    }

    /// A set of about 36 KB as a bundle: 207 small resources of the Python SDK test server
    /// (`py://items/alpha/*` excluded), no budget.
    fn python_set() -> World {
        let upstream: Vec<String> = vec![
            "--name".into(),
            "py".into(),
            "--".into(),
            python(),
            py_server(),
            "--count".into(),
            "260".into(),
        ];
        let world = World {
            dir: tempfile::tempdir().unwrap(),
            folder: "project",
            upstream,
        };
        std::fs::create_dir_all(world.home().join(".gemini")).unwrap();
        let up: Vec<&str> = world.upstream.iter().map(String::as_str).collect();
        world.ok(&[&["pin", "py://items/*"][..], &up].concat());
        world.ok(&[&["exclude", "py://items/alpha/*"][..], &up].concat());
        world.ok(&["policy", "--budget", "all"]);
        world
    }

    /// Reads `uri` from the set's server.
    fn read(&self, uri: &str) -> String {
        let up: Vec<&str> = self.upstream.iter().map(String::as_str).collect();
        self.ok(&[&["read", uri][..], &up].concat())
    }

    fn project(&self) -> PathBuf {
        std::fs::create_dir_all(self.dir.path().join(self.folder)).unwrap();
        std::fs::canonicalize(self.dir.path().join(self.folder)).unwrap()
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn path_var() -> String {
        let bin = Path::new(mcpick_bin()).parent().unwrap();
        format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    fn env(&self) -> Vec<(String, String)> {
        let home = self.home();
        vec![
            ("HOME".into(), home.display().to_string()),
            (
                "XDG_CONFIG_HOME".into(),
                home.join(".config").display().to_string(),
            ),
            (
                "CODEX_HOME".into(),
                home.join(".codex").display().to_string(),
            ),
            ("PATH".into(), World::path_var()),
        ]
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        mcpick_in(&self.project(), &env, args)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// `preview --host HOST --format json`: what that host's model is promised.
    fn promised(&self, host: &str) -> Value {
        let out = self.run(&["preview", "--host", host, "--format", "json"]);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// A change to make between two turns of `host`'s session: the last resource its model is
    /// promised (to exclude) and the first the budget leaves out (to pin).
    fn a_change(&self, host: &str) -> (String, String) {
        let promised = self.promised(host);
        let uri = |v: &Value| v["uri"].as_str().unwrap().to_string();
        let withdrawn = uri(promised["included"].as_array().unwrap().last().unwrap());
        let pinned = promised["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["reason"] == "over budget")
            .map(uri)
            .expect("a resource left out by the budget");
        (withdrawn, pinned)
    }

    /// [`World::promised`] for a delivery of `scope`.
    fn promised_in(&self, host: &str, scope: &str) -> Value {
        let out = self.run(&[
            "preview", "--host", host, "--scope", scope, "--format", "json",
        ]);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The texts of what the plain preview leaves out as excluded, read from the server.
    fn excluded_texts(&self) -> Vec<String> {
        let out = self.run(&["preview", "--format", "json"]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["reason"] == "excluded")
            // A few, spread over the list: each read starts the server again.
            .step_by(7)
            .take(6)
            .map(|l| self.read(l["uri"].as_str().unwrap()))
            .collect()
    }

    /// Every file in the project and home, by path, for comparing before and after.
    fn files(&self) -> Files {
        files(&[self.project(), self.home()])
    }

    /// `claude -p hello` in the project against the recording stub: the text of its first
    /// model request's messages.
    fn claude_first_request(&self) -> String {
        let stub_dir = tempfile::tempdir().unwrap();
        let stub = Stub::start(stub_dir.path());
        let out = self.host(
            &stub,
            "claude",
            &["-p", "hello", "--output-format", "json"],
            &stub.claude_env(),
        );
        let requests = stub.requests("anthropic");
        assert!(!requests.is_empty(), "claude sent no model request: {out}");
        let mut text = String::new();
        all_text(&requests[0]["messages"], &mut text);
        text
    }

    /// Claude Code's interactive prompt in a real terminal (tmux) in the project, onboarding
    /// done, the project and its servers trusted, the stub as its model API.
    fn claude_interactive(&self, stub: &Stub) -> Tmux {
        claude_tui(&self.project(), &self.home(), &self.env(), stub)
    }

    /// Runs a host CLI in the project with the stub as its model API.
    fn host(&self, _stub: &Stub, program: &str, args: &[&str], env: &[(&str, String)]) -> String {
        run_host(program, args, &self.project(), &self.env(), env)
    }
}

/// Each `included` text found in `request`, in order; none of `absent`.
fn assert_delivered(host: &str, promised: &Value, request: &str, absent: &[String]) {
    let included = promised["included"].as_array().unwrap();
    assert!(!included.is_empty(), "{host}: nothing promised");
    let mut at = 0;
    for i in included {
        let text = i["contents"].as_str().expect("read contents");
        let uri = i["uri"].as_str().unwrap();
        match request[at..].find(text) {
            Some(found) => at += found + text.len(),
            None => panic!(
                "{host}: {uri} is not in the model request verbatim after the resources before it \
                 (found anywhere: {})",
                request.contains(text)
            ),
        }
    }
    for text in absent {
        let probe: String = text.chars().take(200).collect();
        assert!(
            !request.contains(&probe),
            "{host}: text that must not reach the model did: {probe:?}"
        );
    }
}

/// Claude Code: `install claude-code` (project), then `claude -p`: the CLAUDE.md import
/// carries the set into the first model request.
#[test]
fn claude_code_gets_the_set_in_its_first_model_request() {
    let world = World::python_set();
    std::fs::write(
        world.project().join("CLAUDE.md"),
        "# House rules\n\nBe brief.\n",
    )
    .unwrap();
    let before = world.files();
    let absent = world.excluded_texts();
    assert!(!absent.is_empty());
    let said = world.ok(&["install", "claude-code"]);
    assert!(said.contains("delivered at session start"), "{said}");
    let promised = world.promised("claude-code");
    // Its own delivery is not one it "picks up".
    let shown = world.run(&["preview", "--host", "claude-code"]);
    assert!(!stderr(&shown).contains("picks up"), "{}", stderr(&shown));
    let text = world.claude_first_request();
    assert!(
        text.contains("Be brief."),
        "the user's CLAUDE.md is still read"
    );
    assert_delivered("claude-code", &promised, &text, &absent);

    world.ok(&["uninstall", "claude-code"]);
    assert_same_files(&before, &world.files());
}

/// The whole demo, no limit (~712 KB): `install claude-code` warns of Claude Code's own size
/// banner, and Claude Code 2.1.332 still sends every resource of it to its model, in order (the
/// claim that warning makes).
#[test]
fn claude_code_reads_a_delivery_past_its_size_banner_whole() {
    let world = World::new();
    world.ok(&["policy", "--budget", "all"]);
    world.ok(&["unmark", "file:///project/README.md"]);
    world.ok(&["unmark", "file:///project/logs/*"]);
    // The clock changes at every read: what was promised would not be what is sent.
    world.ok(&["exclude", "--demo", "demo://clock/*"]);
    let said = world.run(&["install", "claude-code"]);
    assert_eq!(exit_code(&said), 0, "{}", stderr(&said));
    assert!(
        stderr(&said).contains("Claude Code warns of it on its own screen"),
        "{}",
        stderr(&said)
    );
    let promised = world.promised("claude-code");
    let chars: usize =
        std::fs::read_to_string(world.project().join(".mcpick/mcpick.claude-code.md"))
            .unwrap()
            .chars()
            .count();
    assert!(chars > 500_000, "the whole demo: {chars} characters");
    let text = world.claude_first_request();
    assert_delivered("claude-code", &promised, &text, &[]);
}

/// A user delivery of a set in a folder whose path holds a space: Claude Code's user
/// `CLAUDE.md` imports it by its absolute path, the space escaped as Claude Code reads it,
/// and the set reaches the model. Gemini CLI cannot import such a path: `install` says so
/// and writes nothing.
#[test]
fn a_set_folder_with_a_space_is_imported_or_refused_never_dropped() {
    let world = World::in_folder("my project");
    let said = world.ok(&["install", "claude-code", "--scope", "user"]);
    assert!(said.contains("delivered at session start"), "{said}");
    let user_md = std::fs::read_to_string(world.home().join(".claude/CLAUDE.md")).unwrap();
    assert!(user_md.contains("my\\ project/.mcpick/"), "{user_md}");
    let promised = world.promised_in("claude-code", "user");
    let text = world.claude_first_request();
    assert_delivered("claude-code", &promised, &text, &[]);
    world.ok(&["uninstall", "claude-code", "--scope", "user"]);

    let world2 = World::in_folder("another project");
    std::fs::create_dir_all(world2.project().join("sub dir")).unwrap();
    std::fs::rename(
        world2.project().join("mcpick.context.json"),
        world2.project().join("sub dir/mcpick.context.json"),
    )
    .unwrap();
    let before2 = world2.files();
    let out = world2.run(&["install", "gemini", "--set", "sub dir/mcpick.context.json"]);
    assert_ne!(exit_code(&out), 0, "{}", stdout(&out));
    assert!(stderr(&out).contains("white space"), "{}", stderr(&out));
    assert_same_files(&before2, &world2.files());
}

/// Gemini CLI: the GEMINI.md import, in `gemini -p`'s model request.
#[test]
fn gemini_cli_gets_the_set_in_its_first_model_request() {
    let world = World::python_set();
    std::fs::write(
        world.home().join(".gemini/settings.json"),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
    )
    .unwrap();
    let before = world.files();
    let absent = world.excluded_texts();
    let out = world.run(&["install", "gemini"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("\"trust\": true"),
        "install says what trust means"
    );
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(world.project().join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["mcpServers"]["mcpick"]["trust"], true);
    assert!(world.project().join("GEMINI.md").exists());
    let promised = world.promised("gemini");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "gemini",
        &["-p", "hello", "--output-format", "json"],
        &stub.gemini_env(),
    );
    // The router's request first, then the conversation's.
    let requests: Vec<Value> = stub
        .requests("gemini")
        .into_iter()
        .filter(|r| r["contents"].is_array())
        .collect();
    let conversation = requests
        .iter()
        .find(|r| {
            let mut t = String::new();
            all_text(&r["contents"], &mut t);
            t.contains("hello") && t.contains("mcpick")
        })
        .unwrap_or_else(|| panic!("no gemini request carried the set: {out}"));
    let mut text = String::new();
    all_text(&conversation["contents"], &mut text);
    assert_delivered("gemini", &promised, &text, &absent);

    world.ok(&["uninstall", "gemini"]);
    assert_same_files(&before, &world.files());
}

/// Codex: AGENTS.override.md (the user's AGENTS.md first), cut at whole resources to 32 KiB
/// exactly as `preview --host codex` says; what it leaves out does not reach the model.
#[test]
fn codex_gets_what_preview_host_promises_within_its_limit() {
    let world = World::python_set();
    let project = world.project();
    assert!(
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .status()
            .unwrap()
            .success()
    );
    std::fs::write(project.join("AGENTS.md"), "Always run the tests.\n").unwrap();
    let before = world.files();
    let absent = world.excluded_texts();
    world.ok(&["install", "codex"]);
    let promised = world.promised("codex");
    let override_md = std::fs::read_to_string(project.join("AGENTS.override.md")).unwrap();
    assert!(
        override_md.len() <= 32 * 1024,
        "{} bytes",
        override_md.len()
    );
    let cut: Vec<&Value> = promised["leftOut"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["reason"] == "host limit")
        .collect();
    let plain = world.run(&["preview", "--format", "json"]);
    let plain: Value = serde_json::from_slice(&plain.stdout).unwrap();
    let (kept, all) = (
        promised["included"].as_array().unwrap().len(),
        plain["included"].as_array().unwrap().len(),
    );
    assert_eq!(
        kept + cut.len(),
        all,
        "every included resource is delivered or named"
    );
    assert!(!cut.is_empty(), "this set is larger than Codex's 32 KiB");
    assert!(
        kept * 10 >= all * 8,
        "{kept} of {all} delivered: too few for a channel this size"
    );

    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let codex_home = world.home().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model_provider = \"stub\"\nmodel = \"gpt-5\"\napproval_policy = \"never\"\nsandbox_mode = \"read-only\"\n\
             [model_providers.stub]\nname = \"stub\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nenv_key = \"STUB_API_KEY\"\nwire_api = \"responses\"\n\
             [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            stub.port,
            project.display()
        ),
    )
    .unwrap();
    let out = world.host(
        &stub,
        "codex",
        &["exec", "--skip-git-repo-check", "hello"],
        &[("STUB_API_KEY", "dummy".into())],
    );
    let requests = stub.requests("openai");
    assert!(!requests.is_empty(), "codex sent no model request: {out}");
    let mut text = String::new();
    all_text(&requests[0]["input"], &mut text);
    assert!(
        text.contains("Always run the tests."),
        "the user's AGENTS.md still reaches the model"
    );
    // The cut ones: their texts must not be there (read from the server; they are unique).
    let mut left: Vec<String> = absent.clone();
    for l in cut.iter().step_by(5).take(6) {
        left.push(world.read(l["uri"].as_str().unwrap()));
    }
    assert_delivered("codex", &promised, &text, &left);

    // Codex's config.toml in the home is the test's, not part of the comparison.
    std::fs::remove_file(codex_home.join("config.toml")).unwrap();
    world.ok(&["uninstall", "codex"]);
    let after = world.files();
    let strip_git = |m: &BTreeMap<PathBuf, Vec<u8>>| -> BTreeMap<PathBuf, Vec<u8>> {
        m.iter()
            .filter(|(p, _)| {
                !p.components().any(|c| c.as_os_str() == ".git") || p.ends_with("info/exclude")
            })
            .map(|(p, v)| (p.clone(), v.clone()))
            .collect()
    };
    assert_same_files(&strip_git(&before), &strip_git(&after));
}

/// The text of the first request to the Anthropic API that carries `prompt` (hosts send a
/// title request of their own first).
fn conversation(stub: &Stub, prompt: &str, out: &str) -> String {
    stub.requests("anthropic")
        .iter()
        .map(|r| {
            let mut text = String::new();
            all_text(&r["system"], &mut text);
            all_text(&r["messages"], &mut text);
            text
        })
        .find(|t| t.contains(prompt) && t.contains("The context set"))
        .unwrap_or_else(|| panic!("no model request carried the prompt and the set: {out}"))
}

/// opencode: a plain `install opencode` lists mcpick's file in `opencode.json`'s
/// `instructions`; `opencode run` sends the user's `AGENTS.md` and then the set, verbatim.
#[test]
fn opencode_gets_the_set_in_its_first_model_request() {
    listed_instructions_carry_the_set(
        "opencode",
        "opencode.json",
        "\".mcpick/mcpick.opencode.md\"",
    );
}

/// Kilo CLI 7.7.7, an opencode fork: the same through mcpick's plugin, which `kilo.json`'s
/// `plugin` list names (`./.mcpick/mcpick.kilo.js`, beside the delivered file), read by `kilo
/// run`.
#[test]
fn kilo_gets_the_set_in_its_first_model_request() {
    listed_instructions_carry_the_set(
        "kilo",
        "kilo.json",
        "\"plugin\": [\"./.mcpick/mcpick.kilo.js\"]",
    );
}

/// `install HOST` lists mcpick's file in the host's `config` (kept as the user wrote it,
/// comments too: `listed` is what it names); the host's first model request holds the user's
/// `AGENTS.md` and then the set, verbatim and in order; `uninstall` leaves every file as it was.
fn listed_instructions_carry_the_set(host: &str, config: &str, listed: &str) {
    let world = World::python_set();
    let project = world.project();
    std::fs::write(project.join("AGENTS.md"), "Always run the tests.\n").unwrap();
    std::fs::write(
        project.join(config),
        // With the schema the host adds to a project file it reads, as it would be.
        "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  // the user's own\n  \"autoupdate\": false\n}\n",
    )
    .unwrap();
    let before = world.files();
    let absent = world.excluded_texts();
    let said = world.ok(&["install", host]);
    assert!(said.contains("delivered at session start"), "{said}");
    let written = std::fs::read_to_string(project.join(config)).unwrap();
    assert!(written.contains("// the user's own"), "{written}");
    assert!(written.contains(listed), "{written}");
    let promised = world.promised(host);
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let run = stub.headless(host, "hello", &world.home(), &project);
    let args: Vec<&str> = run.args.iter().map(String::as_str).collect();
    let out = world.host(&stub, run.program, &args, &run.env);
    let text = conversation(&stub, "hello", &out);
    let agents = text
        .find("Always run the tests.")
        .expect("the user's AGENTS.md is still read");
    assert!(
        agents < text.find("The context set").unwrap(),
        "the user's file first"
    );
    assert_delivered(host, &promised, &text, &absent);
    world.ok(&["uninstall", host]);
    assert_same_files(&before, &world.files());
}

/// Cline CLI 3.0.65: a plain `install cline` writes its (user) server entry and a rule file
/// in the project's `.clinerules/`; `cline` sends the rule whole under `# Rules`, the set
/// verbatim and in order, and offers mcpick's `context` tool; `uninstall` leaves every file
/// as it was. A project with a `.cline/rules/` folder (which Cline reads in place of
/// `.clinerules/`) gets the file there.
#[test]
fn cline_gets_the_set_in_its_first_model_request() {
    let world = World::python_set();
    let project = world.project();
    std::fs::write(project.join("AGENTS.md"), "Always run the tests.\n").unwrap();
    let before = world.files();
    let absent = world.excluded_texts();
    let said = world.ok(&["install", "cline"]);
    assert!(said.contains("delivered at session start"), "{said}");
    assert!(project.join(".clinerules/mcpick.md").is_file(), "{said}");
    let promised = world.promised("cline");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let run = stub.headless("cline", "say hello please", &world.home(), &project);
    let args: Vec<&str> = run.args.iter().map(String::as_str).collect();
    let out = world.host(&stub, run.program, &args, &run.env);
    end_cline_hub(&project);
    let requests = stub.requests("chat");
    let request = requests
        .first()
        .unwrap_or_else(|| panic!("cline sent no model request: {out}"));
    let text = text_of(&request["messages"]);
    assert!(
        text.contains("# Rules\n## mcpick\n"),
        "the rule, by its name"
    );
    assert!(
        text.contains("Always run the tests."),
        "the user's AGENTS.md is still read"
    );
    assert_delivered("cline", &promised, &text, &absent);
    let tools = request["tools"].to_string();
    assert!(
        tools.contains("mcpick__context"),
        "the served tools: {tools}"
    );
    world.ok(&["uninstall", "cline"]);
    assert_same_files(&before, &world.files());

    std::fs::create_dir_all(project.join(".cline/rules")).unwrap();
    let said = world.ok(&["install", "cline"]);
    assert!(project.join(".cline/rules/mcpick.md").is_file(), "{said}");
    assert!(!project.join(".clinerules").exists(), "{said}");
    world.ok(&["uninstall", "cline"]);
    assert!(!project.join(".cline/rules/mcpick.md").exists());
    assert!(
        project.join(".cline/rules").is_dir(),
        "the user's folder stays"
    );

    // A `.cline/rules/` made after the install: the delivery recorded in `.clinerules/` is
    // still mcpick's, and uninstall takes it back.
    std::fs::remove_dir_all(project.join(".cline")).unwrap();
    world.ok(&["install", "cline"]);
    assert!(project.join(".clinerules/mcpick.md").is_file());
    std::fs::create_dir_all(project.join(".cline/rules")).unwrap();
    world.ok(&["uninstall", "cline"]);
    assert!(!project.join(".clinerules/mcpick.md").exists());
}

/// pi 0.73.1 takes no MCP servers: a plain `install pi` writes the delivered file and an
/// extension of mcpick's (`.pi/extensions/mcpick.ts`) and no entry; `pi -p` sends the user's
/// `AGENTS.md` and the set in its system prompt, verbatim and in order; `uninstall` leaves
/// every file as it was.
#[test]
fn pi_gets_the_set_in_its_first_model_request() {
    let world = World::python_set();
    let project = world.project();
    std::fs::write(project.join("AGENTS.md"), "Always run the tests.\n").unwrap();
    let before = world.files();
    let absent = world.excluded_texts();
    let said = world.ok(&["install", "pi"]);
    assert!(said.contains("delivered at session start"), "{said}");
    assert!(project.join(".pi/extensions/mcpick.ts").is_file(), "{said}");
    let promised = world.promised("pi");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let run = stub.headless("pi", "hello", &world.home(), &project);
    let args: Vec<&str> = run.args.iter().map(String::as_str).collect();
    let out = world.host(&stub, run.program, &args, &run.env);
    let text = conversation(&stub, "hello", &out);
    assert!(
        text.contains("Always run the tests."),
        "the user's AGENTS.md is still read"
    );
    assert_delivered("pi", &promised, &text, &absent);
    world.ok(&["uninstall", "pi"]);
    assert_same_files(&before, &world.files());
}

/// opencode runs an MCP server's prompt as a command: after `install opencode --deliver
/// on-demand` (no session-start file, so only the prompt can carry the set),
/// `opencode run --command mcpick:context` sends the `context` prompt's text to its model,
/// the set verbatim, nothing excluded.
#[test]
fn opencode_runs_the_context_prompt_as_a_command() {
    let world = World::python_set();
    let absent = world.excluded_texts();
    world.ok(&["install", "opencode", "--deliver", "on-demand"]);
    let promised = world.promised("opencode");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "opencode",
        &["run", "--format", "json", "--command", "mcpick:context"],
        &stub.opencode_env(),
    );
    let first = promised["included"][0]["contents"].as_str().unwrap();
    let conversations: Vec<String> = stub
        .requests("anthropic")
        .iter()
        .map(|r| {
            let mut text = String::new();
            all_text(&r["messages"], &mut text);
            text
        })
        .collect();
    let text = conversations
        .iter()
        .find(|t| t.contains(first))
        .unwrap_or_else(|| {
            panic!("no model request carried the prompt: {out}\n{conversations:#?}")
        });
    assert!(
        !text.contains("Instructions from: "),
        "the set came through the prompt, in the conversation"
    );
    assert_delivered("opencode", &promised, text, &absent);
}

/// GitHub Copilot CLI: `install copilot-cli` (its entry is the user's) imports the set from
/// `~/.copilot/copilot-instructions.md`; `copilot -p` sends it verbatim.
#[test]
fn copilot_cli_gets_the_set_in_its_first_model_request() {
    let world = World::python_set();
    let copilot = world.home().join(".copilot");
    std::fs::create_dir_all(&copilot).unwrap();
    std::fs::write(
        copilot.join("copilot-instructions.md"),
        "Answer in English.\n",
    )
    .unwrap();
    let before = world.files();
    let absent = world.excluded_texts();
    let said = world.ok(&["install", "copilot-cli"]);
    assert!(said.contains("delivered at session start"), "{said}");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(copilot.join("mcp-config.json")).unwrap())
            .unwrap();
    assert_eq!(
        config["mcpServers"]["mcpick"]["tools"],
        serde_json::json!(["*"])
    );
    let promised = world.promised("copilot-cli");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "copilot",
        &[
            "-p",
            "hello",
            "--output-format",
            "json",
            "--no-auto-update",
            "--no-ask-user",
        ],
        &stub.copilot_env(),
    );
    let text = conversation(&stub, "hello", &out);
    assert!(
        text.contains("Answer in English."),
        "the user's instructions are still read"
    );
    assert_delivered("copilot-cli", &promised, &text, &absent);
    assert_eq!(text.matches("The context set `").count(), 1, "the set once");
    world.ok(&["uninstall", "copilot-cli"]);
    assert_same_files(&before, &world.files());
}

/// A set over Copilot CLI's channel: `install copilot-cli` cuts it at whole resources to 256 KiB
/// (past ~400 KB of instructions Copilot sends no request at all), each resource delivered or
/// named by `preview --host`; the cut set reaches the model and what it leaves out does not.
#[test]
fn copilot_cli_gets_what_preview_host_promises_within_its_limit() {
    let world = World::new();
    // Everything, no limit, so the channel's own cut is what cuts; the clock left out: it
    // changes at every read, so what `preview --host` reads is never what install wrote.
    world.ok(&["policy", "--budget", "all"]);
    world.ok(&["exclude", "--demo", "demo://clock/*"]);
    world.ok(&["install", "copilot-cli"]);
    let file = world.home().join(".copilot/mcpick/mcpick.copilot-cli.md");
    let delivered = std::fs::read_to_string(&file).unwrap();
    assert!(delivered.len() <= 256 * 1024, "{} bytes", delivered.len());
    let promised = world.promised("copilot-cli");
    let plain: Value =
        serde_json::from_slice(&world.run(&["preview", "--format", "json"]).stdout).unwrap();
    let cut: Vec<&Value> = promised["leftOut"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["reason"] == "host limit")
        .collect();
    let (kept, all) = (
        promised["included"].as_array().unwrap().len(),
        plain["included"].as_array().unwrap().len(),
    );
    assert!(!cut.is_empty(), "this set is larger than the channel");
    assert_eq!(
        kept + cut.len(),
        all,
        "every included resource is delivered or named"
    );
    assert!(
        delivered.len() > 200 * 1024,
        "the channel is used: {} bytes",
        delivered.len()
    );
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "copilot",
        &[
            "-p",
            "hello",
            "--output-format",
            "json",
            "--no-auto-update",
            "--no-ask-user",
        ],
        &stub.copilot_env(),
    );
    let text = conversation(&stub, "hello", &out);
    // The demo serves some texts under two URIs: only those no delivered resource shares.
    let delivered_texts: Vec<&str> = promised["included"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["contents"].as_str())
        .collect();
    let left: Vec<String> = cut
        .iter()
        .map(|l| world.read(l["uri"].as_str().unwrap()))
        .filter(|t| {
            let probe: String = t.chars().take(200).collect();
            !delivered_texts.iter().any(|d| d.contains(&probe))
        })
        .take(6)
        .collect();
    assert!(!left.is_empty());
    assert_delivered("copilot-cli", &promised, &text, &left);
}

/// Copilot CLI reads the project's `CLAUDE.md` and its imports: with Claude Code's delivery
/// installed, `install copilot-cli` writes no second copy, `preview --host copilot-cli` says
/// which delivery it picks up, and its model gets the set once.
#[test]
fn copilot_cli_picks_up_claude_codes_delivery_and_gets_the_set_once() {
    let world = World::python_set();
    let before = world.files();
    world.ok(&["install", "claude-code"]);
    let out = world.run(&["install", "copilot-cli"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("no second copy"), "{}", stderr(&out));
    assert!(
        !world
            .home()
            .join(".copilot/copilot-instructions.md")
            .exists()
    );
    let shown = world.run(&["preview", "--host", "copilot-cli", "--format", "json"]);
    assert!(
        stderr(&shown)
            .contains("picks up the installed delivery of this set: claude-code (project)"),
        "{}",
        stderr(&shown)
    );
    let promised: Value = serde_json::from_slice(&shown.stdout).unwrap();
    // The folder trusted, so Copilot reads the project's `.mcp.json` (Claude Code's entry)
    // beside its own user entry of the same name.
    std::fs::write(
        world.home().join(".copilot/config.json"),
        serde_json::json!({"trusted_folders": [world.project()]}).to_string(),
    )
    .unwrap();
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "copilot",
        &[
            "-p",
            "hello",
            "--output-format",
            "json",
            "--no-auto-update",
            "--no-ask-user",
        ],
        &stub.copilot_env(),
    );
    let text = conversation(&stub, "hello", &out);
    assert_delivered("copilot-cli", &promised, &text, &[]);
    assert_eq!(text.matches("The context set `").count(), 1, "the set once");
    let request = stub
        .requests("anthropic")
        .into_iter()
        .find(|r| text_of(&r["messages"]).contains("hello"))
        .unwrap();
    let served: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .filter(|n| n.starts_with("mcpick"))
        .collect();
    assert_eq!(served, ["mcpick-context"], "the served server once");
    world.ok(&["uninstall", "copilot-cli"]);
    world.ok(&["uninstall", "claude-code"]);
    assert_same_files(&before, &world.files());
}

/// VS Code cannot run here; its channel, `.github/instructions/NAME.instructions.md` with
/// `applyTo: "**"`, comes from its docs. Copilot CLI reads the same files, raw: in a git
/// repository (mcpick's file kept out of git), `install vscode`'s delivery reaches Copilot
/// CLI's model, measured, front matter and all; `install copilot-cli` writes no second copy,
/// `preview --host copilot-cli` names the VS Code delivery, and the model gets the set once.
#[test]
fn copilot_cli_reads_vscodes_delivery_and_gets_the_set_once() {
    let world = World::python_set();
    let project = world.project();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&project)
        .status()
        .unwrap();
    assert!(git.success());
    let before = world.files();
    let absent = world.excluded_texts();
    let said = world.ok(&["install", "vscode"]);
    assert!(said.contains("(from docs, not measured)"), "{said}");
    let file = project.join(".github/instructions/mcpick.instructions.md");
    let delivered = std::fs::read_to_string(&file).unwrap();
    assert!(
        std::fs::read_to_string(project.join(".git/info/exclude"))
            .unwrap()
            .ends_with("/.github/instructions/mcpick.instructions.md\n")
    );
    let out = world.run(&["install", "copilot-cli"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("no second copy"), "{}", stderr(&out));
    assert!(
        !world
            .home()
            .join(".copilot/copilot-instructions.md")
            .exists()
    );
    let shown = world.run(&["preview", "--host", "copilot-cli", "--format", "json"]);
    assert!(
        stderr(&shown).contains("picks up the installed delivery of this set: vscode (project)"),
        "{}",
        stderr(&shown)
    );
    let promised: Value = serde_json::from_slice(&shown.stdout).unwrap();
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "copilot",
        &[
            "-p",
            "hello",
            "--output-format",
            "json",
            "--no-auto-update",
            "--no-ask-user",
        ],
        &stub.copilot_env(),
    );
    let text = conversation(&stub, "hello", &out);
    assert_delivered("copilot-cli", &promised, &text, &absent);
    assert_eq!(text.matches("The context set `").count(), 1, "the set once");
    // Raw: the file whole, its front matter and mcpick's mark included.
    assert!(
        text.contains(delivered.trim_end()),
        "the file is not in the request whole"
    );
    world.ok(&["uninstall", "copilot-cli"]);
    world.ok(&["uninstall", "vscode"]);
    assert_same_files(&before, &world.files());
}

/// Qwen Code: the `QWEN.md` import (project), in `qwen`'s first model request; the project
/// entry waits for `qwen mcp approve`, the delivery does not.
#[test]
fn qwen_code_gets_the_set_in_its_first_model_request() {
    let world = World::python_set();
    let qwen = world.home().join(".qwen");
    std::fs::create_dir_all(&qwen).unwrap();
    std::fs::write(
        qwen.join("settings.json"),
        // As Qwen Code leaves it (it adds its `$version` to every settings file it reads).
        "{\n  \"privacy\": {\n    \"usageStatisticsEnabled\": false\n  },\n  \"telemetry\": {\n    \"enabled\": false\n  },\n  \"$version\": 4\n}",
    )
    .unwrap();
    std::fs::write(
        world.project().join("QWEN.md"),
        "# House rules\n\nBe brief.\n",
    )
    .unwrap();
    let before = world.files();
    let absent = world.excluded_texts();
    let out = world.run(&["install", "qwen-code"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("qwen mcp approve"),
        "{}",
        stderr(&out)
    );
    let promised = world.promised("qwen-code");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "qwen",
        &["--auth-type", "anthropic", "-o", "json", "hello"],
        &stub.qwen_env(),
    );
    let text = conversation(&stub, "hello", &out);
    assert!(
        text.contains("Be brief."),
        "the user's QWEN.md is still read"
    );
    assert_delivered("qwen-code", &promised, &text, &absent);
    // Qwen Code marked the settings file install created with its `$version`: it goes whole.
    let settings = std::fs::read_to_string(world.project().join(".qwen/settings.json")).unwrap();
    assert!(settings.contains("$version"), "{settings}");
    world.ok(&["uninstall", "qwen-code"]);
    assert_same_files(&before, &world.files());
}

/// Qwen Code expands `@server:uri` mentions headless: `export --mentions` names the set's
/// resources as the served entry (user scope: it runs without `qwen mcp approve`), and each
/// arrives verbatim, in mention order, in the model request.
#[test]
fn qwen_code_expands_the_sets_mentions_headless() {
    let world = World::new();
    let qwen = world.home().join(".qwen");
    std::fs::create_dir_all(&qwen).unwrap();
    std::fs::write(
        qwen.join("settings.json"),
        "{\n  \"privacy\": {\n    \"usageStatisticsEnabled\": false\n  },\n  \"$version\": 4\n}",
    )
    .unwrap();
    let before = world.files();
    world.ok(&[
        "install",
        "qwen-code",
        "--scope",
        "user",
        "--deliver",
        "on-demand",
    ]);
    let mentions: Vec<String> = world
        .ok(&["export", "--mentions"])
        .lines()
        .take(3)
        .map(str::to_string)
        .collect();
    assert_eq!(mentions.len(), 3);
    assert!(
        mentions.iter().all(|m| m.starts_with("@mcpick:")),
        "{mentions:?}"
    );
    let prompt = format!("{} summarize", mentions.join(" "));
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "qwen",
        &["--auth-type", "anthropic", "-o", "json", &prompt],
        &stub.qwen_env(),
    );
    let request = stub
        .requests("anthropic")
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("qwen sent no model request: {out}"));
    let mut text = String::new();
    all_text(&request["messages"], &mut text);
    let mut at = 0;
    for m in &mentions {
        let uri = m.trim_start_matches("@mcpick:");
        let body = world.read(uri);
        let found = text[at..]
            .find(body.trim_end())
            .unwrap_or_else(|| panic!("{uri} is not in the request after the ones before it"));
        at += found + body.trim_end().len();
    }
    world.ok(&["uninstall", "qwen-code", "--scope", "user"]);
    assert_same_files(&before, &world.files());
}

/// `preview --host` names what a channel cannot carry, and `pin` writes the delivery again.
#[test]
fn a_change_of_the_set_reaches_the_delivered_text() {
    let world = World::new();
    world.ok(&["install", "claude-code"]);
    let file = world.project().join(".mcpick/mcpick.claude-code.md");
    let before = std::fs::read_to_string(&file).unwrap();
    assert!(before.contains("file:///project/docs/guides/"));
    assert!(!before.contains("Demo project"), "README is excluded");
    world.ok(&["unmark", "file:///project/README.md"]);
    world.ok(&["pin", "--demo", "file:///project/README.md"]);
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(
        after.contains("This catalogue is served by"),
        "the pinned README is delivered now"
    );
    // What is committed holds no contents.
    let claude_md = std::fs::read_to_string(world.project().join("CLAUDE.md")).unwrap();
    assert!(!claude_md.contains("This catalogue"), "{claude_md}");
    let ignore = std::fs::read_to_string(world.project().join(".mcpick/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
    // `install --list` shows each piece.
    let listed = world.ok(&["install", "--list"]);
    let line = listed
        .lines()
        .find(|l| l.starts_with("claude-code") && l.contains("delivered text"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(
        line.contains(".mcpick/mcpick.claude-code.md") && line.contains("CLAUDE.md"),
        "{line}"
    );
}

/// `serve`, which the host starts at every session, writes the delivery again once it has
/// listed the servers: what changed since reaches the next session.
#[test]
fn serve_writes_the_delivery_again_when_it_starts() {
    let world = World::new();
    world.ok(&["install", "claude-code"]);
    let file = world.project().join(".mcpick/mcpick.claude-code.md");
    std::fs::write(&file, "stale\n").unwrap();
    let mut command = Command::new(mcpick_bin());
    command
        .args(["serve"])
        .current_dir(world.project())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in world.env() {
        command.env(k, v);
    }
    let mut serve = command.spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    let mut text = String::new();
    while std::time::Instant::now() < deadline {
        text = std::fs::read_to_string(&file).unwrap_or_default();
        if text != "stale\n" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(text.contains("file:///project/docs/guides/"), "{text}");
}

/// A server's text cannot leave its block: a resource named `@../secret.txt` or holding
/// `@secret.txt` lines imports nothing, its contents reach the model verbatim, and
/// `preview --host` says which resources hold the host's own closing tags.
#[test]
fn a_resource_cannot_import_a_file_or_hide_its_wrapper_tags() {
    let dir = tempfile::tempdir().unwrap();
    let world = World {
        dir: tempfile::tempdir_in(dir.path()).unwrap(),
        folder: "project",
        upstream: Vec::new(),
    };
    std::fs::create_dir_all(world.home().join(".gemini")).unwrap();
    let py = python();
    let server = repo_root().join("tests/peers/py_wrapper_server.py");
    let upstream = [
        "--name",
        "wrap",
        "--",
        py.as_str(),
        server.to_str().unwrap(),
    ];
    world.ok(&[&["pin", "wrap://*"], &upstream[..]].concat());
    world.ok(&["policy", "--budget", "all"]);
    std::fs::write(world.project().join("secret.txt"), "SECRET-FILE-TEXT\n").unwrap();
    for (host, tag) in [
        ("claude-code", "</system-reminder>"),
        ("codex", "</INSTRUCTIONS>"),
        ("gemini", "<!-- End of import from:"),
    ] {
        let out = world.run(&["preview", "--host", host]);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("contains `{tag}`")),
            "{host}: {}",
            stderr(&out)
        );
    }
    std::fs::write(
        world.home().join(".gemini/settings.json"),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
    )
    .unwrap();
    world.ok(&["install", "claude-code"]);
    world.ok(&["install", "gemini"]);
    let promised = world.promised("claude-code");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    world.host(
        &stub,
        "claude",
        &["-p", "hello", "--output-format", "json"],
        &stub.claude_env(),
    );
    world.host(
        &stub,
        "gemini",
        &["-p", "hello", "--output-format", "json"],
        &stub.gemini_env(),
    );
    for (api, key) in [("anthropic", "messages"), ("gemini", "contents")] {
        let mut text = String::new();
        for request in stub.requests(api) {
            all_text(&request[key], &mut text);
        }
        assert!(
            text.contains("CLAUDE-ESCAPE"),
            "{api}: the set was delivered"
        );
        assert!(
            !text.contains("SECRET-FILE-TEXT"),
            "{api}: a resource's name or text made the host import a file"
        );
        if api == "anthropic" {
            assert_delivered("claude-code", &promised, &text, &[]);
        }
    }
    // Copilot CLI reads the project's `CLAUDE.md` and its imports, and ends a fence at any
    // bare ``` line: a line-initial `@` after one must still import nothing.
    let before = stub.requests("anthropic").len();
    let out = world.host(
        &stub,
        "copilot",
        &[
            "-p",
            "hello",
            "--output-format",
            "json",
            "--no-auto-update",
            "--no-ask-user",
        ],
        &stub.copilot_env(),
    );
    let mut text = String::new();
    for request in &stub.requests("anthropic")[before..] {
        all_text(&request["messages"], &mut text);
        all_text(&request["system"], &mut text);
    }
    assert!(
        text.contains("COPILOT-TRY"),
        "copilot: the set was delivered: {out}"
    );
    assert!(
        !text.contains("SECRET-FILE-TEXT"),
        "copilot: a resource's text made the host import a file"
    );
}

/// `export --mentions` prints what Gemini CLI expands in `-p`: the resource's contents reach the
/// model through the served entry, named as the host knows it.
#[test]
fn gemini_expands_the_mentions_export_prints() {
    let world = World::new();
    std::fs::write(
        world.home().join(".gemini/settings.json"),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
    )
    .unwrap();
    world.ok(&["install", "gemini", "--deliver", "on-demand"]);
    assert!(
        !world.project().join("GEMINI.md").exists(),
        "on-demand writes no import"
    );
    let mentions = world.ok(&["export", "--mentions"]);
    let first = mentions.lines().next().expect("a mention").to_string();
    assert!(first.starts_with("@mcpick:"), "{first}");
    let uri = first.trim_start_matches("@mcpick:");
    let text = world.ok(&["read", "--demo", uri]);
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let out = world.host(
        &stub,
        "gemini",
        &[
            "-p",
            &format!("Summarise {first}"),
            "--output-format",
            "json",
        ],
        &stub.gemini_env(),
    );
    let mut all = String::new();
    for request in stub.requests("gemini") {
        all_text(&request["contents"], &mut all);
    }
    let probe: String = text.chars().take(300).collect();
    assert!(all.contains(&probe), "the mention did not expand: {out}");
}

/// A mention typed into Claude Code's interactive prompt (a real terminal: tmux) is expanded
/// from the served entry: `@mcpick:URI`, as `export --mentions` names it.
#[test]
fn claude_code_expands_a_mention_typed_in_its_interactive_prompt() {
    let world = World::new();
    world.ok(&["install", "claude-code", "--deliver", "on-demand"]);
    let mentions = world.ok(&["export", "--mentions"]);
    let mention = mentions.lines().next().expect("a mention").to_string();
    let uri = mention.trim_start_matches("@mcpick:").to_string();
    let text = world.ok(&["read", "--demo", &uri]);
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let tmux = world.claude_interactive(&stub);
    let wait_for = |what: &str, secs: u64| {
        tmux.wait(Duration::from_secs(secs), |s| s.contains(what))
            .is_ok()
    };
    // The prompt, then time for the served entry to connect (its resources complete mentions).
    let ready = wait_for("auto mode", HOST_START.as_secs()) || wait_for("❯", 5);
    std::thread::sleep(Duration::from_secs(5));
    let sent = ready && {
        tmux.type_text(&format!("{mention} summarise"));
        std::thread::sleep(Duration::from_millis(800));
        tmux.keys(&["Enter"]);
        wait_for("Read MCP resource", 120)
    };
    // The model request follows the read.
    let probe: String = text.chars().take(300).collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut reached = false;
    while sent && !reached && std::time::Instant::now() < deadline {
        let mut all = String::new();
        for request in stub.requests("anthropic") {
            all_text(&request["messages"], &mut all);
        }
        reached = all.contains(&probe);
        std::thread::sleep(Duration::from_millis(200));
    }
    let shown = tmux.screen();
    drop(tmux);
    assert!(ready, "Claude Code's prompt did not appear:\n{shown}");
    assert!(
        sent,
        "the mention was not read from the served entry:\n{shown}"
    );
    assert!(
        reached,
        "the mention's contents did not reach the model:\n{shown}"
    );
}

/// `preview --host` says when the `context` tool's answer (the whole set) is over what the
/// host passes on whole from a tool (the way to what the channel left out), and is quiet when
/// it is not.
#[test]
fn preview_host_warns_when_the_context_tool_answer_is_over_the_hosts_tool_cut() {
    let dir = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(dir.path()).unwrap();
    let warn = |host: &str, set: Option<&str>| {
        let mut args = vec!["preview", "--host", host];
        match set {
            Some(set) => args.extend(["--set", set]),
            // The whole demo, no limit.
            None => args.extend(["--demo", "--budget", "all"]),
        }
        let out = common::mcpick_in(&project, &[], &args);
        assert_eq!(common::exit_code(&out), 0, "{}", common::stderr(&out));
        common::stderr(&out)
            .lines()
            .find(|l| l.contains("the `context` tool's answer is about"))
            .map(str::to_string)
    };
    // The whole demo is ~700,000 characters.
    let claude = warn("claude-code", None).expect("a warning for Claude Code");
    assert!(claude.contains("~50,000-character"), "{claude}");
    let codex = warn("codex", None).expect("a warning for Codex");
    assert!(codex.contains("~12,000 characters"), "{codex}");
    // Gemini CLI passes tool results whole.
    assert_eq!(warn("gemini", None), None);
    // A set of one small resource is well under both.
    for args in [
        &["pin", "--demo", "file:///project/README.md"][..],
        &["policy", "--budget", "0"][..],
    ] {
        let out = common::mcpick_in(&project, &[], args);
        assert_eq!(common::exit_code(&out), 0, "{}", common::stderr(&out));
    }
    let set = project.join("mcpick.context.json");
    let set = set.to_str().unwrap();
    assert_eq!(warn("claude-code", Some(set)), None);
    assert_eq!(warn("codex", Some(set)), None);
}

/// Live delivery in Claude Code, over three turns of one interactive session: a pin and an
/// exclude made between turn 1 and turn 2 reach the model on turn 2 (the newly pinned resource
/// verbatim, the excluded one named as withdrawn), and turn 3, with nothing changed, adds
/// nothing.
#[test]
fn claude_code_gets_a_change_of_the_set_on_the_next_turn() {
    let world = World::new();
    // A resource whose text changes at every read would change every turn.
    world.ok(&["exclude", "--demo", "demo://clock/*"]);
    // A plain install writes the hooks: every event runs `mcpick turn`.
    world.ok(&["install", "claude-code"]);
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(world.project().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    for event in [
        "UserPromptSubmit",
        "SessionStart",
        "PreCompact",
        "SessionEnd",
    ] {
        assert_eq!(
            settings["hooks"][event][0]["hooks"][0]["command"],
            "mcpick turn claude-code --set mcpick.context.json",
            "{settings}"
        );
    }
    let (withdrawn, pinned) = world.a_change("claude-code");
    let pinned_text = world.read(&pinned);
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let tmux = world.claude_interactive(&stub);
    let ready = tmux
        .wait(HOST_START, |s| s.contains("auto mode") || s.contains("❯"))
        .is_ok();
    std::thread::sleep(Duration::from_secs(3));
    let turn = |prompt: &str| take_turn(&tmux, &stub, "anthropic", prompt, under("messages"));
    let first = ready.then(|| turn("first turn please")).flatten();
    world.ok(&["pin", "--demo", &pinned]);
    world.ok(&["exclude", "--demo", &withdrawn]);
    let predicted = world.run(&["preview", "--host", "claude-code", "--next-turn"]);
    let second = first.as_ref().and_then(|_| turn("second turn please"));
    let third = second.as_ref().and_then(|_| turn("third turn please"));
    // Held back while the session ran (Claude Code would also send the changed lines,
    // numbered): written when it ends.
    let file = world.project().join(".mcpick/mcpick.claude-code.md");
    let during = std::fs::read_to_string(&file).unwrap();
    tmux.type_text("/exit");
    std::thread::sleep(Duration::from_millis(500));
    tmux.keys(&["Enter"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut after_end = during.clone();
    while after_end == during && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(300));
        after_end = std::fs::read_to_string(&file).unwrap();
    }
    let shown = tmux.screen();
    drop(tmux);
    let first = first.unwrap_or_else(|| panic!("turn 1 never reached the model:\n{shown}"));
    let second = second.unwrap_or_else(|| panic!("turn 2 never reached the model:\n{shown}"));
    let third = third.unwrap_or_else(|| panic!("turn 3 never reached the model:\n{shown}"));
    const CHANGED: &str = "changed since your last turn";
    assert!(!first.contains(CHANGED), "nothing changed before turn 1");
    assert!(second.contains(CHANGED), "turn 2 says what changed");
    let after = &second[second.find(CHANGED).unwrap()..];
    assert!(
        after.contains(pinned_text.trim_end()),
        "the newly pinned resource, verbatim:\n{after}"
    );
    assert!(
        after.contains("disregard what it said") && after.contains(&withdrawn),
        "the excluded one named as withdrawn:\n{after}"
    );
    assert_eq!(
        third.matches(CHANGED).count(),
        second.matches(CHANGED).count(),
        "turn 3, with nothing changed, adds nothing"
    );
    let told = stderr(&predicted);
    assert!(told.contains("next turn: +1 −1"), "{told}");
    let predicted = stdout(&predicted);
    assert!(
        predicted.starts_with("UserPromptSubmit hook additional context: "),
        "{predicted}"
    );
    assert!(
        second.contains(predicted.trim_end()),
        "what --next-turn predicted is what arrived:\n{predicted}"
    );
    assert!(
        !second.contains("changed on disk"),
        "the change reached the model once, not also as Claude Code's numbered note"
    );
    assert!(
        !during.contains(pinned_text.trim_end()),
        "the session-start file is held back while the session runs"
    );
    assert!(
        after_end.contains(pinned_text.trim_end()),
        "and written when it ends"
    );
}

/// Live delivery in Gemini CLI, over three turns of one interactive session, after a plain
/// `mcpick install gemini` (the folder trusted, as Gemini CLI asks): a pin and an exclude
/// between turn 1 and turn 2 reach the model on turn 2 inside `<hook_context>`, `<` and `>`
/// escaped as Gemini CLI escapes them, as `preview --next-turn` predicted; turn 3 adds nothing.
#[test]
fn gemini_cli_gets_a_change_of_the_set_on_the_next_turn() {
    let world = World::new();
    world.ok(&["exclude", "--demo", "demo://clock/*"]);
    std::fs::write(
        world.home().join(".gemini/settings.json"),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
    )
    .unwrap();
    world.ok(&["install", "gemini"]);
    let (withdrawn, pinned) = world.a_change("gemini");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let mut env = world.env();
    env.extend(
        stub.gemini_env()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v)),
    );
    let tmux = Tmux::program(
        &world.project(),
        &env,
        &peers().join("node/node_modules/.bin/gemini"),
    );
    let ready = tmux
        .wait(HOST_START, |s| s.contains("Type your message"))
        .is_ok();
    std::thread::sleep(Duration::from_secs(2));
    let first = ready
        .then(|| {
            take_turn(
                &tmux,
                &stub,
                "gemini",
                "first turn please",
                under("contents"),
            )
        })
        .flatten();
    world.ok(&["pin", "--demo", &pinned]);
    world.ok(&["exclude", "--demo", &withdrawn]);
    let predicted = world.run(&["preview", "--host", "gemini", "--next-turn"]);
    let second = first.as_ref().and_then(|_| {
        take_turn(
            &tmux,
            &stub,
            "gemini",
            "second turn please",
            under("contents"),
        )
    });
    let third = second.as_ref().and_then(|_| {
        take_turn(
            &tmux,
            &stub,
            "gemini",
            "third turn please",
            under("contents"),
        )
    });
    let shown = tmux.screen();
    drop(tmux);
    let first = first.unwrap_or_else(|| panic!("turn 1 never reached the model:\n{shown}"));
    let second = second.unwrap_or_else(|| panic!("turn 2 never reached the model:\n{shown}"));
    let third = third.unwrap_or_else(|| panic!("turn 3 never reached the model:\n{shown}"));
    const CHANGED: &str = "changed since your last turn";
    assert!(!first.contains(CHANGED), "nothing changed before turn 1");
    let told = stderr(&predicted);
    assert!(told.contains("next turn: +1 −1"), "{told}");
    let predicted = stdout(&predicted);
    assert!(predicted.starts_with("<hook_context>"), "{predicted}");
    let inside = predicted
        .trim_end()
        .trim_start_matches("<hook_context>")
        .trim_end_matches("</hook_context>");
    assert!(
        second.contains(inside),
        "what --next-turn predicted (escaped as Gemini CLI escapes) is what arrived"
    );
    assert!(second.contains(&withdrawn) && second.contains("disregard what it said"));
    let pinned_text = world.read(&pinned);
    let escaped = pinned_text.replace('<', "&lt;").replace('>', "&gt;");
    assert!(
        second.contains(escaped.trim_end()),
        "the newly pinned resource, as Gemini CLI passes it"
    );
    assert_eq!(
        third.matches(CHANGED).count(),
        second.matches(CHANGED).count(),
        "turn 3, with nothing changed, adds nothing"
    );
}

/// Live delivery in opencode, over two turns of one interactive session (its TUI) after a
/// plain `mcpick install opencode`: opencode reads its `instructions` files again before every
/// model call (measured), so the file mcpick rewrites after a pin and an exclude is its
/// per-turn channel. Turn 2 carries the set as `preview --host opencode` shows it after the
/// change: the newly pinned resource verbatim, the excluded one gone; no hook is installed.
#[test]
fn opencode_gets_a_change_of_the_set_on_the_next_turn() {
    instructions_read_every_call_carry_a_change("opencode", "opencode", "Ask anything", |s| {
        s.opencode_env()
    });
}

/// Live delivery in pi 0.73.1, over three turns of its TUI after a plain `mcpick install pi`:
/// mcpick's extension puts the delivered file in the system prompt at the session's first
/// prompt and keeps it so; a pin and an exclude between turn 1 and turn 2 reach the model on
/// turn 2 as a message of its own (the new text verbatim, the withdrawal named), as `preview
/// --host pi --next-turn` predicted; turn 3, with nothing changed, adds nothing.
#[test]
fn pi_gets_a_change_of_the_set_on_the_next_turn() {
    a_loaders_session_gets_each_change_once("pi", "ctrl+c/ctrl+d clear/exit", |s| s.pi_env());
}

/// The same in Kilo CLI 7.7.7's TUI through mcpick's plugin (the change as a part of its own
/// in the prompt's user message).
#[test]
fn kilo_gets_a_change_of_the_set_on_the_next_turn() {
    a_loaders_session_gets_each_change_once("kilo", "Ask anything", |s| s.kilo_env());
}

/// Three turns of `host`'s TUI (ready when its screen shows `ready_at`) around a pin and an
/// exclude, the host's loader handing on the set at the start and each change once.
fn a_loaders_session_gets_each_change_once(
    host: &str,
    ready_at: &str,
    env_of: fn(&Stub) -> Vec<(&'static str, String)>,
) {
    let world = World::new();
    world.ok(&["exclude", "--demo", "demo://clock/*"]);
    let said = world.ok(&["install", host]);
    assert!(!said.contains("no per-turn channel"), "{said}");
    let (withdrawn, pinned) = world.a_change(host);
    let (withdrawn_text, pinned_text) = (world.read(&withdrawn), world.read(&pinned));
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    stub.headless(host, "", &world.home(), &world.project());
    let mut env = world.env();
    env.extend(env_of(&stub).into_iter().map(|(k, v)| (k.to_string(), v)));
    let tmux = Tmux::program(
        &world.project(),
        &env,
        &peers().join("node/node_modules/.bin").join(host),
    );
    // A turn's conversation request (it offers tools; a title request does not): its system
    // prompt, then its messages.
    let turn = |prompt: &str| {
        take_turn(&tmux, &stub, "anthropic", prompt, |r, prompt| {
            let (system, messages) = (text_of(&r["system"]), text_of(&r["messages"]));
            let tools = r["tools"].as_array().is_some_and(|t| !t.is_empty());
            (tools && messages.contains(prompt)).then(|| format!("{system}\u{1}{messages}"))
        })
        .map(|t| {
            let (system, messages) = t.split_once('\u{1}').unwrap();
            (system.to_string(), messages.to_string())
        })
    };
    let ready = tmux.wait(HOST_START, |s| s.contains(ready_at)).is_ok();
    let first = ready.then(|| turn("first turn please")).flatten();
    world.ok(&["pin", "--demo", &pinned]);
    world.ok(&["exclude", "--demo", &withdrawn]);
    let predicted = world.run(&["preview", "--host", host, "--next-turn"]);
    let second = first.as_ref().and_then(|_| turn("second turn please"));
    let third = second.as_ref().and_then(|_| turn("third turn please"));
    let shown = tmux.screen();
    drop(tmux);
    let first = first.unwrap_or_else(|| panic!("turn 1 never reached the model:\n{shown}"));
    let second = second.unwrap_or_else(|| panic!("turn 2 never reached the model:\n{shown}"));
    let third = third.unwrap_or_else(|| panic!("turn 3 never reached the model:\n{shown}"));
    const CHANGED: &str = "changed since your last turn";
    assert!(
        first.0.contains(withdrawn_text.trim_end()) && !first.0.contains(pinned_text.trim_end()),
        "turn 1's system prompt has the set as it was"
    );
    assert!(!first.1.contains(CHANGED), "nothing changed before turn 1");
    assert_eq!(
        second.0, first.0,
        "the system prompt stays as it was at the start"
    );
    let after = &second.1[second.1.find(CHANGED).expect("turn 2 says what changed")..];
    assert!(
        after.contains(pinned_text.trim_end()),
        "the newly pinned resource, verbatim:\n{after}"
    );
    assert!(
        after.contains("disregard what it said") && after.contains(&withdrawn),
        "the excluded one named as withdrawn:\n{after}"
    );
    assert_eq!(
        third.1.matches(CHANGED).count(),
        second.1.matches(CHANGED).count(),
        "turn 3, with nothing changed, adds nothing"
    );
    assert_eq!(exit_code(&predicted), 0, "{}", stderr(&predicted));
    assert!(
        stderr(&predicted).contains("next turn: +1 −1"),
        "{}",
        stderr(&predicted)
    );
    assert!(
        second.1.contains(stdout(&predicted).trim_end()),
        "what --next-turn predicted is what arrived:\n{}",
        stdout(&predicted)
    );
}

/// Two turns of `host`'s interactive session (`program`, ready when its screen shows
/// `ready_at`) around a pin and an exclude: turn 2 carries the set as `preview --next-turn`
/// predicted.
fn instructions_read_every_call_carry_a_change(
    host: &str,
    program: &str,
    ready_at: &str,
    env_of: fn(&Stub) -> Vec<(&'static str, String)>,
) {
    let world = World::new();
    world.ok(&["exclude", "--demo", "demo://clock/*"]);
    let said = world.ok(&["install", host]);
    assert!(!said.contains("hook"), "no hook for {host}: {said}");
    let (withdrawn, pinned) = world.a_change(host);
    let (withdrawn_text, pinned_text) = (world.read(&withdrawn), world.read(&pinned));

    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    // What the host needs in its home to reach the stub.
    stub.headless(host, "", &world.home(), &world.project());
    let mut env = world.env();
    env.extend(env_of(&stub).into_iter().map(|(k, v)| (k.to_string(), v)));
    let tmux = Tmux::program(
        &world.project(),
        &env,
        &peers().join("node/node_modules/.bin").join(program),
    );
    // The turn's conversation request (not its title request): the prompt, with the system
    // prompt that holds the instructions.
    let turn = |prompt: &str| {
        take_turn(&tmux, &stub, "anthropic", prompt, |r, prompt| {
            let text = text_of(&r["system"]) + &text_of(&r["messages"]);
            (text.contains(prompt) && text.contains("The context set")).then_some(text)
        })
    };
    let ready = tmux.wait(HOST_START, |s| s.contains(ready_at)).is_ok();
    let first = ready.then(|| turn("first turn please")).flatten();
    world.ok(&["pin", "--demo", &pinned]);
    world.ok(&["exclude", "--demo", &withdrawn]);
    let predicted = world.run(&["preview", "--host", host, "--next-turn"]);
    let promised = world.promised(host);
    let second = first.as_ref().and_then(|_| turn("second turn please"));
    let shown = tmux.screen();
    drop(tmux);
    let first = first.unwrap_or_else(|| panic!("turn 1 never reached the model:\n{shown}"));
    let second = second.unwrap_or_else(|| panic!("turn 2 never reached the model:\n{shown}"));

    assert!(
        first.contains(withdrawn_text.trim_end()),
        "turn 1 has the set as it was"
    );
    assert!(!first.contains(pinned_text.trim_end()));
    assert_eq!(exit_code(&predicted), 0, "{}", stderr(&predicted));
    assert!(
        stderr(&predicted).contains("reads")
            && stderr(&predicted).contains("before every model call"),
        "{}",
        stderr(&predicted)
    );
    assert!(
        stdout(&predicted).contains(pinned_text.trim_end()),
        "--next-turn shows the set the next turn gets"
    );
    assert_delivered(host, &promised, &second, &[withdrawn_text]);
    assert!(
        second.contains(pinned_text.trim_end()),
        "the newly pinned resource, verbatim"
    );
}

/// Codex's request of the turn whose prompt was exactly `prompt`: its whole text, and what
/// the per-turn hook added after the prompt (its bare developer message; empty when none).
fn codex_turn(stub: &Stub, prompt: &str) -> Option<(String, String)> {
    stub.requests("openai").into_iter().find_map(|r| {
        let input = r["input"].as_array()?;
        let text_of = |m: &Value| {
            let parts = m["content"].as_array().into_iter().flatten();
            let texts: Vec<&str> = parts.filter_map(|p| p["text"].as_str()).collect();
            texts.join("\n").trim_end().to_string()
        };
        let at = input
            .iter()
            .position(|m| m["role"] == "user" && text_of(m) == prompt)?;
        let hook = input[at + 1..]
            .iter()
            .filter(|m| m["role"] == "developer")
            .map(text_of)
            .collect::<Vec<_>>()
            .join("\n");
        let mut all = String::new();
        all_text(&r["input"], &mut all);
        Some((all, hook))
    })
}

/// The URIs a turn's text names as withdrawn.
fn withdrawn_in(text: &str) -> Vec<String> {
    let Some((_, rest)) = text.split_once("No longer part of the context set") else {
        return Vec::new();
    };
    rest.lines()
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        .filter_map(|l| l.rsplit(" · ").next())
        .map(|u| u.trim_end_matches(')').trim_matches('`').to_string())
        .collect()
}

/// Live delivery in Codex, over one interactive session in its TUI after a plain
/// `mcpick install codex` (its hooks trusted as Codex asks): what the 32 KiB session-start
/// file could not carry arrives on the first turns, so the model is handed the whole set;
/// a pin and an exclude then arrive on the next turn as `preview --next-turn` predicted, as
/// Codex's own developer message after the prompt, with the clock's text changed at its server;
/// only what the session was given is ever
/// named as withdrawn; a steady turn adds nothing.
#[test]
fn codex_gets_a_change_of_the_set_on_the_next_turn() {
    let world = World::new();
    // The clock's text changes at every read: a change at the server, read again by the pin.
    world.ok(&["pin", "--demo", "demo://clock/now"]);
    let project = world.project();
    assert!(
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(&project)
            .status()
            .unwrap()
            .success()
    );
    world.ok(&["install", "codex"]);
    let at_start = std::fs::read_to_string(project.join("AGENTS.override.md")).unwrap();
    let promised = world.promised("codex");
    let cut: Vec<String> = promised["leftOut"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["reason"] == "host limit")
        .map(|l| l["uri"].as_str().unwrap().to_string())
        .collect();
    assert!(!cut.is_empty(), "this set is larger than Codex's 32 KiB");
    let withdrawn = promised["included"].as_array().unwrap().last().unwrap()["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let pinned = promised["leftOut"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["reason"] == "over budget")
        .expect("a resource left out by the budget")["uri"]
        .as_str()
        .unwrap()
        .to_string();

    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let codex_home = world.home().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model_provider = \"stub\"\nmodel = \"gpt-5\"\napproval_policy = \"never\"\nsandbox_mode = \"read-only\"\n\
             [model_providers.stub]\nname = \"stub\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nenv_key = \"STUB_API_KEY\"\nwire_api = \"responses\"\n\
             [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            stub.port,
            project.display()
        ),
    )
    .unwrap();
    let mut env = world.env();
    env.push(("STUB_API_KEY".into(), "dummy".into()));
    let tmux = Tmux::program(
        &project,
        &env,
        &peers().join("node/node_modules/.bin/codex"),
    );
    // Codex asks the user to trust new hooks before they run: trusted, once the answer's own
    // text is drawn, and the question checked gone.
    let asked = common::model_stub::trust_codex_hooks(&tmux).is_ok();
    let ready = asked
        && tmux
            .wait(HOST_START, |s| s.contains("Ask Codex to do anything"))
            .is_ok();
    let mut n = 0;
    let mut turn = |tmux: &Tmux| -> Option<(String, String)> {
        n += 1;
        let prompt = format!("turn {n} please");
        submit(tmux, &prompt);
        let started = std::time::Instant::now();
        let mut pressed_again = false;
        while started.elapsed() < Duration::from_secs(120) {
            if let Some(found) = codex_turn(&stub, &prompt) {
                return Some(found);
            }
            // A busy Codex may drop the Enter: once, if the prompt still waits in its input.
            if !pressed_again
                && started.elapsed() > Duration::from_secs(20)
                && still_typed(&tmux.screen(), &prompt)
            {
                tmux.keys(&["Enter"]);
                pressed_again = true;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        None
    };
    // Turns until one adds nothing: what session start could not carry comes first.
    let mut before = Vec::new();
    let mut first_request = None;
    while ready && before.len() < 4 {
        let Some((all, hook)) = turn(&tmux) else {
            break;
        };
        first_request.get_or_insert(all);
        if hook.is_empty() {
            break;
        }
        before.push(hook);
    }
    world.ok(&["pin", "--demo", &pinned]);
    world.ok(&["exclude", "--demo", &withdrawn]);
    let predicted = world.run(&["preview", "--host", "codex", "--next-turn"]);
    let changed = first_request.as_ref().and_then(|_| turn(&tmux));
    let mut after = Vec::new();
    while changed.is_some() && after.len() < 4 {
        let Some((_, hook)) = turn(&tmux) else {
            break;
        };
        let steady = hook.is_empty();
        after.push(hook);
        if steady {
            break;
        }
    }
    let shown = tmux.screen();
    drop(tmux);
    assert!(
        asked,
        "Codex never asked to trust the hooks install wrote:\n{shown}"
    );
    let first_request =
        first_request.unwrap_or_else(|| panic!("turn 1 never reached the model:\n{shown}"));
    let (_, changed) = changed.unwrap_or_else(|| panic!("the change's turn never came:\n{shown}"));
    assert!(
        first_request.contains(at_start.trim_end()),
        "the session-start file reached the model whole"
    );
    assert!(
        !before.is_empty() && before.len() < 4,
        "the first turns carry what session start could not, then nothing: {before:#?}"
    );
    let handed = format!("{at_start}\n{}", before.join("\n"));
    for uri in &cut {
        let text = world.read(uri);
        assert!(
            !at_start.contains(text.trim_end()),
            "{uri} was cut at start"
        );
        assert!(
            handed.contains(text.trim_end()),
            "{uri}, cut at session start, reached the model on a turn"
        );
    }

    let told = stderr(&predicted);
    assert!(told.contains("next turn: +1 −"), "{told}");
    // The clock may be read again between the two (`mcpick serve`, running in Codex, writes
    // the delivery again when it sees the set change): its time aside, the same text.
    let untimed = |text: &str| {
        let lines = text.trim_end().lines();
        let lines = lines.map(|l| {
            if l.starts_with("time: ") {
                "time: …"
            } else {
                l
            }
        });
        lines.collect::<Vec<_>>().join("\n")
    };
    assert_eq!(
        untimed(&changed),
        untimed(&stdout(&predicted)),
        "what --next-turn predicted is what arrived, after the prompt"
    );
    // The exclude, and what the pin pushed over the budget: each one the model was handed.
    let gone = withdrawn_in(&changed);
    assert!(gone.contains(&withdrawn), "{changed}");
    for uri in &gone {
        assert!(
            handed.contains(world.read(uri).trim_end()),
            "{uri} named as withdrawn, but the session was never given it"
        );
    }
    assert!(changed.contains("disregard what it said"));
    let time = |text: &str| {
        let at = text
            .find("uri: demo://clock/now")
            .expect("the clock's text");
        text[at..].lines().nth(1).unwrap().to_string()
    };
    assert!(
        changed.contains("changed at its server; this replaces what it said before"),
        "{changed}"
    );
    assert_ne!(time(&changed), time(&at_start), "the clock's new text");
    assert!(
        changed.contains(world.read(&pinned).trim_end()),
        "the newly pinned resource, verbatim"
    );
    for text in before.iter().chain(&after) {
        assert!(
            withdrawn_in(text).is_empty(),
            "nothing else withdrawn: {text}"
        );
    }
    assert!(
        after.last().is_some_and(String::is_empty),
        "a steady turn adds nothing: {after:#?}"
    );
}

/// Qwen Code, two turns of one session (`qwen` then `qwen --continue`, headless) with install's
/// `UserPromptSubmit` hook: turn 2 gets the pin and the exclude made in between, in
/// `<qwen:user-prompt-submit-context>` with `<` `>` escaped, exactly as `--next-turn`
/// predicted; turn 1 gets nothing of it.
#[test]
fn qwen_code_gets_a_change_of_the_set_on_the_next_turn() {
    let world = World::new();
    world.ok(&["exclude", "--demo", "demo://clock/*"]);
    let qwen = world.home().join(".qwen");
    std::fs::create_dir_all(&qwen).unwrap();
    std::fs::write(
        qwen.join("settings.json"),
        r#"{"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}"#,
    )
    .unwrap();
    world.ok(&["install", "qwen-code"]);
    let (withdrawn, pinned) = world.a_change("qwen-code");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let turn = |args: &[&str], prompt: &str| -> String {
        let before = stub.requests("anthropic").len();
        let mut all: Vec<&str> = vec!["--auth-type", "anthropic", "-o", "json"];
        all.extend(args);
        all.push(prompt);
        let out = world.host(&stub, "qwen", &all, &stub.qwen_env());
        let requests = stub.requests("anthropic");
        let request = requests
            .get(before)
            .unwrap_or_else(|| panic!("{prompt}: no model request: {out}"));
        let mut text = String::new();
        all_text(&request["messages"], &mut text);
        assert!(text.contains(prompt), "{prompt}: {out}");
        text
    };
    const CHANGED: &str = "changed since your last turn";
    let first = turn(&[], "first turn please");
    assert!(!first.contains(CHANGED), "nothing changed before turn 1");
    world.ok(&["pin", "--demo", &pinned]);
    world.ok(&["exclude", "--demo", &withdrawn]);
    let predicted = world.run(&["preview", "--host", "qwen-code", "--next-turn"]);
    let second = turn(&["--continue"], "second turn please");
    let told = stderr(&predicted);
    assert!(told.contains("next turn: +1 −1"), "{told}");
    let predicted = stdout(&predicted);
    assert!(
        predicted.starts_with("<qwen:user-prompt-submit-context>"),
        "{predicted}"
    );
    assert!(
        second.contains(predicted.trim_end()),
        "what --next-turn predicted (escaped as Qwen Code escapes) is what arrived:\n{predicted}"
    );
    assert!(second.contains(&withdrawn) && second.contains("disregard what it said"));
    let escaped = world
        .read(&pinned)
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    assert!(
        second.contains(escaped.trim_end()),
        "the newly pinned resource, as Qwen Code passes it"
    );
}

/// Copilot CLI, two turns of one session (`copilot -p`, then `copilot --continue -p`) with
/// install's `UserPromptSubmit` hook in `~/.copilot/hooks/`: turn 2 gets the pin and the exclude
/// made in between, raw in `<system_reminder>`, exactly as `--next-turn` predicted.
#[test]
fn copilot_cli_gets_a_change_of_the_set_on_the_next_turn() {
    let world = World::new();
    world.ok(&["exclude", "--demo", "demo://clock/*"]);
    let before = world.files();
    world.ok(&["install", "copilot-cli"]);
    assert!(world.home().join(".copilot/hooks/mcpick.json").exists());
    let (withdrawn, pinned) = world.a_change("copilot-cli");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    let turn = |args: &[&str], prompt: &str| -> String {
        let before = stub.requests("anthropic").len();
        let mut all: Vec<&str> = args.to_vec();
        all.extend([
            "-p",
            prompt,
            "--output-format",
            "json",
            "--no-auto-update",
            "--no-ask-user",
        ]);
        let out = world.host(&stub, "copilot", &all, &stub.copilot_env());
        let requests = stub.requests("anthropic");
        let request = requests
            .get(before)
            .unwrap_or_else(|| panic!("{prompt}: no model request: {out}"));
        let mut text = String::new();
        all_text(&request["messages"], &mut text);
        assert!(text.contains(prompt), "{prompt}: {out}");
        text
    };
    const CHANGED: &str = "changed since your last turn";
    let first = turn(&[], "first turn please");
    assert!(!first.contains(CHANGED), "nothing changed before turn 1");
    world.ok(&["pin", "--demo", &pinned]);
    world.ok(&["exclude", "--demo", &withdrawn]);
    let predicted = world.run(&["preview", "--host", "copilot-cli", "--next-turn"]);
    let second = turn(&["--continue"], "second turn please");
    let told = stderr(&predicted);
    assert!(told.contains("next turn: +1 −1"), "{told}");
    let predicted = stdout(&predicted);
    assert!(predicted.starts_with("<system_reminder>"), "{predicted}");
    assert!(
        second.contains(predicted.trim_end()),
        "what --next-turn predicted is what arrived:\n{predicted}"
    );
    assert!(second.contains(&withdrawn) && second.contains("disregard what it said"));
    assert!(
        second.contains(world.read(&pinned).trim_end()),
        "the pinned one, raw"
    );
    world.ok(&["uninstall", "copilot-cli"]);
    // The set file holds the test's own pin and exclude; everything else is as it was.
    let mut after = world.files();
    let set = world.project().join("mcpick.context.json");
    after.insert(set.clone(), before[&set].clone());
    assert_same_files(&before, &after);
}
