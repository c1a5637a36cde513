//! Skills, against a real third-party skills server and a real host: FastMCP 4.1.6's own
//! `SkillsDirectoryProvider` (`tests/peers/skills_server.py`, pinned in
//! `tests/peers/fastmcp/requirements.txt`) over a folder of two skills with supporting files
//! (one binary), and Claude Code (`claude -p`, pinned in `tests/peers/node`) pointed at the
//! recording stub of its model API. A set pins one skill and excludes the other; a plain
//! `mcpick install claude-code` must leave the pinned skill's files byte for byte under
//! `.claude/skills/`, nothing of the excluded one; the model's first request must name the
//! pinned skill by its description without its body; a file that does not match the
//! server's manifest is refused; `uninstall` leaves every file as it was.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::model_stub::{Stub, all_text};
use common::*;
use serde_json::Value;

/// What the test skills say, to look for in the model's request.
const PINNED_DESCRIPTION: &str = "skill-desc-7c1e";
const PINNED_BODY: &str = "skill-body-93ad";
const EXCLUDED_DESCRIPTION: &str = "skill-desc-excluded-4b2f";
const EXCLUDED_BODY: &str = "skill-body-excluded-51d0";

/// A project, a home, and a folder of skills served by FastMCP, one pinned and one excluded.
struct World {
    dir: tempfile::TempDir,
    upstream: Vec<String>,
    /// One world at a time (see [`ONE_AT_A_TIME`]).
    _turn: std::sync::MutexGuard<'static, ()>,
}

