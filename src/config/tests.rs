//! Discovery, every dialect (from the fixture files in `tests/fixtures/config/`), precedence
//! and shadowing, placeholders, and errors that name the file and the field.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::expand::{Vars, expand, mask, shown_secret};
use super::*;
use crate::commands::servers::ServerList;

/// The key of the per-project section in the fixture `~/.claude.json`.
const FIXTURE_PROJECT: &str = "/home/me/app";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config")
}

/// The environment the fixtures are expanded with. Nothing comes from the real process.
fn test_env() -> HashMap<&'static str, &'static str> {
    HashMap::from([
        ("MY_TOKEN", "tok-1234567890abcdef"),
        ("API_TOKEN", "api-secret-abcdef123456"),
        ("GITHUB_TOKEN", "ghp_fromtheenvironment0123"),
        ("CURSOR_HOST", "cursor.example.com"),
        ("EMPTY", ""),
    ])
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A temporary project and home directory made of the fixtures; `~/.claude.json`'s project
/// section is keyed by the temporary project's path.
struct Layout {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl Layout {
    fn new(project_fixture: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("app");
        let home = dir.path().join("home");
        copy_tree(&fixtures().join(project_fixture), &project);
        copy_tree(&fixtures().join("home"), &home);
        let claude = home.join(".claude.json");
        let text = std::fs::read_to_string(&claude).unwrap();
        let key = serde_json::to_string(project.to_str().unwrap()).unwrap();
        let text = text.replace(&format!("\"{FIXTURE_PROJECT}\""), &key);
        std::fs::write(&claude, text).unwrap();
        Layout {
            _dir: dir,
            project,
            home,
        }
    }

    fn places(&self) -> Places {
        Places::linux_like(&self.project, &self.home)
    }

    fn load(&self, explicit: Option<&Path>) -> Config {
        let env = test_env();
        let lookup = |name: &str| env.get(name).map(|v| v.to_string());
        let places = self.places();
        let vars = Vars {
            env: &lookup,
            workspace: &places.project,
            home: places.home.as_deref(),
        };
        load(&sources(&places, explicit), &vars)
    }
}

fn spec<'a>(config: &'a Config, name: &str) -> &'a ServerSpec {
    let known = config
        .get(name)
        .unwrap_or_else(|| panic!("no server `{name}`"));
    known
        .definition
        .spec
        .as_ref()
        .unwrap_or_else(|e| panic!("`{name}` failed: {e}"))
}

fn command_line(spec: &ServerSpec) -> String {
    spec.transport.target()
}

fn env_of(spec: &ServerSpec) -> &BTreeMap<String, String> {
    match &spec.transport {
        TransportSpec::Stdio { env, .. } => env,
        other => panic!("not stdio: {other:?}"),
    }
}

fn headers_of(spec: &ServerSpec) -> &BTreeMap<String, String> {
    match &spec.transport {
        TransportSpec::Http { headers, .. } | TransportSpec::Sse { headers, .. } => headers,
        other => panic!("not http: {other:?}"),
    }
}

