//! mcpick never feeds on its own deliveries: with a files server publishing the whole project
//! (`tests/peers/files_server.py`, as a user's own server or any files server does) and the
//! whole project pinned, the files mcpick wrote there (the delivered `.mcpick/*.md`,
//! `AGENTS.override.md`, the host files `install` edited) are left out of the set, named in
//! `preview` with why, and two deliveries in a row carry the project's files and none of
//! mcpick's own outputs.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// A project of two files, a home of its own, and a set pinning every file the files server
/// publishes there.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let world = World {
            dir: tempfile::tempdir().unwrap(),
        };
        let project = world.project();
        std::fs::create_dir_all(project.join("docs")).unwrap();
        std::fs::write(project.join("README.md"), "# Widget\nREADME-MARKER\n").unwrap();
        std::fs::write(project.join("docs/guide.md"), "GUIDE-MARKER\n").unwrap();
        std::fs::create_dir_all(world.home().join(".codex")).unwrap();
        let all = format!("file://{}/*", project.display());
        let server = [
            "--name".to_string(),
            "files".into(),
            "--".into(),
            python(),
            repo_root()
                .join("tests/peers/files_server.py")
                .display()
                .to_string(),
            project.display().to_string(),
        ];
        let mut pin = vec!["pin".to_string(), all];
        pin.extend(server);
        let pin: Vec<&str> = pin.iter().map(String::as_str).collect();
        world.ok(&pin);
        world
    }

    fn project(&self) -> PathBuf {
        let p = self.dir.path().join("project");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::canonicalize(p).unwrap()
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        let home = self.home();
        let bin = Path::new(mcpick_bin())
            .parent()
            .unwrap()
            .display()
            .to_string();
        let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
        let env = [
            ("HOME", home.display().to_string()),
            (
                "XDG_CONFIG_HOME",
                home.join(".config").display().to_string(),
            ),
            ("CODEX_HOME", home.join(".codex").display().to_string()),
            ("PATH", path),
        ];
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        mcpick_in(&self.project(), &env, args)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    fn preview(&self) -> Value {
        serde_json::from_str(&self.ok(&["preview", "--format", "json"])).unwrap()
    }

    /// The project's path in a URI of the files server.
    fn uri(&self, relative: &str) -> String {
        format!("file://{}/{relative}", self.project().display())
    }
}

/// The URIs of a preview's `included`, or of its `leftOut` with `reason`.
fn uris_of(doc: &Value, key: &str, reason: Option<&str>) -> Vec<String> {
    doc[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {doc}"))
        .iter()
        .filter(|r| reason.is_none_or(|want| r["reason"] == want))
        .map(|r| r["uri"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn deliveries_never_carry_mcpicks_own_outputs() {
    let world = World::new();
    world.ok(&["install", "claude-code"]);
    world.ok(&["install", "codex"]);
    // mcpick wrote into the project: the files server lists it all.
    let project = world.project();
    let own = [
        ".mcp.json",
        ".claude/settings.json",
        "AGENTS.override.md",
        ".codex/hooks.json",
    ];
    for file in own {
        assert!(project.join(file).is_file(), "{file} not written");
    }
    let delivered: Vec<String> = std::fs::read_dir(project.join(".mcpick"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert!(!delivered.is_empty(), "no delivery under .mcpick");

    // What install delivered first already leaves out the files it wrote just before.
    let first = std::fs::read_to_string(project.join(".mcpick").join(&delivered[0])).unwrap();
    assert!(first.contains("README-MARKER"), "{first}");
    for file in own {
        assert!(
            !first.contains(&world.uri(file)),
            "install delivered {file}:\n{first}"
        );
    }
    // Two deliveries in a row: each carries the project's files and nothing mcpick wrote.
    for round in 0..2 {
        world.ok(&["deliver"]);
        let doc = world.preview();
        let included = uris_of(&doc, "included", None);
        let left_out = uris_of(&doc, "leftOut", Some("mcpick's own output"));
        for file in ["README.md", "docs/guide.md"] {
            assert!(
                included.contains(&world.uri(file)),
                "round {round}: {file} not in {included:?}"
            );
        }
        for file in own
            .iter()
            .map(|f| f.to_string())
            .chain(delivered.iter().map(|n| format!(".mcpick/{n}")))
        {
            let uri = world.uri(&file);
            assert!(!included.contains(&uri), "round {round}: {file} included");
            assert!(
                left_out.contains(&uri),
                "round {round}: {file} not left out as own: {doc}"
            );
        }
        for text in [
            std::fs::read_to_string(project.join("AGENTS.override.md")).unwrap(),
            std::fs::read_to_string(project.join(".mcpick").join(&delivered[0])).unwrap(),
        ] {
            assert!(
                text.contains("README-MARKER") && text.contains("GUIDE-MARKER"),
                "{text}"
            );
            for file in own {
                assert!(
                    !text.contains(&world.uri(file)),
                    "round {round}: {file} delivered:\n{text}"
                );
            }
            assert!(
                !text.contains(&world.uri(".mcpick/")),
                "round {round}: a delivery delivered:\n{text}"
            );
        }
    }
    // The preview says why, in words.
    let text = world.ok(&["preview"]);
    assert!(text.contains("mcpick's own output"), "{text}");
    assert!(text.contains("the delivery to Codex"), "{text}");
}
