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

use super::{Exit, Selected, Session, report, select_from};
use crate::catalog::Catalogue;
use crate::cli::ServerArgs;
use crate::config::{self, Config, Locations, Vars, expand};
use crate::context::relative::{from_set_relative, to_set_relative};
use crate::context::{ContextSet, DEFAULT_FILE, SetError};
use crate::mcp::{ListOptions, ServerSpec, TransportSpec};
use crate::{redact, sanitize};

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
        report(&sanitize::line(&e.to_string(), 2000));
        Exit::Usage
    })
}

/// Changes the set on disk under its lock ([`ContextSet::update`]): `change` is applied to
/// the file as it is now, so marks another process saved meanwhile are kept. A failed save
/// is reported and the command stops with status 1 (nothing is lost silently); a corrupt or
/// newer file with status 2.
pub fn update_set<R>(
    args: &SetArgs,
    change: impl FnOnce(&mut ContextSet) -> R,
) -> Result<(ContextSet, R), Exit> {
    ContextSet::update(&args.path, change).map_err(|e| {
        report(&e.to_string());
        match e {
            SetError::Corrupt { .. } | SetError::Newer { .. } => Exit::Usage,
            _ => Exit::ServerFailed,
        }
    })
}

/// One server chosen for a context command, with the definition the set records for it.
pub struct Chosen {
    pub selected: Selected,
    /// The definition as written (placeholders kept, other secret values masked).
    pub shown: TransportSpec,
    /// What masking took out of an ad-hoc definition (see [`masked_parts`]); empty for one
    /// from a config file or a set.
    pub masked: Vec<String>,
}

impl Chosen {
    /// An ad-hoc server: recorded in its [`written_form`], messages name it masked.
    fn adhoc(mut selected: Selected) -> Self {
        let shown = written_form(&selected.spec.transport);
        let masked = masked_parts(&selected.spec.transport);
        selected.shown = Some(shown.clone());
        Chosen {
            selected,
            shown,
            masked,
        }
    }

    /// A server whose recorded form is `shown`, already free of literal secrets.
    fn written(mut selected: Selected, shown: TransportSpec) -> Self {
        selected.shown = Some(shown.clone());
        Chosen {
            selected,
            shown,
            masked: Vec::new(),
        }
    }
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
    let folder = set.folder.as_deref();
    let mut chosen = Vec::new();
    if !names_servers(args) && !set.servers.is_empty() {
        for (name, written) in &set.servers {
            chosen.push(by_name(name, &config, Some(written), folder)?);
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
        chosen.push(by_name(name, &config, set.servers.get(name), folder)?);
    }
    let adhoc = args.demo || args.url.is_some() || !args.command.is_empty();
    if adhoc {
        let only_adhoc = ServerArgs {
            servers: Vec::new(),
            ..args.clone()
        };
        let cwd = std::env::current_dir().ok();
        for selected in select_from(&only_adhoc, &Config::default())? {
            let mut chosen_one = Chosen::adhoc(selected);
            // Relative paths on the command line are relative to here; the set stores them
            // relative to its own folder (see `context::relative`).
            if let (Some(cwd), Some(folder)) = (&cwd, folder) {
                chosen_one.shown = to_set_relative(&chosen_one.shown, cwd, folder);
            }
            chosen.push(chosen_one);
        }
    }
    if chosen.is_empty() {
        for selected in select_from(args, &config)? {
            match config
                .get(&selected.spec.name)
                .and_then(|k| k.definition.shown.clone())
            {
                Some(shown) => chosen.push(Chosen::written(selected, shown)),
                None => chosen.push(Chosen::adhoc(selected)),
            }
        }
    }
    Ok(chosen)
}

/// A named server: its config definition, else the set's (its relative paths resolved
/// against the set's `folder`).
fn by_name(
    name: &str,
    config: &Config,
    written: Option<&TransportSpec>,
    folder: Option<&Path>,
) -> Result<Chosen, String> {
    if let Some(known) = config.get(name) {
        let args = ServerArgs {
            servers: vec![name.to_string()],
            ..Default::default()
        };
        let selected = select_from(&args, config)?.remove(0);
        return Ok(match known.definition.shown.clone() {
            Some(shown) => Chosen::written(selected, shown),
            None => Chosen::adhoc(selected),
        });
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
        Ok(mut spec) => {
            if let Some(folder) = folder {
                spec.transport = from_set_relative(&spec.transport, folder);
            }
            Selected {
                spec,
                error: None,
                shown: None,
            }
        }
        Err(error) => Selected {
            spec: ServerSpec {
                name: name.to_string(),
                transport: written.clone(),
            },
            error: Some(format!("the context set's definition of `{name}`: {error}")),
            shown: None,
        },
    };
    // The set holds the definition as written; clean it again in case the file was edited
    // by hand (a literal secret in a set is not shown either).
    Ok(Chosen::written(selected, masked_form(written)))
}

/// The running mcpick binary is recorded as plain `mcpick`, so a set that uses the demo
/// server works on another machine.
const SELF_COMMAND: &str = "mcpick";

/// The form a set records for a definition given on the command line: env and header values
/// as written when they hold a placeholder, else masked whole; the URL without userinfo,
/// query values and fragment; literal secrets in arguments masked (see [`crate::redact`]);
/// the mcpick binary as `mcpick`. A set is meant to be committed: it never holds a credential.
pub fn written_form(transport: &TransportSpec) -> TransportSpec {
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
            masked_form(&TransportSpec::Stdio {
                command: if is_self {
                    SELF_COMMAND.to_string()
                } else {
                    command.clone()
                },
                args: args.clone(),
                env: env.clone(),
                cwd: cwd.clone(),
            })
        }
        other => masked_form(other),
    }
}