#[test]
fn sources_are_listed_in_precedence_order() {
    let places = Places::linux_like("/w/app", "/h");
    let list = sources(&places, Some(Path::new("extra.json")));
    let shown: Vec<(String, Scope, &str)> = list
        .iter()
        .map(|s| (s.path.display().to_string(), s.scope, s.format.name()))
        .collect();
    let expected = [
        ("/w/app/extra.json", Scope::Explicit, "json"),
        ("/w/app/mcpick.toml", Scope::Project, "mcpick"),
        ("/w/app/.mcp.json", Scope::Project, "claude-code"),
        ("/w/app/.cursor/mcp.json", Scope::Project, "cursor"),
        ("/w/app/.vscode/mcp.json", Scope::Project, "vscode"),
        ("/w/app/.codex/config.toml", Scope::Project, "codex"),
        ("/w/app/.gemini/settings.json", Scope::Project, "gemini"),
        ("/w/app/.zed/settings.json", Scope::Project, "zed"),
        ("/w/app/opencode.json", Scope::Project, "opencode"),
        ("/w/app/.qwen/settings.json", Scope::Project, "qwen-code"),
        ("/w/app/kilo.json", Scope::Project, "kilo"),
        ("/h/.config/mcpick/config.toml", Scope::User, "mcpick"),
        ("/h/.claude.json", Scope::Host, "claude-code"),
        ("/h/.claude.json", Scope::Host, "claude-code"),
        (
            "/h/.config/Claude/claude_desktop_config.json",
            Scope::Host,
            "claude-desktop",
        ),
        ("/h/.cursor/mcp.json", Scope::Host, "cursor"),
        ("/h/.config/Code/User/mcp.json", Scope::Host, "vscode"),
        ("CODEX", Scope::Host, "codex"),
        ("/h/.gemini/settings.json", Scope::Host, "gemini"),
        (
            "/h/.codeium/windsurf/mcp_config.json",
            Scope::Host,
            "windsurf",
        ),
        ("ZED", Scope::Host, "zed"),
        ("OPENCODE", Scope::Host, "opencode"),
        ("/h/.copilot/mcp-config.json", Scope::Host, "copilot-cli"),
        ("/h/.qwen/settings.json", Scope::Host, "qwen-code"),
        ("KILO", Scope::Host, "kilo"),
        (
            "/h/.cline/data/settings/cline_mcp_settings.json",
            Scope::Host,
            "cline",
        ),
    ];
    // Codex's user file follows `$CODEX_HOME`, Zed's and opencode's the OS.
    let codex = crate::hosts::codex::user_file(&places).unwrap();
    let zed = crate::hosts::zed::user_file(&places).unwrap();
    let opencode = crate::hosts::opencode::user_file(&places).unwrap();
    let kilo = crate::hosts::kilo::user_file(&places).unwrap();
    let expected: Vec<(String, Scope, &str)> = expected
        .iter()
        .map(|(p, s, f)| {
            let p = match *p {
                "CODEX" => codex.display().to_string(),
                "ZED" => zed.display().to_string(),
                "OPENCODE" => opencode.display().to_string(),
                "KILO" => kilo.display().to_string(),
                p => p.to_string(),
            };
            (p, *s, *f)
        })
        .collect();
    assert_eq!(shown, expected);
    // `~/.claude.json`: the project's section first, then the top level.
    assert_eq!(
        list[12].format,
        Format::ClaudeCodeUser {
            project: Some(PathBuf::from("/w/app"))
        }
    );
    assert_eq!(list[13].format, Format::ClaudeCodeUser { project: None });
    // A --config file not ending in .json is mcpick TOML; absolute paths stay as they are.
    let list = sources(&places, Some(Path::new("/etc/mcpick.conf")));
    assert_eq!(list[0].path, Path::new("/etc/mcpick.conf"));
    assert_eq!(list[0].format, Format::Mcpick);
}

#[test]
fn the_home_directory_as_working_directory_reads_each_file_once() {
    let places = Places::linux_like("/h", "/h");
    let list = sources(&places, None);
    let cursor: Vec<_> = list
        .iter()
        .filter(|s| s.path == Path::new("/h/.cursor/mcp.json"))
        .collect();
    assert_eq!(cursor.len(), 1);
    assert_eq!(cursor[0].scope, Scope::Project);
}

