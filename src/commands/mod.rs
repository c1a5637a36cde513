//! The headless commands. Each one turns arguments into server definitions, connects to all
//! of them at once, and reports per server: one failing server never hides the others.

pub mod ls;
mod progress;
pub mod read;

use std::path::Path;

use futures::future::join_all;

use crate::cli::ServerArgs;
use crate::mcp::log::ServerLog;
use crate::mcp::{ConnectOptions, Connection, McpError, ServerSpec, TransportSpec};

/// How a command ended, as a process exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    ServerFailed = 1,
    Usage = 2,
    NotFound = 3,
}

/// One server of this run: its definition, its log, and the connection or why it failed.
pub struct Session {
    pub spec: ServerSpec,
    pub log: ServerLog,
    pub connection: Result<Connection, McpError>,
}

impl Session {
    /// The error line for a person, naming the server.
    pub fn describe_error(&self, error: &McpError) -> String {
        let detail = match &self.connection {
            Ok(connection) => connection.explain(error),
            Err(_) => error.to_string(),
        };
        format!(
            "server `{}`: {detail}",
            crate::sanitize::line(&self.spec.name, 200)
        )
    }
}

/// The servers named by the arguments: the ad-hoc ones, or the built-in demo.
pub fn select_servers(args: &ServerArgs) -> Result<Vec<ServerSpec>, String> {
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
        let parsed =
            url::Url::parse(url).map_err(|e| format!("`{url}` is not a valid URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!("`{url}` is not an http:// or https:// URL"));
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
    if args.demo || specs.is_empty() {
        specs.push(demo_spec()?);
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

/// Connects to every server at once.
pub async fn connect_all(specs: Vec<ServerSpec>, options: &ConnectOptions) -> Vec<Session> {
    join_all(specs.into_iter().map(|spec| async move {
        let log = ServerLog::new(options.log_lines);
        let connection = Connection::connect(&spec, options, log.clone()).await;
        Session {
            spec,
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

    #[test]
    fn demo_is_the_default() {
        let specs = select_servers(&ServerArgs::default()).unwrap();
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].name, "demo");
    }

    #[test]
    fn url_and_command_together() {
        let a = ServerArgs {
            url: Some("http://127.0.0.1:9/mcp".into()),
            command: args(&["node", "server.js"]),
            ..Default::default()
        };
        let specs = select_servers(&a).unwrap();
        let names: Vec<_> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["server", "127.0.0.1"]);
        assert!(
            select_servers(&ServerArgs {
                url: Some("ftp://x".into()),
                ..Default::default()
            })
            .is_err()
        );
    }
}
