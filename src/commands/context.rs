//! What the context-set commands share: the `--set` file, which servers to talk to (the
//! command line, else the servers the set refers to, else every defined server), and the
//! listing they resolve against.
//!
//! Server definitions in a set are a fallback: a server of the same name defined in a config
//! file (see `mcpick servers`) is used in its place, since that one holds the person's own
//! secrets. A set's definition is expanded (`${VAR}` from the environment) only to connect;
//! the set file keeps it as written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use futures::future::join_all;

use super::{Exit, Selected, Session, select_from};
use crate::catalog::Catalogue;
use crate::cli::ServerArgs;
use crate::config::{self, Config, Locations, Vars, expand};
use crate::context::{ContextSet, DEFAULT_FILE};
use crate::mcp::{ListOptions, ServerSpec, TransportSpec};
use crate::sanitize;

/// `--set FILE`, shared by every context-set command.
#[derive(Debug, Args, Clone)]
pub struct SetArgs {
    /// The context-set file (created on the first change).
    #[arg(long = "set", value_name = "FILE", default_value = DEFAULT_FILE)]
    pub path: PathBuf,
}

/// Loads the set; a corrupt or newer file is reported and the command stops (status 2),
/// leaving the file as it is.
pub fn load_set(args: &SetArgs) -> Result<ContextSet, Exit> {
    ContextSet::load(&args.path).map_err(|e| {
        eprintln!("mcpick: {}", sanitize::line(&e.to_string(), 2000));
        Exit::Usage
    })
}

pub fn save_set(set: &ContextSet, args: &SetArgs) -> Result<(), Exit> {
    set.save(&args.path).map_err(|e| {
        eprintln!("mcpick: {e}");
        Exit::ServerFailed
    })
}

/// One server chosen for a context command, with the definition the set records for it.
pub struct Chosen {
    pub selected: Selected,
    /// The definition as written (placeholders kept, other secret values masked).
    pub shown: TransportSpec,
}

/// True when the command line names servers (`--server`, `--demo`, `--url`, `-- CMD`).
pub fn names_servers(args: &ServerArgs) -> bool {
    !args.servers.is_empty() || args.demo || args.url.is_some() || !args.command.is_empty()
}

/// The servers of a context command: those the command line names (a `--server` name may
/// also come from the set), else the set's servers, else every defined server (or the demo).
pub fn choose(args: &ServerArgs, set: &ContextSet) -> Result<Vec<Chosen>, String> {
    let needs_config = !args.servers.is_empty() || !names_servers(args);
    let config = if needs_config {
        let config = config::load_system(args.config.file.as_deref());
        for error in config.file_errors() {
            eprintln!("mcpick: warning: {}", sanitize::line(error, 2000));
        }
        config
    } else {
        Config::default()
    };
    let mut chosen = Vec::new();
    if !names_servers(args) && !set.servers.is_empty() {
        for (name, written) in &set.servers {
            chosen.push(by_name(name, &config, Some(written))?);
        }
        return Ok(chosen);
    }
    for name in &args.servers {
        if chosen
            .iter()
            .any(|c: &Chosen| &c.selected.spec.name == name)
        {
            continue;
        }
        chosen.push(by_name(name, &config, set.servers.get(name))?);
    }
    let adhoc = args.demo || args.url.is_some() || !args.command.is_empty();
    if adhoc {
        let only_adhoc = ServerArgs {
            servers: Vec::new(),
            ..args.clone()
        };
        for selected in select_from(&only_adhoc, &Config::default())? {
            let shown = written_form(&selected.spec.transport);
            chosen.push(Chosen { selected, shown });
        }
    }
    if chosen.is_empty() {
        for selected in select_from(args, &config)? {
            let shown = config
                .get(&selected.spec.name)
                .and_then(|k| k.definition.shown.clone())
                .unwrap_or_else(|| written_form(&selected.spec.transport));
            chosen.push(Chosen { selected, shown });
        }
    }
    Ok(chosen)
}

/// A named server: its config definition, else the set's.
fn by_name(name: &str, config: &Config, written: Option<&TransportSpec>) -> Result<Chosen, String> {
    if let Some(known) = config.get(name) {
        let args = ServerArgs {
            servers: vec![name.to_string()],
            ..Default::default()
        };
        let selected = select_from(&args, config)?.remove(0);
        let shown = known
            .definition
            .shown
            .clone()
            .unwrap_or_else(|| written_form(&selected.spec.transport));
        return Ok(Chosen { selected, shown });
    }
    let Some(written) = written else {
        // The usual "no server named …; known servers: …" message.
        let args = ServerArgs {
            servers: vec![name.to_string()],
            ..Default::default()
        };
        return Err(select_from(&args, config)
            .err()
            .unwrap_or_else(|| format!("no server named `{name}`")));
    };
    let selected = match expand_written(name, written) {
        Ok(spec) => Selected { spec, error: None },
        Err(error) => Selected {
            spec: ServerSpec {
                name: name.to_string(),
                transport: written.clone(),
            },
            error: Some(format!("the context set's definition of `{name}`: {error}")),
        },
    };
    Ok(Chosen {
        selected,
        shown: written.clone(),
    })
}