#[test]
fn every_dialect_is_read_and_the_first_source_wins() {
    let layout = Layout::new("project");
    let config = layout.load(None);
    assert!(
        config.file_errors().is_empty(),
        "{:?}",
        config.file_errors()
    );
    let names: Vec<&str> = config.servers.iter().map(KnownServer::name).collect();
    assert_eq!(
        names,
        [
            // ./mcpick.toml
            "shared",
            "toml-sse",
            "toml-stdio",
            // ./.mcp.json
            "api",
            "broken",
            "github",
            // ./.cursor/mcp.json
            "cursor-local",
            "cursor-remote",
            // ./.vscode/mcp.json
            "vscode-input",
            "vscode-stdio",
            // the user's mcpick config
            "user-streamable",
            "user-tool",
            // ~/.claude.json, the project's section
            "claude-project-only",
            "project-override",
            // ~/.claude.json, top level
            "claude-global",
            // Claude Desktop
            "desktop-literal",
            "filesystem",
            // ~/.cursor/mcp.json
            "cursor-user",
        ]
    );

    // `shared` is defined in every source: the project's mcpick.toml wins, and every other
    // definition is shadowed, in precedence order.
    let shared = config.get("shared").unwrap();
    assert_eq!(
        command_line(shared.definition.spec.as_ref().unwrap()),
        "from-project-mcpick-toml"
    );
    let shadowed: Vec<String> = shared
        .shadowed
        .iter()
        .map(|d| command_line(d.spec.as_ref().unwrap()))
        .collect();
    assert_eq!(
        shadowed,
        [
            "from-project-mcp-json",
            "from-project-cursor",
            "from-project-vscode",
            "from-user-mcpick-toml",
            "from-claude-json-project",
            "from-claude-json-top",
            "from-claude-desktop",
            "from-user-cursor",
        ]
    );
    let origins: Vec<(Scope, &str)> = shared
        .shadowed
        .iter()
        .map(|d| (d.scope, d.format.name()))
        .collect();
    assert_eq!(
        origins,
        [
            (Scope::Project, "claude-code"),
            (Scope::Project, "cursor"),
            (Scope::Project, "vscode"),
            (Scope::User, "mcpick"),
            (Scope::Host, "claude-code"),
            (Scope::Host, "claude-code"),
            (Scope::Host, "claude-desktop"),
            (Scope::Host, "cursor"),
        ]
    );
    assert_eq!(shared.definition.field, "servers.shared");
    assert_eq!(shared.definition.path, layout.project.join("mcpick.toml"));
    assert_eq!(shared.shadowed[0].field, "mcpServers.shared");
}

#[test]
fn claude_code_per_project_section_beats_its_top_level() {
    let layout = Layout::new("project");
    let config = layout.load(None);
    let known = config.get("project-override").unwrap();
    assert_eq!(
        command_line(known.definition.spec.as_ref().unwrap()),
        "from-claude-json-project"
    );
    let key = serde_json::to_string(layout.project.to_str().unwrap()).unwrap();
    assert_eq!(
        known.definition.field,
        format!("projects[{key}].mcpServers.project-override")
    );
    assert_eq!(known.shadowed.len(), 1);
    assert_eq!(known.shadowed[0].field, "mcpServers.project-override");
    // Another project's servers are not this project's.
    assert!(config.get("other-project-server").is_none());
    // Claude Code's `streamableHttp` type is Streamable HTTP.
    let only = spec(&config, "claude-project-only");
    assert!(matches!(only.transport, TransportSpec::Http { .. }));
    assert_eq!(
        headers_of(only)["Authorization"],
        "Bearer api-secret-abcdef123456"
    );
    assert!(matches!(
        spec(&config, "claude-global").transport,
        TransportSpec::Sse { .. }
    ));
}

