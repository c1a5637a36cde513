//! The headless commands. Each one turns arguments into server definitions, connects to all
//! of them at once, and reports per server: one failing server never hides the others.

pub mod context;
pub mod export;
pub mod install;
pub mod ls;
pub mod marks;
pub mod preview;
mod progress;
pub mod read;
pub mod serve;
pub mod servers;

use std::path::Path;

use futures::future::join_all;

use crate::cli::ServerArgs;
use crate::config::{self, Config};
use crate::mcp::log::ServerLog;
use crate::mcp::{ConnectOptions, Connection, McpError, ServerSpec, TransportSpec};
use crate::sanitize;

/// How a command ended, as a process exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    ServerFailed = 1,
    Usage = 2,
    NotFound = 3,
}

/// Reports a usage error (bad flags, unknown server) and gives its exit status.
pub fn usage_error(message: &str) -> Exit {
    report(message);
    Exit::Usage
}

/// Prints one message for a person on stderr, `mcpick: ` first. Every command's error and
/// warning goes through here: messages quote config strings and server text, so escape
/// sequences and control characters are removed (line breaks kept).
pub fn report(message: &str) {
    eprintln!("mcpick: {}", sanitize::text(message));
}

/// One server of this run: its definition, its log, and the connection or why it failed.
pub struct Session {
    pub spec: ServerSpec,
    /// How messages name the server: its definition as written (placeholders kept) for a
    /// configured server, the masked definition for an ad-hoc one.
    pub shown: String,
    pub log: ServerLog,
    pub connection: Result<Connection, McpError>,
}

impl Session {
    /// The error line for a person, naming the server; safe for a terminal (escape
    /// sequences removed) and free of the definition's secrets.
    pub fn describe_error(&self, error: &McpError) -> String {
        let detail = match &self.connection {
            Ok(connection) => connection.explain(error),
            Err(_) => error.to_string_as(&self.shown),
        };
        sanitize::text(&format!(
            "server `{}`: {detail}",
            crate::sanitize::line(&self.spec.name, 200)
        ))
    }
}

/// One server chosen for this run: a definition ready to connect, or one whose definition
/// failed (an unset variable, a bad field), which becomes a failed [`Session`].
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// The definition (for a failed one: as written, masked; never connected to).
    pub spec: ServerSpec,
    /// Why the definition cannot be used; names the file and the field.
    pub error: Option<String>,
    /// The definition as written (placeholders kept), which messages name the server by;
    /// `None` for an ad-hoc server, named by its masked definition.
    pub shown: Option<TransportSpec>,
}

impl Selected {
    fn ready(spec: ServerSpec) -> Self {
        Selected {
            spec,
            error: None,
            shown: None,
        }
    }

    /// A configured server: ready, or failed with the reason its definition gave.
    fn from_definition(definition: &crate::config::Definition) -> Self {
        match &definition.spec {
            Ok(spec) => Selected {
                shown: definition.shown.clone(),
                ..Selected::ready(spec.clone())
            },
            Err(error) => Selected {
                spec: definition.shown_spec(),
                error: Some(error.clone()),
                shown: definition.shown.clone(),
            },
        }
    }

    /// How messages name this server (see [`Session::shown`]).
    fn shown_target(&self) -> String {
        self.shown.as_ref().unwrap_or(&self.spec.transport).target()
    }
}

/// The servers named by the arguments, with the definitions from config files: `--server`
/// names, the ad-hoc ones and `--demo`; with none of these, every defined server, or the
/// built-in demo when none is defined. Config files that cannot be parsed are reported on
/// stderr as warnings. An error is a usage error.
pub fn select_servers(args: &ServerArgs) -> Result<Vec<Selected>, String> {
    let adhoc = !args.command.is_empty() || args.url.is_some() || args.demo;
    if let Some(file) = &args.config.file
        && !file.is_file()
    {
        return Err(format!("--config {}: no such file", file.display()));
    }
    // Ad-hoc servers alone need no config files.
    let config = if adhoc && args.servers.is_empty() && args.config.file.is_none() {
        Config::default()
    } else {
        let config = config::load_system(args.config.file.as_deref());
        for error in config.file_errors() {
            eprintln!("mcpick: warning: {}", sanitize::line(error, 2000));
        }
        config
    };
    select_from(args, &config)
}

