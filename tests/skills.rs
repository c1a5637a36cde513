//! Skills, against a real third-party skills server and a real host: FastMCP 4.2.3's own
//! skills providers (`tests/peers/skills_server.py`, pinned in
//! `tests/peers/fastmcp/requirements.txt`: 4.1's resource-only `SkillsDirectoryProvider`,
//! deprecated in 4.2, by default; 4.2's, which serves the MCP Skills extension, with
//! `--extension`) over a folder of two skills with supporting files
//! (one binary), and Claude Code (`claude -p`, pinned in `tests/peers/node`) pointed at the
//! recording stub of its model API. A set pins one skill and excludes the other; a plain
//! `mcpick install claude-code` must leave the pinned skill's files byte for byte under
//! `.claude/skills/`, nothing of the excluded one; the model's first request must name the
//! pinned skill by its description without its body; a file that does not match the
//! server's manifest is refused; `uninstall` leaves every file as it was.

mod common;

use std::path::{Path, PathBuf};

use common::model_stub::{
    QWEN_SETTINGS, Stub, all_text, claude_tui, end_cline_hub, run_host, take_turn, text_of,
};
use common::snapshot::{Files, assert_same_files, files, tree};
use common::*;
use serde_json::Value;

/// Copilot CLI's question in a folder it has not seen.
const COPILOT_TRUST: &str = "Do you trust the files in this folder?";

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

/// The daemons a host left running for this test go with it.
impl Drop for World {
    fn drop(&mut self) {
        end_processes_under(self.dir.path());
    }
}

impl World {
    /// `server_flags` go to the skills server (`--tamper NAME/PATH`, `--supporting resources`).
    fn new(server_flags: &[&str]) -> World {
        World::serving(|root| {
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
            upstream
        })
    }

