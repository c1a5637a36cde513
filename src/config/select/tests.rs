//! Selection: names, defaults, the demo, unknown servers, and warnings returned (not
//! printed) for config files that cannot be used.

use super::*;
use crate::config::{Format, KnownServer, Scope};

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn names_from_commands() {
    assert_eq!(
        name_from_command(
            "npx",
            &args(&["-y", "@modelcontextprotocol/server-everything@2026.8.31"])
        ),
        "server-everything"
    );
    assert_eq!(
        name_from_command("python3", &args(&["tests/peers/py_server.py"])),
        "py_server"
    );
    assert_eq!(
        name_from_command("/usr/bin/my-server", &args(&["--x"])),
        "my-server"
    );
    assert_eq!(
        name_from_command(
            "node",
            &args(&["/x/node_modules/server-everything/dist/index.js", "stdio"])
        ),
        "server-everything"
    );
    assert_eq!(
        name_from_command("uvx", &args(&["mcp-server-git"])),
        "mcp-server-git"
    );
}

fn names(selected: &[Selected]) -> Vec<&str> {
    selected.iter().map(|s| s.spec.name.as_str()).collect()
}

/// [`select_from`] on a first run, its notes dropped.
fn pick(choice: &ServerChoice, config: &Config) -> Result<Vec<Selected>, String> {
    select_from(choice, config, true, &mut Vec::new())
}

#[test]
fn the_demo_unasked_only_on_a_first_run_and_never_silently() {
    let mut notes = Vec::new();
    let specs = select_from(
        &ServerChoice::default(),
        &Config::default(),
        true,
        &mut notes,
    )
    .unwrap();
    assert_eq!(specs.len(), 1);
    assert_eq!(specs[0].spec.name, "demo");
    assert_eq!(notes, [FIRST_RUN_DEMO]);
    // Asked for: no note.
    let mut notes = Vec::new();
    let demo = ServerChoice {
        demo: true,
        ..Default::default()
    };
    let specs = select_from(&demo, &Config::default(), false, &mut notes).unwrap();
    assert_eq!(names(&specs), ["demo"]);
    assert!(notes.is_empty(), "{notes:?}");
    // A set file with no servers, and none defined: an error, never the demo.
    let servers = BTreeMap::new();
    let set = SetServers {
        servers: &servers,
        folder: None,
        on_disk: true,
    };
    let mut notes = Vec::new();
    let error = choose_from(
        &ServerChoice::default(),
        set,
        &Config::default(),
        &mut notes,
    )
    .unwrap_err();
    assert!(error.contains("--demo"), "{error}");
    assert!(notes.is_empty(), "{notes:?}");
    // No set file either: a first run.
    let set = SetServers {
        on_disk: false,
        ..set
    };
    let chosen = choose_from(
        &ServerChoice::default(),
        set,
        &Config::default(),
        &mut notes,
    )
    .unwrap();
    assert_eq!(chosen[0].selected.spec.name, "demo");
    assert_eq!(notes, [FIRST_RUN_DEMO]);
}

/// A config with a working `one`, `two`, and a `broken` definition.
fn config() -> Config {
    let definition = |name: &str, spec: Result<ServerSpec, String>| KnownServer {
        definition: Definition {
            oauth: None,
            name: name.into(),
            path: "/p/.mcp.json".into(),
            field: format!("mcpServers.{name}"),
            scope: Scope::Project,
            format: Format::Host(crate::hosts::Host::ClaudeCode),
            shown: Some(TransportSpec::Http {
                url: "https://${HOST}/mcp".into(),
                headers: Default::default(),
            }),
            spec,
        },
        shadowed: Vec::new(),
    };
    let http = |name: &str| {
        Ok(ServerSpec {
            name: name.into(),
            transport: TransportSpec::Http {
                url: format!("http://{name}.example/mcp"),
                headers: Default::default(),
            },
        })
    };
    Config {
        servers: vec![
            definition("one", http("one")),
            definition(
                "broken",
                Err("/p/.mcp.json: mcpServers.broken.url: unset".into()),
            ),
            definition("two", http("two")),
        ],
        ..Config::default()
    }
}

