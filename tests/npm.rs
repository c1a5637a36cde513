//! The npm package (`npm/`): the `mcpick` launcher and this machine's platform package, packed
//! by `npm/pack.sh` around the binary under test and installed from the two tarballs offline,
//! as the hosts' own npm packages ship their native binaries: `npx mcpick` then runs mcpick,
//! with its arguments, output and exit code, and says what is missing when the platform
//! package is not there.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{exit_code, mcpick_bin, repo_root, stderr, stdout};

/// npm's name for this machine (`linux-x64`, `darwin-arm64`, …).
fn target() -> String {
    let os = match std::env::consts::OS {
        "windows" => "win32",
        "macos" => "darwin",
        other => other,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}-{cpu}")
}

/// A folder with the tarballs installed (`tarballs` of those `npm/pack.sh` made), offline,
/// with a cache and a home of its own.
struct Installed {
    dir: tempfile::TempDir,
}

impl Installed {
    fn new(tarballs: &[&str]) -> Installed {
        let dir = tempfile::tempdir().unwrap();
        let packed = dir.path().join("packed");
        let pack = Command::new("bash")
            .arg(repo_root().join("npm/pack.sh"))
            .args([mcpick_bin(), &target(), packed.to_str().unwrap()])
            .env("npm_config_cache", dir.path().join("cache"))
            .output()
            .unwrap();
        assert!(pack.status.success(), "npm/pack.sh: {}", stderr(&pack));
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            project.join("package.json"),
            r#"{"name":"npm-test","version":"1.0.0","private":true}"#,
        )
        .unwrap();
        let installed = Installed { dir };
        let paths: Vec<String> = tarballs
            .iter()
            .map(|t| packed.join(t).to_string_lossy().into_owned())
            .collect();
        let out = installed.npm(
            &[
                &["install", "--offline", "--no-audit", "--no-fund"][..],
                &paths.iter().map(String::as_str).collect::<Vec<_>>(),
            ]
            .concat(),
        );
        assert!(out.status.success(), "npm install: {}", stderr(&out));
        installed
    }

    fn npm(&self, args: &[&str]) -> Output {
        let root = self.dir.path();
        Command::new("npm")
            .args(args)
            .current_dir(root.join("project"))
            .env("npm_config_cache", root.join("cache"))
            .env("HOME", root.join("home"))
            .env("MCPICK_DATA_DIR", root.join("data"))
            .env("XDG_CONFIG_HOME", root.join("config"))
            .env("XDG_CACHE_HOME", root.join("xdg-cache"))
            .env_remove("MCPICK_CONFIG")
            .output()
            .unwrap()
    }

    /// `npx --offline mcpick ARGS` in the project.
    fn npx(&self, args: &[&str]) -> Output {
        self.npm(&[&["exec", "--offline", "--", "mcpick"][..], args].concat())
    }
}

fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[test]
fn the_package_version_is_the_crates() {
    let text = std::fs::read_to_string(repo_root().join("npm/mcpick/package.json")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["version"], version());
    for (name, wanted) in doc["optionalDependencies"].as_object().unwrap() {
        assert!(name.starts_with("@mcpick/"), "{name}");
        assert_eq!(wanted, version(), "{name}");
    }
    assert!(
        doc["optionalDependencies"]
            .get(format!("@mcpick/{}", target()))
            .is_some()
            || !matches!(std::env::consts::OS, "linux" | "macos"),
        "this machine's platform package is listed"
    );
}