/// [`select_servers`] with the config already loaded.
pub fn select_from(args: &ServerArgs, config: &Config) -> Result<Vec<Selected>, String> {
    let mut selected = Vec::new();
    let mut named: Vec<&str> = Vec::new();
    for name in &args.servers {
        if named.contains(&name.as_str()) {
            continue;
        }
        named.push(name);
        let known = config
            .get(name)
            .ok_or_else(|| unknown_server(name, config))?;
        selected.push(Selected::from_definition(&known.definition));
    }
    selected.extend(adhoc_servers(args)?.into_iter().map(Selected::ready));
    if selected.is_empty() && !args.demo {
        for known in &config.servers {
            selected.push(Selected::from_definition(&known.definition));
        }
    }
    if args.demo || selected.is_empty() {
        selected.push(Selected::ready(demo_spec()?));
    }
    Ok(selected)
}

fn unknown_server(name: &str, config: &Config) -> String {
    let name = sanitize::line(name, 200);
    if config.servers.is_empty() {
        return format!(
            "no server named `{name}`: no servers are defined (see `mcpick servers --help` for where mcpick looks)"
        );
    }
    let known: Vec<String> = config
        .servers
        .iter()
        .map(|s| sanitize::line(s.name(), 200))
        .collect();
    format!(
        "no server named `{name}`; known servers: {}",
        known.join(", ")
    )
}

/// The ad-hoc servers: `-- COMMAND ARGS…` and `--url`.
fn adhoc_servers(args: &ServerArgs) -> Result<Vec<ServerSpec>, String> {
    let mut specs = Vec::new();
    if let Some((command, rest)) = args.command.split_first() {
        specs.push(ServerSpec {
            name: args
                .name
                .clone()
                .unwrap_or_else(|| name_from_command(command, rest)),
            transport: TransportSpec::Stdio {
                command: command.clone(),
                args: rest.to_vec(),
                env: Default::default(),
                cwd: None,
            },
        });
    }
    if let Some(url) = &args.url {
        let shown = crate::redact::url(url);
        let parsed =
            url::Url::parse(url).map_err(|e| format!("`{shown}` is not a valid URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!("`{shown}` is not an http:// or https:// URL"));
        }
        let headers = args.headers.iter().cloned().collect();
        let name = match (&args.name, specs.is_empty()) {
            (Some(name), true) => name.clone(),
            _ => parsed.host_str().unwrap_or("http").to_string(),
        };
        let transport = if args.sse {
            TransportSpec::Sse {
                url: url.clone(),
                headers,
            }
        } else {
            TransportSpec::Http {
                url: url.clone(),
                headers,
            }
        };
        specs.push(ServerSpec { name, transport });
    } else if !args.headers.is_empty() {
        return Err("-H/--header only applies to --url".into());
    }
    Ok(specs)
}

/// The built-in demo server: this very binary, run as `mcpick demo-server`.
pub fn demo_spec() -> Result<ServerSpec, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the mcpick binary to start the demo server: {e}"))?;
    Ok(ServerSpec {
        name: "demo".into(),
        transport: TransportSpec::Stdio {
            command: exe.to_string_lossy().into_owned(),
            args: vec!["demo-server".into()],
            env: Default::default(),
            cwd: None,
        },
    })
}

/// A short name for an ad-hoc stdio server: the package or script for launchers
/// (`npx -y @scope/server-x@1` → `server-x`), else the command's file name.
fn name_from_command(command: &str, args: &[String]) -> String {
    let base = |s: &str| {
        Path::new(s)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| s.to_string())
    };
    let command_name = base(command);
    let launchers = [
        "npx", "uvx", "bunx", "pnpx", "node", "python", "python3", "uv", "deno", "pipx",
    ];
    if launchers.contains(&command_name.as_str())
        && let Some(target) = args.iter().find(|a| !a.starts_with('-') && *a != "run")
    {
        return name_from_target(target);
    }
    command_name
}