#[test]
fn every_defined_server_is_the_default_and_a_failed_one_stays() {
    let selected = pick(&ServerChoice::default(), &config()).unwrap();
    assert_eq!(names(&selected), ["one", "broken", "two"]);
    assert_eq!(selected[0].error, None);
    let broken = &selected[1];
    assert!(
        broken
            .error
            .as_deref()
            .unwrap()
            .contains("mcpServers.broken.url")
    );
    // It keeps its definition as written (placeholder unexpanded) for its transport.
    assert_eq!(broken.spec.transport.kind(), "http");
    assert!(broken.spec.transport.target().contains("${HOST}"));
}

#[test]
fn named_servers_ad_hoc_servers_and_the_demo() {
    let config = config();
    let a = ServerChoice {
        servers: args(&["two", "one", "two"]),
        ..Default::default()
    };
    assert_eq!(names(&pick(&a, &config).unwrap()), ["two", "one"]);
    let a = ServerChoice {
        servers: args(&["two"]),
        url: Some("http://127.0.0.1:9/mcp".into()),
        demo: true,
        ..Default::default()
    };
    assert_eq!(
        names(&pick(&a, &config).unwrap()),
        ["two", "127.0.0.1", "demo"]
    );
    // Ad-hoc servers alone, or --demo alone, leave the defined ones out.
    let a = ServerChoice {
        command: args(&["node", "x.js"]),
        ..Default::default()
    };
    assert_eq!(names(&pick(&a, &config).unwrap()), ["x"]);
    let a = ServerChoice {
        demo: true,
        ..Default::default()
    };
    assert_eq!(names(&pick(&a, &config).unwrap()), ["demo"]);
}

#[test]
fn an_unknown_server_lists_the_known_ones() {
    let a = ServerChoice {
        servers: args(&["nope"]),
        ..Default::default()
    };
    let error = pick(&a, &config()).unwrap_err();
    assert!(error.contains("`nope`"), "{error}");
    assert!(error.contains("one, broken, two"), "{error}");
    let error = pick(&a, &Config::default()).unwrap_err();
    assert!(error.contains("no servers are defined"), "{error}");
}

#[test]
fn url_and_command_together() {
    let a = ServerChoice {
        url: Some("http://127.0.0.1:9/mcp".into()),
        command: args(&["node", "server.js"]),
        ..Default::default()
    };
    let specs = pick(&a, &Config::default()).unwrap();
    assert_eq!(names(&specs), ["server", "127.0.0.1"]);
    assert!(
        pick(
            &ServerChoice {
                url: Some("ftp://x".into()),
                ..Default::default()
            },
            &Config::default()
        )
        .is_err()
    );
}

/// A project whose `mcpick.toml` is not valid TOML, beside a working `.mcp.json`.
struct Broken {
    _dir: tempfile::TempDir,
    places: Places,
}

fn broken_project() -> Broken {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("app");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(project.join("mcpick.toml"), "[servers.x\ncommand = 1\n").unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        r#"{"mcpServers": {"fine": {"url": "http://127.0.0.1:9/mcp"}}}"#,
    )
    .unwrap();
    Broken {
        places: Places::linux_like(&project, &home),
        _dir: dir,
    }
}

fn one_warning_about_the_toml(warnings: &[String]) {
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("mcpick.toml"), "{warnings:?}");
    assert!(warnings[0].contains("not valid TOML"), "{warnings:?}");
}

#[test]
fn a_broken_config_file_comes_back_as_a_warning_and_the_others_are_used() {
    let broken = broken_project();
    let selection = select_servers_at(&broken.places, &ServerChoice::default());
    one_warning_about_the_toml(&selection.warnings);
    assert_eq!(names(&selection.servers.unwrap()), ["fine"]);

    let servers = BTreeMap::new();
    let set = SetServers {
        servers: &servers,
        folder: None,
        on_disk: false,
    };
    let selection = choose_at(&broken.places, &ServerChoice::default(), set);
    one_warning_about_the_toml(&selection.warnings);
    let chosen = selection.servers.unwrap();
    assert_eq!(chosen.len(), 1);
    assert_eq!(chosen[0].selected.spec.name, "fine");
}