#[test]
fn npx_mcpick_runs_the_binary_from_the_tarballs() {
    let main = format!("mcpick-{}.tgz", version());
    let platform = format!("mcpick-{}-{}.tgz", target(), version());
    let installed = Installed::new(&[&main, &platform]);

    let out = installed.npx(&["--version"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), format!("mcpick {}", version()));

    // Arguments and output pass through; so does the exit code of a usage error.
    let out = installed.npx(&["ls", "--demo", "--json"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!common::resources(&doc).is_empty());
    let out = installed.npx(&["no-such-command"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("no-such-command"), "{}", stderr(&out));

    // The launcher carries nothing but itself; the binary is in the platform package.
    let launcher = installed.dir.path().join("project/node_modules/mcpick");
    assert!(launcher.join("bin/mcpick.js").is_file());
    assert!(!launcher.join("bin/mcpick").exists());
    let binary = Path::new("project/node_modules/@mcpick")
        .join(target())
        .join("bin/mcpick");
    assert!(installed.dir.path().join(binary).is_file());
}

#[test]
fn without_its_platform_package_the_launcher_says_what_is_missing() {
    let installed = Installed::new(&[&format!("mcpick-{}.tgz", version())]);
    let out = installed.npx(&["--version"]);
    assert_eq!(exit_code(&out), 1);
    let said = stderr(&out);
    assert!(
        said.contains(&format!("no binary for {} was installed", target())),
        "{said}"
    );
    assert!(said.contains("--omit=optional"), "{said}");
}

/// Run through `npx` (the binary in npm's cache, which npm may clean), `install claude-code`
/// writes an entry and hooks that run `npx -y mcpick@VERSION`, says so, and calls them its
/// own (`install --list`, `uninstall`): Claude Code starts the entry (`claude mcp list`:
/// connected, npm offline), and the hooks' command line answers a turn with what changed.
#[test]
fn run_through_npx_the_entries_run_npx() {
    let main = format!("mcpick-{}.tgz", version());
    let platform = format!("mcpick-{}-{}.tgz", target(), version());
    let installed = Installed::new(&[&main, &platform]);
    let root = installed.dir.path();
    let project = std::fs::canonicalize(root.join("project")).unwrap();
    let ok = |args: &[&str]| {
        let out = installed.npx(args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        out
    };
    ok(&["pin", "--demo", "file:///project/README.md"]);
    let out = ok(&["install", "claude-code"]);
    let spec = format!("mcpick@{}", version());
    assert!(
        stderr(&out).contains(&format!(
            "run through npx: the entry and hooks run `npx -y {spec}`"
        )),
        "{}",
        stderr(&out)
    );
    let entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(project.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(entry["mcpServers"]["mcpick"]["command"], "npx", "{entry:#}");
    assert_eq!(
        entry["mcpServers"]["mcpick"]["args"],
        serde_json::json!(["-y", spec, "serve", "--set", "mcpick.context.json"])
    );
    let hook = format!("npx -y {spec} turn claude-code --set mcpick.context.json");
    let settings = std::fs::read_to_string(project.join(".claude/settings.json")).unwrap();
    assert!(settings.contains(&hook), "{settings}");
    let listed = stdout(&ok(&["install", "--list"]));
    assert!(
        listed.contains(&format!("mcpick entry `mcpick`: npx -y {spec} serve"))
            && listed.contains("mcpick's per-turn hooks"),
        "{listed}"
    );

    // Claude Code starts the entry, npm offline: the package is in the project.
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::write(
        root.join("home/.claude.json"),
        serde_json::json!({ "projects": { project.to_str().unwrap(): {
            "hasTrustDialogAccepted": true, "enableAllProjectMcpServers": true } } })
        .to_string(),
    )
    .unwrap();
    let path = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|dir| !dir.join("mcpick").exists())
        .collect::<Vec<_>>();
    let path = std::env::join_paths(
        std::iter::once(common::peers().join("node/node_modules/.bin")).chain(path),
    )
    .unwrap();
    let host = |program: &str, args: &[&str], input: &str| {
        let mut child = Command::new(program)
            .args(args)
            .current_dir(&project)
            .env("HOME", root.join("home"))
            .env("PATH", &path)
            .env("npm_config_cache", root.join("cache"))
            .env("npm_config_offline", "true")
            .env("MCPICK_DATA_DIR", root.join("data"))
            .env_remove("MCPICK_NPX")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let claude = common::peers().join("node/node_modules/.bin/claude");
    let out = host(claude.to_str().unwrap(), &["mcp", "list"], "");
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        text.lines()
            .any(|l| l.starts_with("mcpick: npx -y") && l.contains("✔ Connected")),
        "claude mcp list: {text}"
    );
    // The hooks' command line, as Claude Code runs it: a turn after an exclude hears of it.
    let event = |name: &str| format!(r#"{{"session_id":"s1","hook_event_name":"{name}"}}"#);
    let out = host("sh", &["-c", &hook], &event("SessionStart"));
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    ok(&["exclude", "--demo", "file:///project/README.md"]);
    let out = host("sh", &["-c", &hook], &event("UserPromptSubmit"));
    assert!(
        stdout(&out).contains("disregard what it said")
            && stdout(&out).contains("file:///project/README.md"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );

    ok(&["uninstall", "claude-code"]);
    assert!(!project.join(".mcp.json").exists());
    assert!(!project.join(".claude/settings.json").exists());
}