/// The tests of this file run one after the other: FastMCP takes seconds to start, and several
/// of them with hosts on two cores made it answer `server/discover` past mcpick's 10 s probe
/// wait and then refuse the fallback `initialize` (it had settled on 2026-07-28).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl World {
    /// `server_flags` go to the skills server (`--tamper NAME/PATH`, `--supporting resources`).
    fn new(server_flags: &[&str]) -> World {
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("skills-root");
        copy_dir(&repo_root().join("tests/peers/skills"), &root);
        // A binary supporting file: served as a blob, written back byte for byte.
        std::fs::write(
            root.join("pdf-forms/logo.bin"),
            (0..=255u8).collect::<Vec<u8>>(),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let mut upstream: Vec<String> = vec![
            "--name".into(),
            "skills".into(),
            "--".into(),
            peers()
                .join("fastmcp/bin/python")
                .to_string_lossy()
                .into_owned(),
            repo_root()
                .join("tests/peers/skills_server.py")
                .to_string_lossy()
                .into_owned(),
            root.to_string_lossy().into_owned(),
        ];
        upstream.extend(server_flags.iter().map(|s| s.to_string()));
        let world = World {
            dir,
            upstream,
            _turn: turn,
        };
        world.mark("pin", "skill://pdf-forms");
        world.mark("exclude", "skill://release-notes/SKILL.md");
        world
    }

    fn mark(&self, mark: &str, target: &str) -> String {
        let up: Vec<&str> = self.upstream.iter().map(String::as_str).collect();
        self.ok(&[&[mark, target][..], &up].concat())
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("skills-root")
    }

    fn project(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path().join("project")).unwrap()
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn env(&self) -> Vec<(String, String)> {
        let home = self.home();
        let bin = Path::new(mcpick_bin()).parent().unwrap();
        vec![
            ("HOME".into(), home.display().to_string()),
            (
                "XDG_CONFIG_HOME".into(),
                home.join(".config").display().to_string(),
            ),
            (
                "PATH".into(),
                format!(
                    "{}:{}",
                    bin.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            ),
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

    /// Every file in the project and home (the host's own state left out).
    fn files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        walk(&self.project(), &mut out, true);
        walk(&self.home(), &mut out, true);
        out
    }

    /// `host` run once in the project against the recording stub (`claude -p`, `gemini -p`,
    /// `codex exec`): every string of every model request it sent (system prompt, tools,
    /// messages).
    fn first_requests(&self, host: &str) -> String {
        let stub_dir = tempfile::tempdir().unwrap();
        let stub = Stub::start(stub_dir.path());
        let (program, args, env, api): (&str, &[&str], Vec<(&str, String)>, &str) = match host {
            "claude-code" => (
                "claude",
                &["-p", "hello", "--output-format", "json"],
                stub.claude_env(),
                "anthropic",
            ),
            "gemini" => {
                std::fs::create_dir_all(self.home().join(".gemini")).unwrap();
                std::fs::write(
                    self.home().join(".gemini/settings.json"),
                    r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
                )
                .unwrap();
                (
                    "gemini",
                    &["-p", "hello", "--output-format", "json"],
                    stub.gemini_env(),
                    "gemini",
                )
            }
            _ => {
                let codex_home = self.home().join(".codex");
                std::fs::create_dir_all(&codex_home).unwrap();
                std::fs::write(
                    codex_home.join("config.toml"),
                    format!(
                        "model_provider = \"stub\"\nmodel = \"gpt-5\"\napproval_policy = \"never\"\nsandbox_mode = \"read-only\"\n\
                         [model_providers.stub]\nname = \"stub\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nenv_key = \"STUB_API_KEY\"\nwire_api = \"responses\"\n\
                         [projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                        stub.port,
                        self.project().display()
                    ),
                )
                .unwrap();
                (
                    "codex",
                    &["exec", "--skip-git-repo-check", "hello"],
                    vec![
                        ("STUB_API_KEY", "dummy".into()),
                        ("CODEX_HOME", codex_home.display().to_string()),
                    ],
                    "openai",
                )
            }
        };
        let bin = peers().join("node/node_modules/.bin").join(program);
        let mut command = Command::new(&bin);
        command
            .args(args)
            .current_dir(self.project())
            .stdin(Stdio::null())
            .env_clear()
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb");
        for (k, v) in self.env() {
            command.env(k, v);
        }
        for (k, v) in env {
            command.env(k, v);
        }
        let out = run_with_timeout(command, Duration::from_secs(120));
        let requests = stub.requests(api);
        assert!(
            !requests.is_empty(),
            "{host} sent no model request: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let mut text = String::new();
        for r in &requests {
            all_text(r, &mut text);
        }
        text
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Files under `dir` by path; `skip_host_state`: the hosts' own state in a home is theirs.
fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>, skip_host_state: bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if skip_host_state
            && dir.ends_with("home")
            && matches!(
                name.as_str(),
                ".claude"
                    | ".claude.json"
                    | ".gemini"
                    | ".codex"
                    | ".cache"
                    | ".config"
                    | ".npm"
                    | ".local"
            )
        {
            continue;
        }
        if path.is_dir() {
            walk(&path, out, skip_host_state);
        } else {
            let bytes = std::fs::read(&path).unwrap_or_default();
            out.insert(path, bytes);
        }
    }
}

/// The files of folder `dir`, by path relative to it.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut all = BTreeMap::new();
    walk(dir, &mut all, false);
    all.into_iter()
        .map(|(p, b)| (p.strip_prefix(dir).unwrap().to_path_buf(), b))
        .collect()
}

fn assert_same_files(before: &BTreeMap<PathBuf, Vec<u8>>, after: &BTreeMap<PathBuf, Vec<u8>>) {
    let differ: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        differ.is_empty(),
        "uninstall did not leave the files as they were: {differ:#?}"
    );
}

/// The Done-when path, for `host`: pinned skill written byte for byte into the host's skills
/// folder `folder`, not inlined in `delivered` (the session-start text), named in the host's
/// model request by its description (`listed`: the host's own line for it) without its body;
/// the excluded one nowhere; uninstall exact.
fn a_pinned_skill_reaches(host: &str, folder: &str, delivered: &str, listed: &str) {
    let world = World::new(&[]);
    if host == "codex" {
        // Codex reads the project's `.codex/` in a git repository.
        std::fs::create_dir_all(world.project().join(".git")).unwrap();
    }
    let before = world.files();
    let said = world.ok(&["install", host]);
    assert!(said.contains("as a skill: pdf-forms"), "{said}");

    let written = world.project().join(folder);
    let pinned = tree(&world.root().join("pdf-forms"));
    assert_eq!(
        pinned.len(),
        4,
        "SKILL.md, reference.md, scripts/fill.py, logo.bin"
    );
    assert_eq!(tree(&written.join("pdf-forms")), pinned, "byte for byte");
    assert!(!written.join("release-notes").exists());
    let names: Vec<String> = std::fs::read_dir(&written)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["pdf-forms"], "nothing else in the skills folder");

    // Not also inlined in the session-start text, and `preview --host` says "as a skill".
    let text = std::fs::read_to_string(world.project().join(delivered)).unwrap();
    for absent in [PINNED_BODY, EXCLUDED_DESCRIPTION, EXCLUDED_BODY] {
        assert!(!text.contains(absent), "{absent} inlined: {text}");
    }
    let out = world.run(&["preview", "--host", host, "--format", "json"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("as a skill: pdf-forms"),
        "{}",
        stderr(&out)
    );
    let promised: Value = serde_json::from_slice(&out.stdout).unwrap();
    let inlined: Vec<&str> = promised["included"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["uri"].as_str())
        .filter(|u| u.starts_with("skill://"))
        .collect();
    assert!(inlined.is_empty(), "{inlined:?}");
    let list = world.ok(&["install", "--list"]);
    assert!(
        list.contains(&format!("skill {}", written.join("pdf-forms").display())),
        "{list}"
    );

    let request = world.first_requests(host);
    assert!(
        request.contains(listed),
        "{host}: the pinned skill is listed as a skill, by its description"
    );
    for absent in [PINNED_BODY, EXCLUDED_DESCRIPTION, EXCLUDED_BODY] {
        assert!(
            !request.contains(absent),
            "{host}: {absent} reached the model's request"
        );
    }

    world.ok(&["uninstall", host]);
    assert!(!written.join("pdf-forms").exists());
    assert_same_files(&before, &world.files());
}

/// Claude Code 2.1.328: "The following skills are available for use with the Skill tool:",
/// then "- NAME: DESCRIPTION" per skill.
#[test]
fn a_pinned_skill_reaches_claude_code_as_a_skill_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "claude-code",
        ".claude/skills",
        ".mcpick/mcpick.claude-code.md",
        &format!("- pdf-forms: Fill in PDF forms field by field ({PINNED_DESCRIPTION})"),
    );
}