/// `transport` without literal secrets: env and header values masked whole unless they hold
/// a placeholder, the URL and arguments masked by [`crate::redact`].
pub fn masked_form(transport: &TransportSpec) -> TransportSpec {
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
        } => TransportSpec::Stdio {
            command: command.clone(),
            args: redact::args(args),
            env: masked(env),
            cwd: cwd.clone(),
        },
        TransportSpec::Http { url, headers } => TransportSpec::Http {
            url: redact::url(url),
            headers: masked(headers),
        },
        TransportSpec::Sse { url, headers } => TransportSpec::Sse {
            url: redact::url(url),
            headers: masked(headers),
        },
    }
}

/// What [`written_form`] takes out of `transport`, one phrase per value, for telling the
/// person (never the values themselves).
pub fn masked_parts(transport: &TransportSpec) -> Vec<String> {
    let mut parts = Vec::new();
    let values = |what: &str, map: &BTreeMap<String, String>| {
        map.iter()
            .filter(|(_, value)| redact::value(value) != **value)
            .map(|(name, _)| format!("{what} `{}`", sanitize::line(name, 100)))
            .collect::<Vec<_>>()
    };
    match transport {
        TransportSpec::Stdio { args, env, .. } => {
            parts.extend(values("env", env));
            for (i, (raw, shown)) in args.iter().zip(redact::args(args)).enumerate() {
                if *raw != shown {
                    parts.push(format!(
                        "argument {} (recorded as `{}`)",
                        i + 1,
                        sanitize::line(&shown, 200)
                    ));
                }
            }
        }
        TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers } => {
            let shown = redact::url(url);
            if shown != *url {
                parts.push(format!(
                    "the URL's credentials (recorded as `{}`)",
                    sanitize::line(&shown, 500)
                ));
            }
            parts.extend(values("header", headers));
        }
    }
    parts
}

/// Tells the person what a set records without its credentials, and how to define the
/// server in a config file with `${VAR}` placeholders instead, so the set can be used.
pub fn report_masked(chosen: &Chosen) {
    if chosen.masked.is_empty() {
        return;
    }
    let name = sanitize::line(&chosen.selected.spec.name, 200);
    report(&format!(
        "note: the set records server `{name}` without its credentials: masked {}.\n  \
         To use the set elsewhere, define `{name}` in a config file with placeholders \
         for the secrets, e.g. in mcpick.toml:\n{}",
        chosen.masked.join(", "),
        toml_example(&name, &chosen.shown)
    ));
}

/// An mcpick.toml entry for `shown` with `${NAME}` placeholders where values were masked.
fn toml_example(name: &str, shown: &TransportSpec) -> String {
    let key = |s: &str| toml_key(s);
    let var = |s: &str| {
        let v: String = s
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .collect();
        format!("${{{}}}", v.trim_matches('_'))
    };
    // A JSON string is a valid TOML basic string.
    let quoted = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let map = |m: &BTreeMap<String, String>| {
        let items: Vec<String> = m
            .iter()
            .map(|(k, v)| {
                let v = if redact::is_masked(v) {
                    var(k)
                } else {
                    v.clone()
                };
                format!("{} = {}", key(k), quoted(&v))
            })
            .collect();
        format!("{{ {} }}", items.join(", "))
    };
    let mut lines = vec![format!("    [servers.{}]", key(name))];
    match shown {
        TransportSpec::Stdio {
            command, args, env, ..
        } => {
            lines.push(format!("    command = {}", quoted(command)));
            let mut n = 0;
            let args: Vec<String> = args
                .iter()
                .map(|a| {
                    let a = if redact::is_masked(a) {
                        // `--api-key=***` → `--api-key=${API_KEY}`, else `${SECRET_n}`.
                        let named = a
                            .split_once(['=', ':'])
                            .map(|(k, _)| k.trim_start_matches('-'))
                            .filter(|k| !k.is_empty() && !k.contains(redact::MASK));
                        let placeholder = match named {
                            Some(k) => var(k),
                            None => {
                                n += 1;
                                format!("${{SECRET_{n}}}")
                            }
                        };
                        a.replace(redact::MASK, &placeholder)
                    } else {
                        a.clone()
                    };
                    quoted(&a)
                })
                .collect();
            lines.push(format!("    args = [{}]", args.join(", ")));
            if !env.is_empty() {
                lines.push(format!("    env = {}", map(env)));
            }
        }
        TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers } => {
            let url = url
                .split_inclusive(['?', '&', '#'])
                .map(|part| match part.split_once('=') {
                    Some((k, rest)) if rest.starts_with(redact::MASK) => {
                        format!("{k}={}{}", var(k), &rest[redact::MASK.len()..])
                    }
                    _ => part.replace(
                        &format!("{}@", redact::MASK),
                        "${URL_USER}:${URL_PASSWORD}@",
                    ),
                })
                .collect::<String>();
            lines.push(format!("    url = {}", quoted(&url)));
            if !headers.is_empty() {
                lines.push(format!("    headers = {}", map(headers)));
            }
            if matches!(shown, TransportSpec::Sse { .. }) {
                lines.push("    type = \"sse\"".into());
            }
        }
    }
    lines.join("\n")
}