#[test]
fn fields_and_placeholders_of_each_dialect() {
    let layout = Layout::new("project");
    let config = layout.load(None);
    let project = layout.project.to_str().unwrap();
    let home = layout.home.to_str().unwrap();

    // mcpick TOML: stdio with every field, and an SSE server.
    let toml_stdio = spec(&config, "toml-stdio");
    assert_eq!(
        command_line(toml_stdio),
        format!("mcpick demo-server --root {project}/data")
    );
    assert_eq!(env_of(toml_stdio)["TOKEN"], "tok-1234567890abcdef");
    match &toml_stdio.transport {
        TransportSpec::Stdio { cwd, .. } => {
            assert_eq!(cwd.as_deref(), Some(Path::new(&format!("{home}/work"))))
        }
        _ => unreachable!(),
    }
    let toml_sse = spec(&config, "toml-sse");
    assert!(
        matches!(&toml_sse.transport, TransportSpec::Sse { url, .. } if url == "https://sse.example.com/sse")
    );
    assert_eq!(
        headers_of(toml_sse)["Authorization"],
        "Bearer api-secret-abcdef123456"
    );

    // Claude Code's .mcp.json: ${VAR} and ${VAR:-default}.
    let github = spec(&config, "github");
    assert_eq!(
        command_line(github),
        "npx -y @modelcontextprotocol/server-github"
    );
    assert_eq!(
        env_of(github)["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "ghp_fromtheenvironment0123"
    );
    let api = spec(&config, "api");
    assert!(
        matches!(&api.transport, TransportSpec::Http { url, .. } if url == "https://api.example.com/mcp"),
        "{api:?}"
    );

    // Cursor: ${workspaceFolder} and ${env:VAR}; a url alone is Streamable HTTP.
    assert_eq!(
        command_line(spec(&config, "cursor-local")),
        format!("node {project}/tools/server.js")
    );
    assert!(matches!(
        &spec(&config, "cursor-remote").transport,
        TransportSpec::Http { url, .. } if url == "https://cursor.example.com/mcp"
    ));
    assert!(matches!(
        &spec(&config, "cursor-user").transport,
        TransportSpec::Http { url, .. } if url == "http://localhost:8931/mcp"
    ));

    // VS Code (JSONC): numbers and booleans as text, cwd, ${env:VAR}.
    let vscode = spec(&config, "vscode-stdio");
    assert_eq!(command_line(vscode), "python3 -m my_server --port 8080");
    assert_eq!(env_of(vscode)["TOKEN"], "tok-1234567890abcdef");
    assert_eq!(env_of(vscode)["DEBUG"], "true");
    match &vscode.transport {
        TransportSpec::Stdio { cwd, .. } => assert_eq!(cwd.as_deref(), Some(Path::new(project))),
        _ => unreachable!(),
    }

    // mcpick's user config: ${userHome}; `streamable-http` is Streamable HTTP.
    assert_eq!(
        command_line(spec(&config, "user-tool")),
        format!("{home}/bin/tool serve")
    );
    assert!(matches!(
        spec(&config, "user-streamable").transport,
        TransportSpec::Http { .. }
    ));

    // Claude Desktop: arguments with spaces are kept whole.
    match &spec(&config, "filesystem").transport {
        TransportSpec::Stdio { args, .. } => {
            assert_eq!(args.last().unwrap(), "/Users/me/My Documents")
        }
        _ => unreachable!(),
    }
}

#[test]
fn an_unset_variable_fails_only_that_server_naming_file_and_field() {
    let layout = Layout::new("project");
    let config = layout.load(None);
    let broken = config.get("broken").unwrap();
    let error = broken.definition.error().expect("broken fails");
    let file = layout.project.join(".mcp.json");
    assert!(
        error.starts_with(&format!("{}: ", file.display())),
        "names the file: {error}"
    );
    assert!(
        error.contains("mcpServers.broken.env.SECRET"),
        "names the field: {error}"
    );
    assert!(
        error.contains("MCPICK_TEST_UNSET_VAR") && error.contains("not set"),
        "{error}"
    );
    // Still listed, with what it was meant to be.
    assert_eq!(broken.definition.shown_spec().transport.kind(), "stdio");
    assert_eq!(broken.definition.shown_spec().name, "broken");
    // Every other server of the same file is fine.
    let failed: Vec<&str> = config
        .servers
        .iter()
        .filter(|s| s.definition.error().is_some())
        .map(KnownServer::name)
        .collect();
    assert_eq!(failed, ["broken", "vscode-input"]);
}

#[test]
fn a_vscode_input_is_an_error_naming_the_input() {
    let layout = Layout::new("project");
    let config = layout.load(None);
    let error = config
        .get("vscode-input")
        .unwrap()
        .definition
        .error()
        .unwrap();
    assert!(error.contains(".vscode/mcp.json: "), "{error}");
    assert!(
        error.contains("servers.vscode-input.headers.X-Api-Key"),
        "{error}"
    );
    assert!(error.contains("${input:docs-key}"), "{error}");
    assert!(error.contains("API key for the docs server"), "{error}");
}

#[test]
fn servers_never_prints_a_secret() {
    let layout = Layout::new("project");
    let config = layout.load(None);
    let json = serde_json::to_string_pretty(&ServerList::new(&config, &layout.project)).unwrap();
    for (name, value) in test_env() {
        if value.len() > 3 && name != "CURSOR_HOST" {
            assert!(!json.contains(value), "{name}'s value is printed:\n{json}");
        }
    }
    for literal in [
        "ghp_literalsecret0123456789",
        "not-a-placeholder-but-masked",
    ] {
        assert!(!json.contains(literal), "{literal} is printed");
    }
    // Placeholders as written, literal values masked.
    assert!(json.contains(r#""GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}""#));
    assert!(json.contains(r#""Authorization": "Bearer ${API_TOKEN}""#));
    assert!(json.contains(r#""GIT_TOKEN": "***""#), "{json}");
    // URLs and arguments with a placeholder are shown as written, not expanded.
    assert!(json.contains(r#""target": "${API_BASE:-https://api.example.com}/mcp""#));
    assert!(json.contains(r#""target": "https://${env:CURSOR_HOST}/mcp""#));
    assert!(!json.contains("cursor.example.com"));
}

#[test]
fn placeholders_every_form() {
    let env = test_env();
    let lookup = |name: &str| env.get(name).map(|v| v.to_string());
    let vars = Vars {
        env: &lookup,
        workspace: Path::new("/w/app"),
        home: Some(Path::new("/h")),
    };
    let ok = |s: &str| expand(s, &vars, None).unwrap();
    assert_eq!(ok("plain $MY_TOKEN stays"), "plain $MY_TOKEN stays");
    assert_eq!(ok("${MY_TOKEN}"), "tok-1234567890abcdef");
    assert_eq!(ok("a-${MY_TOKEN}-b"), "a-tok-1234567890abcdef-b");
    assert_eq!(ok("${env:CURSOR_HOST}"), "cursor.example.com");
    assert_eq!(ok("${UNSET_X:-fallback}"), "fallback");
    assert_eq!(ok("${UNSET_X:-}"), "");
    assert_eq!(ok("${EMPTY:-fallback}"), "fallback", "shell semantics");
    assert_eq!(ok("${CURSOR_HOST:-fallback}"), "cursor.example.com");
    assert_eq!(ok("${EMPTY}"), "", "set but empty is not unset");
    assert_eq!(ok("${workspaceFolder}/x"), "/w/app/x");
    assert_eq!(ok("${workspaceFolderBasename}"), "app");
    assert_eq!(ok("${userHome}/.local"), "/h/.local");
    assert_eq!(ok("${MY_TOKEN}${API_TOKEN}").len(), 20 + 23);

    let err = |s: &str| expand(s, &vars, None).unwrap_err();
    assert!(err("${NOPE}").contains("`NOPE` is not set"));
    assert!(err("x ${env:NOPE}").contains("`NOPE` is not set"));
    assert!(err("${input:key}").contains("cannot prompt"));
    assert!(err("${command:pick}").contains("not a placeholder mcpick knows"));
    assert!(err("${MY_TOKEN").contains("closing"));
    assert!(err("${env:}").contains("not a valid"));
    // Errors never carry a value.
    assert!(!err("${MY_TOKEN}${NOPE}").contains("tok-"));

    let no_home = Vars {
        env: &lookup,
        workspace: Path::new("/w"),
        home: None,
    };
    assert!(expand("${userHome}", &no_home, None).is_err());
}

#[test]
fn masking() {
    // Whole values are masked: no prefix is kept.
    assert_eq!(mask("Bearer abcdefghijkl"), "***");
    assert_eq!(mask("short"), "***");
    assert_eq!(mask(""), "***");
    assert_eq!(shown_secret("Bearer ${TOKEN}"), "Bearer ${TOKEN}");
    assert_eq!(shown_secret("ghp_0123456789abcdef"), "***");
}

#[test]
fn a_malformed_json_file_names_itself_and_the_others_still_load() {
    let layout = Layout::new("malformed");
    let config = layout.load(None);
    let errors = config.file_errors();
    let json = layout.project.join(".mcp.json");
    let json_error = errors
        .iter()
        .find(|e| e.starts_with(&json.display().to_string()))
        .unwrap_or_else(|| panic!("no error for .mcp.json: {errors:?}"));
    assert!(json_error.contains("not valid JSON"), "{json_error}");
    assert!(json_error.contains("line 4 column 5"), "{json_error}");

    let toml = layout.project.join("mcpick.toml");
    let toml_error = errors
        .iter()
        .find(|e| e.starts_with(&toml.display().to_string()))
        .unwrap_or_else(|| panic!("no error for mcpick.toml: {errors:?}"));
    assert!(
        toml_error.starts_with(&format!("{}:4:", toml.display())),
        "{toml_error}"
    );
    assert!(toml_error.contains(": not valid TOML: "), "{toml_error}");
    assert_eq!(errors.len(), 2, "{errors:?}");

    // The other sources still load.
    assert!(config.get("filesystem").is_some());
    assert!(config.get("user-tool").is_some());
    assert!(config.get("oops").is_none());
    let states: Vec<&SourceState> = config
        .sources
        .iter()
        .filter(|r| r.source.scope == Scope::Project)
        .map(|r| &r.state)
        .collect();
    assert!(matches!(states[0], SourceState::Failed(_)));
    assert!(matches!(states[1], SourceState::Failed(_)));
    assert_eq!(states[2], &SourceState::Missing);
}

#[test]
fn toml_errors_do_not_quote_the_file() {
    let err = parse_text(
        "[servers.x]\nheaders = { Authorization = \"Bearer sekrit-value\" \n",
        Path::new("/p/mcpick.toml"),
        &Format::Mcpick,
    )
    .unwrap_err();
    assert!(
        err.starts_with("/p/mcpick.toml:2:"),
        "FILE:LINE:COLUMN first: {err}"
    );
    let column = err.split(':').nth(2).unwrap();
    assert!(column.parse::<usize>().is_ok(), "{err}");
    assert!(err.contains(": not valid TOML: "), "{err}");
    assert!(!err.contains("sekrit"), "{err}");
    assert!(!err.contains('\n'), "one line: {err}");
}

#[test]
fn an_explicit_config_file_wins_over_everything() {
    let layout = Layout::new("project");
    let extra = layout.project.join("extra.toml");
    std::fs::write(
        &extra,
        "[servers.shared]\nurl = \"http://127.0.0.1:9/mcp\"\n",
    )
    .unwrap();
    let config = layout.load(Some(Path::new("extra.toml")));
    let shared = config.get("shared").unwrap();
    assert_eq!(shared.definition.scope, Scope::Explicit);
    assert_eq!(shared.shadowed.len(), 9);

    // A JSON --config file in either key style.
    let json = layout.project.join("extra.json");
    std::fs::write(
        &json,
        r#"{"servers": {"from-json": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}"#,
    )
    .unwrap();
    let config = layout.load(Some(&json));
    assert!(matches!(
        spec(&config, "from-json").transport,
        TransportSpec::Sse { .. }
    ));
}

#[test]
fn bad_definitions_fail_alone_with_their_field() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpick.toml"),
        r#"
[servers.typo]
comand = "node"

[servers.both]
command = "node"
url = "http://x/mcp"

[servers.neither]
args = ["x"]

[servers.ws]
type = "ws"
url = "ws://x"

[servers.ftp]
url = "ftp://x/mcp"

[servers.args]
command = "node"
args = "server.js"

[servers.fine]
command = "node"
"#,
    )
    .unwrap();
    let places = Places {
        project: dir.path().to_path_buf(),
        home: None,
        config_dir: None,
        mcpick_dir: None,
        codex_home: None,
    };
    let lookup = |_: &str| None;
    let vars = Vars {
        env: &lookup,
        workspace: &places.project,
        home: None,
    };
    let config = load(&sources(&places, None), &vars);
    let error = |name: &str| {
        config
            .get(name)
            .unwrap()
            .definition
            .error()
            .unwrap()
            .to_string()
    };
    assert!(error("typo").contains("servers.typo: unknown field `comand`"));
    assert!(error("both").contains("servers.both: has both `command` and `url`"));
    assert!(error("neither").contains("servers.neither: needs a `command`"));
    assert!(error("ws").contains("servers.ws.type: unsupported transport type \"ws\""));
    assert!(error("ftp").contains("servers.ftp.url: `ftp://x/mcp` is not an http"));
    assert!(error("args").contains("servers.args.args: expected a list of strings"));
    assert!(config.get("fine").unwrap().definition.error().is_none());
    // Host files are lenient about fields they do not know.
    let mut doc: Value =
        serde_json::json!({"mcpServers": {"x": {"command": "n", "disabled": false}}});
    let source = Source {
        path: PathBuf::from("/p/.mcp.json"),
        scope: Scope::Project,
        format: Format::Host(crate::hosts::Host::ClaudeCode),
    };
    let defs = parse::definitions(&source, &doc, &vars).unwrap();
    assert!(defs[0].spec.is_ok());
    // A servers key that is not an object is a file error.
    doc["mcpServers"] = serde_json::json!([1]);
    let err = parse::definitions(&source, &doc, &vars).unwrap_err();
    assert!(
        err.contains("/p/.mcp.json: `mcpServers` is not an object"),
        "{err}"
    );
}

#[test]
fn odd_server_names_are_quoted_in_field_paths() {
    let lookup = |_: &str| None;
    let vars = Vars {
        env: &lookup,
        workspace: Path::new("/w"),
        home: None,
    };
    let doc = serde_json::json!({"mcpServers": {"my.server x": {"command": "n", "env": {"A": "${NOPE}"}}}});
    let source = Source {
        path: PathBuf::from("/p/.mcp.json"),
        scope: Scope::Project,
        format: Format::Host(crate::hosts::Host::ClaudeCode),
    };
    let defs = parse::definitions(&source, &doc, &vars).unwrap();
    assert_eq!(defs[0].field, r#"mcpServers["my.server x"]"#);
    assert!(
        defs[0]
            .error()
            .unwrap()
            .contains(r#"mcpServers["my.server x"].env.A: "#)
    );
}

#[test]
fn jsonc_comments_and_trailing_commas() {
    let text = "{\n // note\n \"url\": \"http://x//y\", /* a\n b */ \"a\": [1, 2,],\n}";
    let stripped = parse::strip_jsonc(text);
    assert_eq!(stripped.len(), text.len());
    let value: Value = serde_json::from_str(&stripped).unwrap();
    assert_eq!(value["url"], "http://x//y");
    assert_eq!(value["a"], serde_json::json!([1, 2]));
    // Comment markers inside strings (with escaped quotes) are text.
    let text = r#"{"a": "say \"// hi\" /* x */"}"#;
    let value: Value = serde_json::from_str(&parse::strip_jsonc(text)).unwrap();
    assert_eq!(value["a"], r#"say "// hi" /* x */"#);
}