#[test]
fn a_usage_error_keeps_the_warnings() {
    let broken = broken_project();
    let nope = ServerChoice {
        servers: args(&["nope"]),
        ..Default::default()
    };
    let selection = select_servers_at(&broken.places, &nope);
    one_warning_about_the_toml(&selection.warnings);
    assert!(selection.servers.unwrap_err().contains("`nope`"));
    let servers = BTreeMap::new();
    let set = SetServers {
        servers: &servers,
        folder: None,
        on_disk: false,
    };
    let selection = choose_at(&broken.places, &nope, set);
    one_warning_about_the_toml(&selection.warnings);
    assert!(selection.servers.is_err());
}

#[test]
fn ad_hoc_servers_alone_read_no_config_file() {
    let broken = broken_project();
    let demo = ServerChoice {
        demo: true,
        ..Default::default()
    };
    let selection = select_servers_at(&broken.places, &demo);
    assert!(selection.warnings.is_empty(), "{:?}", selection.warnings);
    assert_eq!(names(&selection.servers.unwrap()), ["demo"]);
}

#[test]
fn the_keys_table_is_loaded_with_the_servers() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("mcpick.toml"),
        "[keys.browse]\nj = \"up\"\n[servers.s]\nurl = \"http://127.0.0.1:9/mcp\"\n",
    )
    .unwrap();
    let places = Places::linux_like(&project, dir.path().join("home"));
    let (config, warnings) = load_config_at(&places, None);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(config.servers.len(), 1);
    assert_eq!(config.keys.len(), 1);
    assert!(config.keys[0].origin.ends_with("mcpick.toml"));
    let browse = config.keys[0]
        .value
        .get("browse")
        .and_then(|b| b.as_table());
    assert_eq!(
        browse.and_then(|b| b.get("j")).and_then(|j| j.as_str()),
        Some("up")
    );
}

/// A project's `.mcp.json` server and a set's server are held back until approved for their
/// project and exact definition; the person's own servers never are.
#[test]
fn a_project_files_servers_wait_for_approval() {
    let dir = tempfile::tempdir().unwrap();
    let (project, home) = (dir.path().join("p"), dir.path().join("home"));
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(home.join(".config/mcpick")).unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        r#"{"mcpServers":{"repo":{"command":"touch","args":["pwned"]}}}"#,
    )
    .unwrap();
    std::fs::write(
        home.join(".config/mcpick/config.toml"),
        "[servers.mine]\ncommand = \"my-server\"\n",
    )
    .unwrap();
    let places = Places::linux_like(&project, &home);
    let select = |approvals: &Approvals| {
        let mut selection = select_servers_at(&places, &ServerChoice::default());
        let servers = selection.servers.as_mut().unwrap();
        let mut notes = Vec::new();
        gate(
            servers.iter_mut(),
            &project,
            None,
            Ok(approvals),
            &mut notes,
        );
        (selection.servers.unwrap(), notes)
    };
    let mut approvals = Approvals::default();
    let (servers, notes) = select(&approvals);
    let repo = servers.iter().find(|s| s.spec.name == "repo").unwrap();
    let mine = servers.iter().find(|s| s.spec.name == "mine").unwrap();
    assert!(
        repo.error.as_deref().unwrap().contains("mcpick trust"),
        "{repo:?}"
    );
    assert_eq!(mine.error, None);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("`repo`") && notes[0].contains("mcpick trust"));

    approvals.approve(&project, "repo", &repo.spec.transport, "touch pwned");
    let (servers, notes) = select(&approvals);
    assert!(servers.iter().all(|s| s.error.is_none()), "{servers:?}");
    assert!(notes.is_empty());

    // Approved elsewhere is not approved here; a set's definition is the set's project's.
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let mut set_server = Selected {
        origin: Origin::Set,
        ..Selected::ready(ServerSpec {
            name: "s".into(),
            transport: repo.spec.transport.clone(),
        })
    };
    let mut notes = Vec::new();
    gate(
        std::iter::once(&mut set_server),
        &project,
        Some(&other),
        Ok(&approvals),
        &mut notes,
    );
    assert!(set_server.error.is_some());
    // An unreadable store approves nothing, and the note says why.
    let mut again = repo.clone();
    again.error = None;
    let mut notes = Vec::new();
    gate(
        std::iter::once(&mut again),
        &project,
        None,
        Err("broken"),
        &mut notes,
    );
    assert!(again.error.is_some() && notes[0].contains("broken"));
}