/// A TOML key: bare when it can be, quoted otherwise.
fn toml_key(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        s.to_string()
    } else {
        serde_json::Value::String(s.to_string()).to_string()
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
    // A value masked when the set was saved cannot be used; the person's config can.
    let x = |s: &str| {
        if redact::is_masked(s) {
            return Err(format!(
                "`{}` was masked when the set was saved; define `{name}` in a config file",
                sanitize::line(s, 200)
            ));
        }
        expand::expand(s, &vars, None)
    };
    let map = |m: &BTreeMap<String, String>| -> Result<BTreeMap<String, String>, String> {
        m.iter()
            .map(|(k, v)| {
                if v.contains('…') || v == "****" || redact::is_masked(v) {
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

/// The catalogue of every session, the servers whose listing completed, and the servers that
/// could not be listed with why (also reported on stderr).
pub async fn list_all(
    sessions: &[Session],
    cap: usize,
) -> (Catalogue, Vec<String>, Vec<(String, String)>) {
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
    let mut failed = Vec::new();
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
                report(&message);
                failed.push((session.spec.name.clone(), message));
            }
        }
    }
    (catalogue, complete, failed)
}

/// Server names for messages.
pub fn shown_name(name: &str) -> String {
    sanitize::line(name, 200)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_set_records_no_credential_and_the_example_uses_placeholders() {
        let http = TransportSpec::Http {
            url: "https://me:pw@h/mcp?token=abc&mode=x".into(),
            headers: [
                ("X-Key".to_string(), "literal-value".to_string()),
                ("X-Env".to_string(), "${FROM_ENV}".to_string()),
            ]
            .into(),
        };
        let written = written_form(&http);
        assert_eq!(
            written,
            TransportSpec::Http {
                url: "https://***@h/mcp?token=***&mode=***".into(),
                headers: [
                    ("X-Key".to_string(), "***".to_string()),
                    ("X-Env".to_string(), "${FROM_ENV}".to_string()),
                ]
                .into(),
            }
        );
        let parts = masked_parts(&http);
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert!(parts[1].contains("header `X-Key`"), "{parts:?}");
        let example = toml_example("remote", &written);
        assert!(
            example.contains(
                r#"url = "https://${URL_USER}:${URL_PASSWORD}@h/mcp?token=${TOKEN}&mode=${MODE}""#
            ),
            "{example}"
        );
        assert!(
            example.contains(r#"headers = { X-Env = "${FROM_ENV}", X-Key = "${X_KEY}" }"#),
            "{example}"
        );

        let stdio = TransportSpec::Stdio {
            command: "srv".into(),
            args: strings(&["--api-key=k1", "--token", "k2", "--port", "80"]),
            env: [("TOKEN".to_string(), "v".to_string())].into(),
            cwd: None,
        };
        let written = written_form(&stdio);
        let example = toml_example("srv", &written);
        assert!(
            example.contains(
                r#"args = ["--api-key=${API_KEY}", "--token", "${SECRET_1}", "--port", "80"]"#
            ),
            "{example}"
        );
        assert!(
            example.contains(r#"env = { TOKEN = "${TOKEN}" }"#),
            "{example}"
        );
        assert_eq!(masked_parts(&stdio).len(), 3);
        // Nothing to mask, nothing to say.
        let plain = TransportSpec::Http {
            url: "https://h/mcp".into(),
            headers: Default::default(),
        };
        assert!(masked_parts(&plain).is_empty());
    }

    #[test]
    fn a_masked_value_in_a_set_is_refused_not_dialled() {
        let written = TransportSpec::Http {
            url: "https://h/mcp?token=***".into(),
            headers: Default::default(),
        };
        let error = expand_written("remote", &written).unwrap_err();
        assert!(error.contains("masked when the set was saved"), "{error}");
    }
}