/// Gemini CLI 0.61.0 (trusted folder): `<available_skills>`, each `<skill><name>…` with its
/// `<description>`.
#[test]
fn a_pinned_skill_reaches_gemini_cli_as_a_skill_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "gemini",
        ".gemini/skills",
        ".mcpick/mcpick.gemini.md",
        &format!(
            "<name>pdf-forms</name>\n    <description>Fill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
    );
}

/// Codex 0.171.0: "- NAME: DESCRIPTION (file: rN/NAME/SKILL.md)" under its skills list.
#[test]
fn a_pinned_skill_reaches_codex_as_a_skill_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "codex",
        ".codex/skills",
        "AGENTS.override.md",
        &format!("- pdf-forms: Fill in PDF forms field by field ({PINNED_DESCRIPTION})"),
    );
}

/// A file the server serves that does not match its own manifest: the skill is refused with
/// a message naming the file, nothing of it is written, and install says it failed.
#[test]
fn a_skill_whose_file_does_not_match_its_manifest_is_refused_whole() {
    let world = World::new(&["--tamper", "pdf-forms/reference.md"]);
    let out = world.run(&["install", "claude-code"]);
    assert_eq!(exit_code(&out), 1, "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("skill `pdf-forms`")
            && err.contains("refused")
            && err.contains("reference.md")
            && err.contains("manifest"),
        "{err}"
    );
    assert!(!world.project().join(".claude/skills").exists());
    let delivered =
        std::fs::read_to_string(world.project().join(".mcpick/mcpick.claude-code.md")).unwrap();
    assert!(!delivered.contains(PINNED_BODY), "not inlined either");
}

/// A skill changed on the server is written again on the next delivery; excluded, it is
/// taken back; supporting files listed as resources (not through a template) work the same.
#[test]
fn a_skill_is_kept_fresh_and_taken_back_when_excluded() {
    kept_fresh_and_taken_back(&["--supporting", "resources"]);
}

/// A server that also declares the MCP Skills extension (FastMCP's `SkillsExtension`, live
/// byte-preserving reads) still lists its skills as `skill://` resources with manifests:
/// mcpick hands them on the same way.
#[test]
fn a_server_with_the_skills_extension_hands_on_the_same() {
    kept_fresh_and_taken_back(&["--extension"]);
}