/// `@scope/pkg@1.2` → `pkg`; `a/server-x/dist/index.js` → `server-x`; `tool.py` → `tool`.
fn name_from_target(target: &str) -> String {
    if target.starts_with('@') || !target.contains(['/', '.']) {
        let package = target.rsplit('/').next().unwrap_or(target);
        return package
            .split('@')
            .next()
            .filter(|p| !p.is_empty())
            .unwrap_or(package)
            .to_string();
    }
    let path = Path::new(target);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| target.to_string());
    if !["index", "main", "server", "cli", "__main__"].contains(&stem.as_str()) {
        return stem;
    }
    // A generic entry point: name it after the package folder above dist/, build/, ….
    path.ancestors()
        .skip(1)
        .filter_map(|p| p.file_name())
        .map(|f| f.to_string_lossy().into_owned())
        .find(|f| !["dist", "build", "lib", "src", "bin", "out"].contains(&f.as_str()))
        .unwrap_or(stem)
}

/// Connects to every server at once. A server whose definition failed becomes a session whose
/// connection is that error.
pub async fn connect_all(servers: Vec<Selected>, options: &ConnectOptions) -> Vec<Session> {
    join_all(servers.into_iter().map(|selected| async move {
        let shown = selected.shown_target();
        let Selected { spec, error, .. } = selected;
        let log = ServerLog::new(options.log_lines);
        let connection = match error {
            Some(reason) => Err(McpError::Config { reason }),
            None => Connection::connect(&spec, options, log.clone()).await,
        };
        Session {
            spec,
            shown,
            log,
            connection,
        }
    }))
    .await
}

/// Ends every session, waiting briefly for servers to exit.
pub async fn close_all(sessions: Vec<Session>) {
    join_all(
        sessions
            .into_iter()
            .filter_map(|s| s.connection.ok())
            .map(Connection::close),
    )
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn demo_is_the_default() {
        let specs = select_from(&ServerArgs::default(), &Config::default()).unwrap();
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].spec.name, "demo");
    }

    /// A config with a working `one`, `two`, and a `broken` definition.
    fn config() -> Config {
        let definition = |name: &str, spec: Result<ServerSpec, String>| config::KnownServer {
            definition: config::Definition {
                name: name.into(),
                path: "/p/.mcp.json".into(),
                field: format!("mcpServers.{name}"),
                scope: config::Scope::Project,
                format: config::Format::ClaudeCode,
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
            sources: Vec::new(),
        }
    }

    #[test]
    fn every_defined_server_is_the_default_and_a_failed_one_stays() {
        let selected = select_from(&ServerArgs::default(), &config()).unwrap();
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
        let a = ServerArgs {
            servers: args(&["two", "one", "two"]),
            ..Default::default()
        };
        assert_eq!(names(&select_from(&a, &config).unwrap()), ["two", "one"]);
        let a = ServerArgs {
            servers: args(&["two"]),
            url: Some("http://127.0.0.1:9/mcp".into()),
            demo: true,
            ..Default::default()
        };
        assert_eq!(
            names(&select_from(&a, &config).unwrap()),
            ["two", "127.0.0.1", "demo"]
        );
        // Ad-hoc servers alone, or --demo alone, leave the defined ones out.
        let a = ServerArgs {
            command: args(&["node", "x.js"]),
            ..Default::default()
        };
        assert_eq!(names(&select_from(&a, &config).unwrap()), ["x"]);
        let a = ServerArgs {
            demo: true,
            ..Default::default()
        };
        assert_eq!(names(&select_from(&a, &config).unwrap()), ["demo"]);
    }

    #[test]
    fn an_unknown_server_lists_the_known_ones() {
        let a = ServerArgs {
            servers: args(&["nope"]),
            ..Default::default()
        };
        let error = select_from(&a, &config()).unwrap_err();
        assert!(error.contains("`nope`"), "{error}");
        assert!(error.contains("one, broken, two"), "{error}");
        let error = select_from(&a, &Config::default()).unwrap_err();
        assert!(error.contains("no servers are defined"), "{error}");
    }

    #[test]
    fn url_and_command_together() {
        let a = ServerArgs {
            url: Some("http://127.0.0.1:9/mcp".into()),
            command: args(&["node", "server.js"]),
            ..Default::default()
        };
        let specs = select_from(&a, &Config::default()).unwrap();
        assert_eq!(names(&specs), ["server", "127.0.0.1"]);
        assert!(
            select_from(
                &ServerArgs {
                    url: Some("ftp://x".into()),
                    ..Default::default()
                },
                &Config::default()
            )
            .is_err()
        );
    }
}
