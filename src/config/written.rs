//! The form a context set records for a server definition, and back. A set is meant to be
//! committed, so it never holds a credential: [`written_form`] masks literal secrets and
//! keeps placeholders; [`expand_written`] turns a recorded form into a definition to connect
//! with, refusing values that were masked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::kept::Fields;
use super::{Places, Vars, expand};
use crate::mcp::{ServerSpec, TransportSpec};
use crate::{redact, sanitize};

/// The running mcpick binary is recorded as plain `mcpick`, so a set that uses the demo
/// server works on another machine.
pub const SELF_COMMAND: &str = "mcpick";

/// The form a set records for a definition given on the command line: env and header values
/// as written when they hold a placeholder, else masked whole; the URL without userinfo,
/// query values and fragment; literal secrets in arguments masked (see [`crate::redact`]);
/// the mcpick binary as `mcpick`.
pub fn written_form(transport: &TransportSpec) -> TransportSpec {
    let mut written = masked_form(transport);
    if let TransportSpec::Stdio { command, .. } = &mut written
        && std::env::current_exe().is_ok_and(|exe| Path::new(command) == exe)
    {
        *command = SELF_COMMAND.to_string();
    }
    written
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

/// Expands a set's definition for connecting: placeholders from the environment, `mcpick`
/// as the running binary, and a masked field put back from `kept` (this user's own value,
/// see [`super::kept`], used as typed, never expanded). A masked field with no kept value is
/// refused, with how to write it so the set works anywhere.
pub fn expand_written(
    name: &str,
    written: &TransportSpec,
    kept: &Fields,
) -> Result<ServerSpec, String> {
    let places = Places::system();
    let env = |n: &str| std::env::var_os(n).map(|v| v.to_string_lossy().into_owned());
    let vars = Vars {
        env: &env,
        workspace: &places.project,
        home: places.home.as_deref(),
    };
    // A value masked when the set was saved cannot be used unless this user kept it.
    let masked = |field: &str, s: &str| match kept.get(field) {
        Some(typed) => Ok(typed.clone()),
        None => Err(not_kept(name, field, s)),
    };
    let x = |field: &str, s: &str| {
        if redact::is_masked(s) {
            return masked(field, s);
        }
        expand::expand(s, &vars, None)
    };
    // Env and header values are masked whole; older sets wrote `****` or a cut `ab…`.
    let map =
        |what: &str, m: &BTreeMap<String, String>| -> Result<BTreeMap<String, String>, String> {
            m.iter()
                .map(|(k, v)| {
                    let field = format!("{what}.{k}");
                    let value = if v.contains('…') || v == "****" {
                        masked(&field, v)?
                    } else {
                        x(&field, v)?
                    };
                    Ok((k.clone(), value))
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
                x("command", command)?
            },
            args: args
                .iter()
                .enumerate()
                .map(|(i, a)| x(&format!("arg.{i}"), a))
                .collect::<Result<_, _>>()?,
            env: map("env", env)?,
            cwd: match cwd {
                Some(c) => Some(PathBuf::from(x("cwd", &c.to_string_lossy())?)),
                None => None,
            },
        },
        TransportSpec::Http { url, headers } => TransportSpec::Http {
            url: x("url", url)?,
            headers: map("header", headers)?,
        },
        TransportSpec::Sse { url, headers } => TransportSpec::Sse {
            url: x("url", url)?,
            headers: map("header", headers)?,
        },
    };
    Ok(ServerSpec {
        name: name.to_string(),
        transport,
    })
}

/// Why a masked field cannot be used here, and the `${VAR}` form that works on any machine.
fn not_kept(name: &str, field: &str, shown: &str) -> String {
    let what = match field.split_once('.') {
        Some(("arg", i)) => format!(
            "argument {} (`{}`)",
            i.parse::<usize>().map_or(0, |i| i + 1),
            sanitize::line(shown, 200)
        ),
        Some((kind, key)) => format!("{kind} `{}`", sanitize::line(key, 100)),
        None => format!("`{}`", sanitize::line(shown, 200)),
    };
    format!(
        "{what} was masked when the set was saved and its secret is not kept on this machine: write it in the set as `${{VAR}}` with VAR set in the environment (e.g. `user:${{DB_PASSWORD}}@`), or define `{name}` in a config file"
    )
}

/// The environment variables a set's definition reads (`${VAR}`), each once, in order.
pub fn variables(written: &TransportSpec) -> Vec<String> {
    let texts: Vec<&str> = match written {
        TransportSpec::Stdio {
            command, args, env, ..
        } => std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .chain(env.values().map(String::as_str))
            .collect(),
        TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers } => {
            std::iter::once(url.as_str())
                .chain(headers.values().map(String::as_str))
                .collect()
        }
    };
    let mut names: Vec<String> = Vec::new();
    for name in texts.into_iter().flat_map(expand::variables) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Definitions with every kind of literal secret, for the tests of what a set records.
#[cfg(test)]
pub(crate) mod fixtures {
    use crate::mcp::TransportSpec;

    /// Userinfo and query values in the URL, a literal header and a placeholder header.
    pub fn http_with_secrets() -> TransportSpec {
        TransportSpec::Http {
            url: "https://me:pw@h/mcp?token=abc&mode=x".into(),
            headers: [
                ("X-Key".to_string(), "literal-value".to_string()),
                ("X-Env".to_string(), "${FROM_ENV}".to_string()),
            ]
            .into(),
        }
    }

    /// Secret arguments (`--api-key=…`, `--token …`) and a literal env value.
    pub fn stdio_with_secrets() -> TransportSpec {
        TransportSpec::Stdio {
            command: "srv".into(),
            args: ["--api-key=k1", "--token", "k2", "--port", "80"]
                .map(String::from)
                .to_vec(),
            env: [("TOKEN".to_string(), "v".to_string())].into(),
            cwd: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{http_with_secrets, stdio_with_secrets};
    use super::*;

    #[test]
    fn a_set_records_no_credential() {
        let http = http_with_secrets();
        assert_eq!(
            written_form(&http),
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
        assert_eq!(masked_parts(&stdio_with_secrets()).len(), 3);
        // Nothing to mask, nothing to say.
        let plain = TransportSpec::Http {
            url: "https://h/mcp".into(),
            headers: Default::default(),
        };
        assert!(masked_parts(&plain).is_empty());
    }

    #[test]
    fn the_running_binary_is_recorded_as_mcpick() {
        let exe = std::env::current_exe().unwrap();
        let stdio = TransportSpec::Stdio {
            command: exe.to_string_lossy().into_owned(),
            args: vec!["demo-server".into()],
            env: Default::default(),
            cwd: None,
        };
        let TransportSpec::Stdio { command, .. } = written_form(&stdio) else {
            panic!("stdio stays stdio")
        };
        assert_eq!(command, SELF_COMMAND);
        let TransportSpec::Stdio { command, .. } = written_form(&stdio_with_secrets()) else {
            panic!("stdio stays stdio")
        };
        assert_eq!(command, "srv");
    }

    #[test]
    fn the_variables_a_definition_reads_are_named_once() {
        let written = TransportSpec::Stdio {
            command: "db".into(),
            args: [
                "postgres://u:${DB_PASSWORD}@h/${DB}",
                "${env:DB_PASSWORD}",
                "${X:-1}",
                // A host's own variable, filled in by mcpick: not the environment's.
                "--root=${workspaceFolder}/db",
                "${userHome}",
            ]
            .map(String::from)
            .to_vec(),
            env: [("T".to_string(), "Bearer ${TOKEN}".to_string())].into(),
            cwd: None,
        };
        assert_eq!(variables(&written), ["DB_PASSWORD", "DB", "TOKEN"]);
    }

    #[test]
    fn a_masked_value_in_a_set_is_refused_not_dialled() {
        let written = TransportSpec::Http {
            url: "https://h/mcp?token=***".into(),
            headers: Default::default(),
        };
        let error = expand_written("remote", &written, &Fields::new()).unwrap_err();
        assert!(error.contains("masked when the set was saved"), "{error}");
    }
}