fn kept_fresh_and_taken_back(server_flags: &[&str]) {
    let world = World::new(server_flags);
    // In a git repository the skill folder is kept out of git, as delivered contents are.
    std::fs::create_dir_all(world.project().join(".git/info")).unwrap();
    world.ok(&["install", "claude-code"]);
    let written = world.project().join(".claude/skills/pdf-forms");
    assert_eq!(tree(&written), tree(&world.root().join("pdf-forms")));
    let exclude = world.project().join(".git/info/exclude");
    assert_eq!(
        std::fs::read_to_string(&exclude).unwrap(),
        "/.claude/skills/pdf-forms/\n"
    );
    std::fs::write(
        world.root().join("pdf-forms/reference.md"),
        "# Field names, second edition\n",
    )
    .unwrap();
    world.ok(&["deliver"]);
    assert_eq!(
        std::fs::read_to_string(written.join("reference.md")).unwrap(),
        "# Field names, second edition\n"
    );
    assert_eq!(tree(&written), tree(&world.root().join("pdf-forms")));
    world.mark("exclude", "skill://pdf-forms");
    assert!(!written.exists(), "excluded: taken back");
    assert!(
        !exclude.exists(),
        "its git exclude line too (the file was made for it)"
    );
}

/// `ls` and `ls --json` mark a skill's files with the skill they belong to.
#[test]
fn ls_marks_the_files_of_each_skill() {
    let world = World::new(&[]);
    let up: Vec<&str> = world.upstream.iter().map(String::as_str).collect();
    let doc: Value =
        serde_json::from_str(&world.ok(&[&["ls", "--json"][..], &up].concat())).unwrap();
    let marked: Vec<(&str, &str)> = doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["uri"].as_str().unwrap(),
                r["skill"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        marked,
        [
            ("skill://pdf-forms/SKILL.md", "pdf-forms"),
            ("skill://pdf-forms/_manifest", "pdf-forms"),
            ("skill://release-notes/SKILL.md", "release-notes"),
            ("skill://release-notes/_manifest", "release-notes"),
        ]
    );
    let table = world.ok(&[&["ls"][..], &up].concat());
    assert!(table.contains("skill pdf-forms: SKILL.md"), "{table}");
}

/// `check` reads each listed skill whole: FastMCP's own manifests pass; a file changed under
/// its manifest fails `skills.manifest`, naming the file.
#[test]
fn check_reports_a_manifest_that_does_not_match_the_files_read() {
    for (flags, verdict) in [
        (&[][..], "pass"),
        (&["--tamper", "pdf-forms/scripts/fill.py"][..], "fail"),
    ] {
        let world = World::new(flags);
        let up: Vec<&str> = world.upstream.iter().map(String::as_str).collect();
        let out = world.run(&[&["check", "--json"][..], &up].concat());
        let doc: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
        let finding = doc["servers"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "skills.manifest")
            .unwrap_or_else(|| panic!("{doc:#}"))
            .clone();
        assert_eq!(finding["verdict"], verdict, "{finding:#}");
        if verdict == "fail" {
            assert!(
                finding["evidence"].to_string().contains("scripts/fill.py"),
                "{finding:#}"
            );
        }
    }
}

/// A skill with one file excluded by hand (`--exact`) is not handed on whole: nothing goes to
/// the skills folder, and its other files travel as resources.
#[test]
fn a_skill_with_an_excluded_file_travels_as_resources() {
    let world = World::new(&["--supporting", "resources"]);
    let up: Vec<&str> = world.upstream.iter().map(String::as_str).collect();
    world.ok(&[
        &["exclude", "--exact", "skill://pdf-forms/reference.md"][..],
        &up,
    ]
    .concat());
    world.ok(&["install", "claude-code"]);
    assert!(!world.project().join(".claude/skills/pdf-forms").exists());
    let text =
        std::fs::read_to_string(world.project().join(".mcpick/mcpick.claude-code.md")).unwrap();
    assert!(text.contains(PINNED_BODY), "SKILL.md inline, as a resource");
    assert!(!text.contains("# Field names"), "the excluded file nowhere");
}