    /// The skills served by the server `upstream` names (given the skills' folder), one
    /// skill pinned and the other excluded.
    fn serving(upstream: impl FnOnce(&Path) -> Vec<String>) -> World {
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
        let upstream = upstream(&root);
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
    fn files(&self) -> Files {
        files(&[self.project(), self.home()])
    }

    /// `path` in the project, or in the home when it starts `~/`.
    fn at(&self, path: &str) -> PathBuf {
        match path.strip_prefix("~/") {
            Some(rest) => self.home().join(rest),
            None => self.project().join(path),
        }
    }

    /// `host` run once in the project against the recording stub (`claude -p`, `gemini -p`,
    /// `codex exec`, `opencode run`, `copilot -p`, `qwen`): every string of every model
    /// request it sent (system prompt, tools, messages).
    fn first_requests(&self, host: &str) -> String {
        self.requests(host).concat()
    }

    /// [`World::first_requests`], one text per request.
    fn requests(&self, host: &str) -> Vec<String> {
        let stub_dir = tempfile::tempdir().unwrap();
        let stub = Stub::start(stub_dir.path());
        let run = stub.headless(host, "hello", &self.home(), &self.project());
        let args: Vec<&str> = run.args.iter().map(String::as_str).collect();
        let out = run_host(run.program, &args, &self.project(), &self.env(), &run.env);
        end_cline_hub(&self.project());
        let requests = stub.requests(run.api);
        assert!(!requests.is_empty(), "{host} sent no model request: {out}");
        requests
            .iter()
            .map(|r| {
                let mut text = String::new();
                all_text(r, &mut text);
                text
            })
            .collect()
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

/// The Done-when path, for `host`: pinned skill written byte for byte into the host's skills
/// folder `folder`, not inlined in `delivered` (the session-start text; both in the project,
/// or in the home when they start `~/`), named in the host's model request by its
/// description (`listed`: the host's own line for it) without its body; the excluded one
/// nowhere; uninstall exact.
fn a_pinned_skill_reaches(host: &str, folder: &str, delivered: &str, listed: &str) {
    let world = World::new(&[]);
    if host == "codex" {
        // Codex reads the project's `.codex/` in a git repository.
        std::fs::create_dir_all(world.project().join(".git")).unwrap();
    }
    if host == "qwen-code" {
        // The user's own settings, there before install (Qwen Code reports usage otherwise).
        std::fs::create_dir_all(world.home().join(".qwen")).unwrap();
        std::fs::write(world.home().join(".qwen/settings.json"), QWEN_SETTINGS).unwrap();
    }
    let before = world.files();
    let said = world.ok(&["install", host]);
    assert!(said.contains("as a skill: pdf-forms"), "{said}");
    let names_only = said.contains("lists skills by name only");
    assert_eq!(names_only, host == "cline", "{said}");

    let written = world.at(folder);
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
    let text = std::fs::read_to_string(world.at(delivered)).unwrap();
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
        "{host}: the pinned skill is listed as a skill, by its description: {}",
        around(&request, PINNED_DESCRIPTION)
    );
    for absent in [PINNED_BODY, EXCLUDED_DESCRIPTION, EXCLUDED_BODY] {
        assert!(
            !request.contains(absent),
            "{host}: {absent} reached the model's request"
        );
    }
    assert_eq!(
        request.contains(PINNED_DESCRIPTION),
        !names_only,
        "{host}: the description reaches the model unless the host lists names only"
    );

    world.ok(&["uninstall", host]);
    assert!(!written.join("pdf-forms").exists());
    assert_same_files(&before, &world.files());
}

/// The text around the first `marker` in `text`, for a failure message.
fn around(text: &str, marker: &str) -> String {
    let Some(at) = text.find(marker) else {
        return format!("({marker} is nowhere)");
    };
    let before: String = text[..at].chars().rev().take(300).collect();
    let after: String = text[at..].chars().take(200).collect();
    format!("{:?}", before.chars().rev().collect::<String>() + &after)
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

/// opencode 1.18.33: `.opencode/skills/`, listed in `<available_skills>` with `<name>` and
/// `<description>` per skill.
#[test]
fn a_pinned_skill_reaches_opencode_as_a_skill_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "opencode",
        ".opencode/skills",
        ".mcpick/mcpick.opencode.md",
        &format!(
            "<name>pdf-forms</name>\n    <description>Fill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
    );
}

/// Kilo CLI 7.7.7: `.agents/skills/`, listed as opencode lists them.
#[test]
fn a_pinned_skill_reaches_kilo_as_a_skill_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "kilo",
        ".agents/skills",
        ".mcpick/mcpick.kilo.md",
        &format!(
            "<name>pdf-forms</name>\n    <description>Fill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
    );
}

/// pi 0.73.1: `.pi/skills/`, listed with its name, description and location.
#[test]
fn a_pinned_skill_reaches_pi_as_a_skill_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "pi",
        ".pi/skills",
        ".mcpick/mcpick.pi.md",
        &format!(
            "<name>pdf-forms</name>\n    <description>Fill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
    );
}

/// Cline CLI 3.0.65: `.cline/skills/`, named in its `skill` tool's description without the
/// skill's description (names only, which `install` and `preview --host` say).
#[test]
fn a_pinned_skill_reaches_cline_by_name_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "cline",
        ".cline/skills",
        ".clinerules/mcpick.md",
        "Available skills: pdf-forms.",
    );
}

/// GitHub Copilot CLI 1.0.102 (its install is the user's): `~/.copilot/skills/`, listed in
/// `<available_skills>`, each with its `<location>` (`user`).
#[test]
fn a_pinned_skill_reaches_copilot_cli_as_a_skill_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "copilot-cli",
        "~/.copilot/skills",
        "~/.copilot/mcpick/mcpick.copilot-cli.md",
        &format!(
            "<name>pdf-forms</name>\n  <description>Fill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
    );
}