/// The running mcpick binary is recorded as plain `mcpick`, so a set that uses the demo
/// server works on another machine.
const SELF_COMMAND: &str = "mcpick";

/// The form a set records for a definition given on the command line: env and header values
/// as written when they hold a placeholder, else masked; the mcpick binary as `mcpick`.
pub fn written_form(transport: &TransportSpec) -> TransportSpec {
    let masked = |map: &BTreeMap<String, String>| {
        map.iter()
            .map(|(k, v)| (k.clone(), expand::shown_secret(v)))
            .collect()
    };
    match transport {
        TransportSpec::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let is_self = std::env::current_exe()
                .ok()
                .is_some_and(|exe| Path::new(command) == exe);
            TransportSpec::Stdio {
                command: if is_self {
                    SELF_COMMAND.to_string()
                } else {
                    command.clone()
                },
                args: args.clone(),
                env: masked(env),
                cwd: cwd.clone(),
            }
        }
        TransportSpec::Http { url, headers } => TransportSpec::Http {
            url: url.clone(),
            headers: masked(headers),
        },
        TransportSpec::Sse { url, headers } => TransportSpec::Sse {
            url: url.clone(),
            headers: masked(headers),
        },
    }
}

/// Expands a set's definition for connecting: placeholders from the environment, `mcpick`
/// as the running binary.
fn expand_written(name: &str, written: &TransportSpec) -> Result<ServerSpec, String> {
    let locations = Locations::system();
    let env = |n: &str| std::env::var_os(n).map(|v| v.to_string_lossy().into_owned());
    let vars = Vars {
        env: &env,
        workspace: &locations.cwd,
        home: locations.home.as_deref(),
    };
    let x = |s: &str| expand::expand(s, &vars, None);
    let map = |m: &BTreeMap<String, String>| -> Result<BTreeMap<String, String>, String> {
        m.iter()
            .map(|(k, v)| {
                if v.contains('…') || v == "****" {
                    Err(format!(
                        "`{k}` was masked when the set was saved; define `{name}` in a config file"
                    ))
                } else {
                    Ok((k.clone(), x(v)?))
                }
            })
            .collect()
    };
    let transport = match written {
        TransportSpec::Stdio {
            command,
            args,
            env,
            cwd,
        } => TransportSpec::Stdio {
            command: if command == SELF_COMMAND {
                std::env::current_exe()
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| command.clone())
            } else {
                x(command)?
            },
            args: args.iter().map(|a| x(a)).collect::<Result<_, _>>()?,
            env: map(env)?,
            cwd: match cwd {
                Some(c) => Some(PathBuf::from(x(&c.to_string_lossy())?)),
                None => None,
            },
        },
        TransportSpec::Http { url, headers } => TransportSpec::Http {
            url: x(url)?,
            headers: map(headers)?,
        },
        TransportSpec::Sse { url, headers } => TransportSpec::Sse {
            url: x(url)?,
            headers: map(headers)?,
        },
    };
    Ok(ServerSpec {
        name: name.to_string(),
        transport,
    })
}

/// The catalogue of every session, and the servers whose listing completed. Failures are
/// reported on stderr and returned as `true`.
pub async fn list_all(sessions: &[Session], cap: usize) -> (Catalogue, Vec<String>, bool) {
    let options = ListOptions { cap };
    let listed = join_all(sessions.iter().map(|session| {
        let options = &options;
        async move {
            let connection = match &session.connection {
                Ok(c) => c,
                Err(e) => return Err(session.describe_error(e)),
            };
            let mut resources = Vec::new();
            connection
                .list_resources(options, |page| resources.extend_from_slice(page.items))
                .await
                .map(|outcome| (resources, outcome.warnings))
                .map_err(|e| session.describe_error(&e))
        }
    }))
    .await;
    let mut catalogue = Catalogue::new();
    let mut complete = Vec::new();
    let mut failed = false;
    for (session, result) in sessions.iter().zip(listed) {
        let id = catalogue.server(&session.spec.name);
        match result {
            Ok((resources, warnings)) => {
                let duplicates = catalogue.append(id, resources.iter()).duplicates.len();
                super::ls::report_warnings(
                    &session.spec.name,
                    &[],
                    warnings + duplicates,
                    0,
                    "`mcpick ls --json` with the same servers lists them (servers[].warnings)",
                );
                complete.push(session.spec.name.clone());
            }
            Err(message) => {
                failed = true;
                eprintln!("mcpick: {}", sanitize::line(&message, 2000));
            }
        }
    }
    (catalogue, complete, failed)
}

/// Server names for messages.
pub fn shown_name(name: &str) -> String {
    sanitize::line(name, 200)
}