/// Qwen Code 0.24.4: `.qwen/skills/`, listed in `<available_skills>`, each tag on lines of its
/// own, the description ending with where the skill is from (`(project)`).
#[test]
fn a_pinned_skill_reaches_qwen_code_as_a_skill_and_an_excluded_one_nowhere() {
    a_pinned_skill_reaches(
        "qwen-code",
        ".qwen/skills",
        ".mcpick/mcpick.qwen-code.md",
        &format!(
            "<name>\npdf-forms\n</name>\n<description>\nFill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
    );
}

/// opencode and Copilot CLI also read a project's `.claude/skills/`: with Claude Code's
/// delivery installed beside theirs (in either order), each still lists the pinned skill
/// once (they list a skill by name once, measured here), `preview --host` names both folders,
/// and uninstalling both leaves the files as they were.
#[test]
fn a_host_that_reads_claude_codes_skills_too_lists_a_skill_once() {
    for (first, then) in [("opencode", "claude-code"), ("claude-code", "copilot-cli")] {
        let world = World::new(&[]);
        let before = world.files();
        world.ok(&["install", first]);
        let out = world.run(&["install", then]);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        let host = if first == "claude-code" { then } else { first };
        let claude = world.project().join(".claude/skills/pdf-forms");
        assert_eq!(tree(&claude), tree(&world.root().join("pdf-forms")));
        let shown = world.run(&["preview", "--host", host, "--format", "json"]);
        let told = stderr(&shown);
        assert!(
            told.contains(&format!("{host} lists the set's skills from"))
                && told.contains(".claude/skills (the claude-code delivery)"),
            "{told}"
        );
        if host == "opencode" {
            // Its own folder too, installed first.
            let own = world.project().join(".opencode/skills/pdf-forms");
            assert_eq!(tree(&own), tree(&world.root().join("pdf-forms")));
            assert!(told.contains("listed once"), "{told}");
        } else {
            // Copilot CLI picks up Claude Code's delivery whole: no folder of its own.
            assert!(!world.home().join(".copilot/skills").exists());
        }
        let requests = world.requests(host);
        let listed: Vec<usize> = requests
            .iter()
            .map(|r| r.matches(PINNED_DESCRIPTION).count())
            .collect();
        assert!(
            listed.contains(&1) && listed.iter().all(|&n| n <= 1),
            "{host}: the pinned skill is listed once in a request, listed {listed:?}: {}",
            around(&requests.concat(), PINNED_DESCRIPTION)
        );
        let all = requests.concat();
        for absent in [PINNED_BODY, EXCLUDED_DESCRIPTION, EXCLUDED_BODY] {
            assert!(!all.contains(absent), "{host}: {absent} reached the model");
        }
        world.ok(&["uninstall", then]);
        world.ok(&["uninstall", first]);
        assert_same_files(&before, &world.files());
    }
}

/// Copilot CLI picks up Gemini CLI's project delivery (it reads `GEMINI.md`) but not its
/// skills folder: `install` and `preview --host` say that the set's skills do not reach it.
#[test]
fn a_host_that_picks_up_a_delivery_without_its_skills_is_told_so() {
    let world = World::new(&[]);
    world.ok(&["install", "gemini"]);
    let out = world.run(&["install", "copilot-cli"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("its skills go to .gemini/skills, which GitHub Copilot CLI does not read"),
        "{}",
        stderr(&out)
    );
    let shown = world.run(&["preview", "--host", "copilot-cli"]);
    assert!(
        stderr(&shown).contains("warning: none of the installed deliveries copilot-cli picks up wrote the set's skills into a folder it reads"),
        "{}",
        stderr(&shown)
    );
}

/// A file the server serves that does not match its own manifest (a `_manifest` resource, or
/// FastMCP 4.2's `skills/get` alone): the skill is refused with a message naming the file,
/// nothing of it is written, and install says it failed.
#[test]
fn a_skill_whose_file_does_not_match_its_manifest_is_refused_whole() {
    refused_whole(&[]);
    refused_whole(&["--extension-only"]);
}

fn refused_whole(server_flags: &[&str]) {
    let world = World::new(&[&["--tamper", "pdf-forms/reference.md"], server_flags].concat());
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

/// What a skill's `SKILL.md` frontmatter gains to act in Claude Code: a hook that runs a
/// command, and Bash without asking (both measured honoured by Claude Code, issue 42).
const ACTING_KEYS: &str = "allowed-tools: Bash\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: touch /tmp/mcpick-skill-hook-ran\n";

/// `SKILL.md` of the served `pdf-forms` with [`ACTING_KEYS`] in its frontmatter.
fn give_acting_keys(world: &World) {
    let path = world.root().join("pdf-forms/SKILL.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let text = text.replacen("\n---\n", &format!("\n{ACTING_KEYS}---\n"), 1);
    std::fs::write(&path, text).unwrap();
}

/// A server's skill whose frontmatter can make Claude Code act (`hooks`, `allowed-tools`) is
/// not handed on until the user says yes to it at that version: `preview --host` and
/// `install` name the keys, nothing is written into `.claude/skills`, and Claude Code's model
/// request does not list it. After `mcpick trust --skills --yes` it is delivered, and the
/// line that says so names the keys again.
#[test]
fn a_skill_that_carries_hooks_reaches_claude_code_only_after_the_users_yes() {
    let world = World::new(&[]);
    give_acting_keys(&world);
    let out = world.run(&["preview", "--host", "claude-code"]);
    assert!(
        stderr(&out).contains("carries `allowed-tools`, `hooks`"),
        "preview --host names the keys: {}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).contains("as a skill: pdf-forms"),
        "{}",
        stderr(&out)
    );
    let out = world.run(&["install", "claude-code"]);
    assert!(
        stderr(&out).contains("carries `allowed-tools`, `hooks`")
            && stderr(&out).contains("mcpick trust --skills"),
        "install names the keys and the way to accept: {}",
        stderr(&out)
    );
    let written = world.project().join(".claude/skills/pdf-forms");
    assert!(!written.exists(), "held back: nothing written");
    let request = world.first_requests("claude-code");
    assert!(
        !request.contains(PINNED_DESCRIPTION),
        "Claude Code lists a skill the user did not accept: {}",
        around(&request, PINNED_DESCRIPTION)
    );

    let review = stdout(&world.run(&["trust", "--skills"]));
    assert!(
        review.contains("hooks:") && review.contains("allowed-tools: Bash"),
        "the frontmatter is shown whole before the yes: {review}"
    );
    world.ok(&["trust", "--skills", "--yes"]);
    world.ok(&["deliver"]);
    let said = stderr(&world.run(&["preview", "--host", "claude-code"]));
    assert!(
        said.contains("as a skill: pdf-forms") && said.contains("carries `allowed-tools`, `hooks`"),
        "{said}"
    );
    assert_eq!(tree(&written), tree(&world.root().join("pdf-forms")));
    let request = world.first_requests("claude-code");
    assert!(
        request.contains(PINNED_DESCRIPTION),
        "accepted: listed: {}",
        around(&request, PINNED_DESCRIPTION)
    );
}

/// The user's own skill of the pinned skill's name where Claude Code reads skills
/// (`~/.claude/skills/pdf-forms/`): Claude Code lists that one, so `preview --host` does not
/// promise the server's and says why, and `install` writes nothing over or beside it.
#[test]
fn a_users_own_skill_of_the_same_name_is_said_not_promised() {
    let world = World::new(&[]);
    let own = world.home().join(".claude/skills/pdf-forms");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(
        own.join("SKILL.md"),
        "---\nname: pdf-forms\ndescription: my own pdf-forms (own-desc-2a9c)\n---\nmine\n",
    )
    .unwrap();
    let out = world.run(&["preview", "--host", "claude-code"]);
    let said = stderr(&out);
    assert!(!said.contains("as a skill: pdf-forms"), "{said}");
    assert!(
        said.contains("holds a skill of the same name that mcpick did not write")
            && said.contains(&own.display().to_string()),
        "{said}"
    );
    let out = world.run(&["install", "claude-code"]);
    assert!(
        stderr(&out).contains("holds a skill of the same name"),
        "{}",
        stderr(&out)
    );
    assert!(!world.project().join(".claude/skills/pdf-forms").exists());
    let request = world.first_requests("claude-code");
    assert!(
        request.contains("own-desc-2a9c"),
        "the host lists the user's own"
    );
    assert!(!request.contains(PINNED_DESCRIPTION));
}

/// A skill pinned while it carried nothing that acts, then given `hooks` and `allowed-tools`
/// by its server: `deliver` and any mark keep the copy written before, byte for byte, and say
/// why; `preview --host` names the new keys.
#[test]
fn a_pinned_skill_that_gains_hooks_is_not_rewritten() {
    let world = World::new(&[]);
    world.ok(&["install", "claude-code"]);
    let written = world.project().join(".claude/skills/pdf-forms");
    let first = tree(&written);
    assert_eq!(first, tree(&world.root().join("pdf-forms")));
    give_acting_keys(&world);
    let out = world.run(&["deliver"]);
    assert!(
        stderr(&out).contains("changed on the server since you accepted it, and it now carries `allowed-tools`, `hooks`"),
        "{}",
        stderr(&out)
    );
    world.ok(&["policy", "--budget", "90000"]);
    assert_eq!(tree(&written), first, "the earlier copy, byte for byte");
    let out = world.run(&["preview", "--host", "claude-code"]);
    assert!(
        stderr(&out).contains("carries `allowed-tools`, `hooks`"),
        "{}",
        stderr(&out)
    );
}

/// A skill changed on the server waits for the user's yes (`mcpick trust --skills`), then is
/// written again on the next delivery; excluded, it is taken back; supporting files listed as resources (not through a template) work the same.
#[test]
fn a_skill_is_kept_fresh_and_taken_back_when_excluded() {
    kept_fresh_and_taken_back(&["--supporting", "resources"]);
}

/// FastMCP 4.2's provider serves the MCP Skills extension (the manifest from `skills/get`)
/// beside `skill://` resources with manifests, and scans its folders again on each request:
/// mcpick hands its skills on, keeps them fresh and takes them back the same way.
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
    let first = tree(&written);
    std::fs::write(
        world.root().join("pdf-forms/reference.md"),
        "# Field names, second edition\n",
    )
    .unwrap();
    // Changed on the server since it was pinned: it waits for the user, the copy written
    // before is kept as it was, whatever writes the delivery again.
    let out = world.run(&["deliver"]);
    assert!(
        stderr(&out).contains("changed on the server since you accepted it"),
        "{}",
        stderr(&out)
    );
    world.ok(&["policy", "--budget", "90000"]);
    assert_eq!(tree(&written), first, "not rewritten before the user's yes");
    let review = stdout(&world.run(&["trust", "--skills"]));
    assert!(review.contains("pdf-forms (server `skills`)"), "{review}");
    world.ok(&["trust", "--skills", "--yes"]);
    // Every command that writes a skills folder names it.
    let said = world.ok(&["deliver"]);
    assert!(
        said.contains("skill written for claude-code: ")
            && said.contains(".claude/skills/pdf-forms"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(written.join("reference.md")).unwrap(),
        "# Field names, second edition\n"
    );
    assert_eq!(tree(&written), tree(&world.root().join("pdf-forms")));
    let up: Vec<&str> = world.upstream.iter().map(String::as_str).collect();
    let out = world.run(&[&["exclude", "skill://pdf-forms"][..], &up].concat());
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!written.exists(), "excluded: taken back");
    let said = stderr(&out);
    assert!(
        said.contains("skill taken back for claude-code: ")
            && said.contains(".claude/skills/pdf-forms"),
        "{said}"
    );
    assert!(
        !exclude.exists(),
        "its git exclude line too (the file was made for it)"
    );
    let out = world.run(&[&["pin", "skill://pdf-forms"][..], &up].concat());
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(written.exists(), "pinned again: written again");
    let said = stderr(&out);
    assert!(
        said.contains("skill written for claude-code: ")
            && said.contains(".claude/skills/pdf-forms"),
        "{said}"
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

/// `check` reads each listed skill whole: FastMCP's own manifests pass, whether from a
/// `_manifest` resource (4.1's provider) or the Skills extension's `skills/get` (4.2's, with
/// and without `_manifest` resources); a file served unlike its manifest fails
/// `skills.manifest`, naming the file.
#[test]
fn check_reports_a_manifest_that_does_not_match_the_files_read() {
    const TAMPER: [&str; 2] = ["--tamper", "pdf-forms/scripts/fill.py"];
    for (flags, verdict) in [
        (&[][..], "pass"),
        (&TAMPER[..], "fail"),
        (&["--extension"][..], "pass"),
        (&["--extension-only"][..], "pass"),
        (&["--extension-only", TAMPER[0], TAMPER[1]][..], "fail"),
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

/// The browser's host view (`a`, then `H`) shows what `preview --host claude-code` does: the
/// pinned skill as a skill (read and verified through the browser's connection), not its files
/// inline among the resources.
#[test]
fn the_browsers_host_view_shows_a_pinned_skill_as_a_skill() {
    let world = World::new(&[]);
    let tmux = common::tmux::Tmux::program(&world.project(), &world.env(), Path::new(mcpick_bin()));
    tmux.wait_for("the browser, the skills listed", |s| {
        s.contains("press / to search") && s.contains("skills")
    });
    tmux.keys(&["a"]);
    tmux.wait_for("the agent view", |s| s.contains("tok"));
    tmux.keys(&["H"]);
    let screen = tmux
        .wait(std::time::Duration::from_secs(90), |s| {
            s.contains("Claude Code receives") && s.contains("as a skill: pdf-forms")
        })
        .unwrap_or_else(|s| panic!("no skill in the host view:\n{s}"));
    assert!(
        !screen.contains("skill://pdf-forms/"),
        "the skill's files are not inline:\n{screen}"
    );
}

/// A server that publishes its skills through the MCP Skills extension alone (the manifest
/// only from `skills/get`, no `_manifest` resource: the project's rmcp fixture, as rmcp's own
/// catalog serves them): the pinned skill reaches Claude Code's folder byte for byte, verified
/// against that manifest, and nothing of the excluded one.
#[test]
fn a_skill_published_through_the_skills_extension_alone_is_handed_on() {
    extension_alone_handed_on(World::serving(|root| {
        vec![
            "--name".into(),
            "skills".into(),
            "--".into(),
            fixture_bin().into(),
            "--skills".into(),
            root.to_string_lossy().into_owned(),
        ]
    }));
}

/// The same from FastMCP 4.2's provider with its `_manifest` resources withheld (what is left
/// once 4.3 removes the 4.1 shape): the manifest from its own `skills/get`.
#[test]
fn a_fastmcp_skill_published_through_the_skills_extension_alone_is_handed_on() {
    extension_alone_handed_on(World::new(&["--extension-only"]));
}

fn extension_alone_handed_on(world: World) {
    let up: Vec<&str> = world.upstream.iter().map(String::as_str).collect();
    let listed = world.ok(&[&["ls", "--json"][..], &up].concat());
    assert!(
        !listed.contains("_manifest"),
        "no manifest resource: {listed}"
    );
    let said = world.ok(&["install", "claude-code"]);
    assert!(said.contains("as a skill: pdf-forms"), "{said}");
    let written = world.at(".claude/skills");
    assert_eq!(
        tree(&written.join("pdf-forms")),
        tree(&world.root().join("pdf-forms")),
        "byte for byte"
    );
    assert!(!written.join("release-notes").exists());
}

/// What a running session of a host does with a skill written since it started.
#[derive(Clone, Copy, PartialEq)]
enum Running {
    /// Its next turn lists it.
    NextTurn,
    /// It lists it after this command of its own, not before.
    After(&'static str),
    /// It never does (a new session lists it: [`a_pinned_skill_reaches`]).
    NotUntilANewSession,
}

/// A skill pinned while a host's session runs: `pin` writes it into the host's skills folder at
/// once and says what the session needs, if anything; the session lists it as `running` says,
/// measured in the model requests of its turns; the turn before the pin did not list it.
fn a_skill_pinned_mid_session(host: &str, folder: &str, listed: &str, running: Running) {
    let world = World::new(&[]);
    world.mark("exclude", "skill://pdf-forms");
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = Stub::start(stub_dir.path());
    // The host's TUI, what says it is ready, its model API and where its turn's messages are:
    // set up as for a headless run (`Stub::headless` writes each host's own settings), Claude
    // Code's first-run questions answered as a person answers them once.
    if host == "codex" {
        // Codex reads the project's `.codex/` in a git repository.
        std::fs::create_dir_all(world.project().join(".git")).unwrap();
    }
    world.ok(&["install", host]);
    let run = stub.headless(host, "", &world.home(), &world.project());
    let tmux = match host {
        "claude-code" => claude_tui(&world.project(), &world.home(), &world.env(), &stub),
        _ => {
            let mut env = world.env();
            env.extend(run.env.iter().map(|(k, v)| (k.to_string(), v.clone())));
            // Qwen Code is told its provider on its command line, as headless.
            let args: &[&str] = match host {
                "qwen-code" => &["--auth-type", "anthropic"],
                _ => &[],
            };
            common::tmux::Tmux::program_with(
                &world.project(),
                &env,
                &peers().join("node/node_modules/.bin").join(run.program),
                args,
            )
        }
    };
    // The question each host asks first in a new project, answered as a person answers it:
    // Codex's new hooks trusted, Copilot CLI's folder trusted for this session, Qwen Code's
    // project MCP server (mcpick's) approved.
    let first_question: Option<(&str, &str, &[&str])> = match host {
        "codex" => Some((
            "Hooks need review",
            "Trust all and continue",
            &["2", "Enter"],
        )),
        "copilot-cli" => Some((COPILOT_TRUST, COPILOT_TRUST, &["Enter"])),
        "qwen-code" => Some(("Untrusted MCP server", "Untrusted MCP server", &["Enter"])),
        _ => None,
    };
    let (ready, messages): (fn(&str) -> bool, _) = match host {
        "claude-code" => (|s| s.contains("auto mode") || s.contains('❯'), "messages"),
        "gemini" => (|s| s.contains("Type your message"), "contents"),
        "opencode" => (|s| s.contains("Ask anything"), "messages"),
        "codex" => (|s| s.contains("Ask Codex to do anything"), "input"),
        "qwen-code" => (|s| s.contains("Type your message"), "messages"),
        "copilot-cli" => (|s| s.contains("? help"), "messages"),
        other => panic!("no TUI set up for {other}"),
    };
    let api = run.api;
    let written = world.at(folder).join("pdf-forms");
    assert!(!written.exists(), "excluded: not handed on");
    match first_question {
        Some(_) if host == "codex" => common::model_stub::trust_codex_hooks(&tmux)
            .unwrap_or_else(|screen| panic!("codex: its hooks not trusted:\n{screen}")),
        Some((question, option, keys)) => tmux
            .answer(question, option, keys)
            .unwrap_or_else(|screen| panic!("{host}: `{question}` not answered:\n{screen}")),
        None => {}
    }
    let ready = tmux.wait(common::tmux::HOST_START, ready).is_ok();
    std::thread::sleep(std::time::Duration::from_secs(3));
    // The whole model request (system prompt, tools, messages) of the turn that sent `prompt`.
    let turn = |prompt: &str| {
        take_turn(&tmux, &stub, api, prompt, |r, prompt| {
            text_of(&r[messages]).contains(prompt).then(|| text_of(r))
        })
    };
    let first = ready.then(|| turn("first turn please")).flatten();
    let up: Vec<&str> = world.upstream.iter().map(String::as_str).collect();
    let pinned = world.run(&[&["pin", "skill://pdf-forms"][..], &up].concat());
    let written_mid_session = written.join("SKILL.md").exists();
    // A person types the next prompt seconds later: a host watching its folder has seen it.
    // Claude Code 2.1.332 missed a skill written 3 s before the prompt (its folder watcher
    // settles in a few seconds), so the next prompt comes 8 s after the pin, as a person's would.
    std::thread::sleep(std::time::Duration::from_secs(8));
    let second = first.as_ref().and_then(|_| turn("second turn please"));
    // Claude Code's folder watcher is not always in time for the very next prompt (seen with
    // both cores busy: the skill came a turn later): once, a further turn 10 s on, as a person
    // asking again would. The first turn that lists it is the one checked below.
    let second = match second {
        Some(text) if running == Running::NextTurn && !text.contains(listed) => {
            std::thread::sleep(std::time::Duration::from_secs(10));
            turn("second turn again please").or(Some(text))
        }
        other => other,
    };
    // A host that lists the skills it found at session start: its own command finds it.
    let reload = match running {
        Running::After(command) => Some(command),
        _ => None,
    };
    let third = reload.and_then(|command| {
        second.as_ref()?;
        tmux.type_text(command);
        std::thread::sleep(std::time::Duration::from_millis(500));
        tmux.keys(&["Enter"]);
        std::thread::sleep(std::time::Duration::from_secs(3));
        turn("third turn please")
    });
    let shown = tmux.screen();
    drop(tmux);
    let first = first.unwrap_or_else(|| panic!("{host}: turn 1 never reached the model:\n{shown}"));
    let second =
        second.unwrap_or_else(|| panic!("{host}: turn 2 never reached the model:\n{shown}"));
    assert_eq!(exit_code(&pinned), 0, "{}", stderr(&pinned));
    assert!(
        written_mid_session,
        "`pin` wrote the skill while the session ran"
    );
    // `pin` says what a running session needs to list it, for a host that needs anything.
    let told = stderr(&pinned);
    assert_eq!(
        told.contains("skills changed: a running"),
        running != Running::NextTurn,
        "{told}"
    );
    match running {
        Running::After(command) => {
            assert!(told.contains(&format!("run `{command}` in it")), "{told}")
        }
        Running::NotUntilANewSession => {
            assert!(told.contains("a new session lists"), "{told}")
        }
        Running::NextTurn => {}
    }
    // `preview --host` says the same of the host.
    let previewed = stderr(&world.run(&["preview", "--host", host, "--format", "json"]));
    let says = match running {
        Running::NextTurn => "is listed on its next turn (measured)".to_string(),
        Running::After(command) => format!("run `{command}` in it to list a skill written since"),
        Running::NotUntilANewSession => "a new session lists a skill written since".to_string(),
    };
    assert!(previewed.contains(&says), "{host}: {previewed}");
    assert!(
        !first.contains(PINNED_DESCRIPTION),
        "{host}, turn 1: not pinned yet"
    );
    if running != Running::NextTurn {
        assert!(
            !second.contains(PINNED_DESCRIPTION),
            "{host} lists the skills it found at session start"
        );
    }
    let listing = match running {
        Running::NextTurn => second,
        Running::After(_) => {
            third.unwrap_or_else(|| panic!("{host}: turn 3 never reached the model:\n{shown}"))
        }
        Running::NotUntilANewSession => return,
    };
    assert!(
        listing.contains(listed),
        "{host}: the turn lists the skill pinned since turn 1: {}",
        around(&listing, PINNED_DESCRIPTION)
    );
    assert!(!listing.contains(PINNED_BODY), "listed, not inlined");
}

/// Claude Code 2.1.328 tells the turn in a reminder of its own: "The following skills are
/// available for use with the Skill tool:", then the skill's line.
#[test]
fn a_skill_pinned_mid_session_is_listed_on_claude_codes_next_turn() {
    a_skill_pinned_mid_session(
        "claude-code",
        ".claude/skills",
        &format!("- pdf-forms: Fill in PDF forms field by field ({PINNED_DESCRIPTION})"),
        Running::NextTurn,
    );
}

/// Gemini CLI 0.61.0 lists the skills it found at session start: a skill pinned since reaches
/// a running session after `/skills reload`, not before.
#[test]
fn a_skill_pinned_mid_session_is_listed_by_gemini_cli_after_skills_reload() {
    a_skill_pinned_mid_session(
        "gemini",
        ".gemini/skills",
        &format!(
            "<name>pdf-forms</name>\n    <description>Fill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
        Running::After("/skills reload"),
    );
}

/// opencode 1.18.33 lists the skills it found when its session started: a running session does
/// not list a skill pinned since (a new one does).
#[test]
fn a_skill_pinned_mid_session_is_not_listed_by_a_running_opencode_session() {
    a_skill_pinned_mid_session(
        "opencode",
        ".opencode/skills",
        &format!(
            "<name>pdf-forms</name>\n    <description>Fill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
        Running::NotUntilANewSession,
    );
}

/// Codex 0.171.0 lists a skill written since its session started on the next turn.
#[test]
fn a_skill_pinned_mid_session_is_listed_on_codexs_next_turn() {
    a_skill_pinned_mid_session(
        "codex",
        ".codex/skills",
        &format!("- pdf-forms: Fill in PDF forms field by field ({PINNED_DESCRIPTION})"),
        Running::NextTurn,
    );
}

/// Qwen Code 0.24.4 says "Extensions changed on disk. Run /reload-plugins to apply updates."
/// and lists the skill after `/reload-plugins`, not before.
#[test]
fn a_skill_pinned_mid_session_is_listed_by_qwen_code_after_reload_plugins() {
    a_skill_pinned_mid_session(
        "qwen-code",
        ".qwen/skills",
        &format!(
            "<name>\npdf-forms\n</name>\n<description>\nFill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
        Running::After("/reload-plugins"),
    );
}

/// GitHub Copilot CLI 1.0.102 (its install is the user's) lists the skills it found when its
/// session started: a running session does not list a skill pinned since (a new one does).
#[test]
fn a_skill_pinned_mid_session_is_not_listed_by_a_running_copilot_cli_session() {
    a_skill_pinned_mid_session(
        "copilot-cli",
        "~/.copilot/skills",
        &format!(
            "<name>pdf-forms</name>\n  <description>Fill in PDF forms field by field ({PINNED_DESCRIPTION})"
        ),
        Running::NotUntilANewSession,
    );
}
