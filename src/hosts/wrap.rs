//! `mcpick wrap`: a host's own entry NAME, rewritten so the host starts `mcpick wrap-serve` in
//! front of the original definition, under the same name. Pure planning on the text, through
//! the same [`Doc`] editor `install` uses; the caller commits with [`super::install::commit`].
//!
//! The original is kept in a side record next to the host file (`FILE.mcpick-wrap.json`),
//! never in the new entry's arguments (which every local user can read in the process list,
//! and the original's `env` may hold secrets). The record holds the original entry as JSON
//! (what the proxy starts) and the lines of the file the wrap replaced and wrote: `unwrap`
//! puts the replaced lines back where the written ones are, so the file comes back byte for
//! byte, also when other entries changed meanwhile.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::doc::Doc;
use super::{Dialect, Launch};

/// The suffix of the side record kept next to a host file.
pub const RECORD_SUFFIX: &str = ".mcpick-wrap.json";

/// The subcommand a wrapped entry runs.
pub const PROXY_COMMAND: &str = "wrap-serve";

/// Every wrapped entry of one host file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub version: u32,
    #[serde(default)]
    pub entries: BTreeMap<String, Wrapped>,
}

/// One wrapped entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wrapped {
    /// The host (`claude-code`, …): the dialect the original entry is read with.
    pub host: String,
    /// The original entry, as the host file had it.
    pub original: Value,
    /// The whole lines of the file the wrap replaced …
    pub replaced: String,
    /// … and the lines it wrote in their place.
    pub written: String,
}

/// The side record of a host file.
pub fn record_path(host_file: &Path) -> PathBuf {
    let mut name = host_file.file_name().unwrap_or_default().to_os_string();
    name.push(RECORD_SUFFIX);
    host_file.with_file_name(name)
}

/// True when `entry` is one `wrap` wrote: `mcpick wrap-serve …`.
pub fn is_wrapped(entry: &Value) -> bool {
    super::runs_mcpick(entry, PROXY_COMMAND)
}

/// Why a wrap or an unwrap was not made.
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    Unreadable(String),
    /// No entry of that name; the names the file has.
    Missing {
        name: String,
        names: Vec<String>,
    },
    /// The entry is a transport the proxy does not carry yet.
    Transport(String),
    /// `unwrap` of an entry `wrap` did not write (or that was edited since).
    NotWrapped(String),
}

/// What a wrap does.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Already wrapped, as `launch` says.
    Unchanged,
    /// Already wrapped, with other arguments (another `--expose` or `--set`): the caller
    /// unwraps it ([`plan_unwrap`]) and wraps the result, so the record keeps the original.
    Rewrap,
    Change {
        text: String,
        wrapped: Wrapped,
    },
}

/// Wraps entry `name` of the text `before` so it runs `launch` (the caller's
/// `mcpick wrap-serve …`).
pub fn plan_wrap(
    dialect: &Dialect,
    before: Option<&str>,
    name: &str,
    launch: &Launch,
) -> Result<Plan, Refused> {
    let before = before.unwrap_or("");
    let mut doc = Doc::parse(dialect.format, before).map_err(Refused::Unreadable)?;
    let entries = doc
        .entries(dialect.servers_key)
        .map_err(Refused::Unreadable)?;
    let Some(original) = entries.get(name).cloned() else {
        return Err(Refused::Missing {
            name: name.to_string(),
            names: entries.keys().cloned().collect(),
        });
    };
    if is_wrapped(&original) {
        return Ok(if entry(dialect, launch, &original) == original {
            Plan::Unchanged
        } else {
            Plan::Rewrap
        });
    }
    let fields = (dialect.read)(&original)
        .ok_or_else(|| Refused::Transport("an entry mcpick cannot start".into()))?;
    let kind = fields.get("type").and_then(Value::as_str);
    let carried = match kind {
        None => fields.get("command").is_some() || fields.get("url").is_some(),
        Some(kind) => matches!(
            kind,
            "stdio" | "sse" | "http" | "streamable-http" | "streamableHttp" | "streamable_http"
        ),
    };
    if !carried {
        return Err(Refused::Transport(format!(
            "of a transport mcpick does not know ({})",
            Value::String(kind.unwrap_or_default().chars().take(40).collect())
        )));
    }
    // Claude Code runs this command for each connection's headers; mcpick does not, so the
    // upstream would get none (and answer 401 at the first request).
    if original.get("headersHelper").is_some() {
        return Err(Refused::Transport(
            "an HTTP entry whose headers come from a `headersHelper` command, which mcpick \
             does not run"
                .into(),
        ));
    }
    doc.set(
        dialect.servers_key,
        name,
        &entry(dialect, launch, &original),
    )
    .map_err(Refused::Unreadable)?;
    let text = doc.text();
    let (replaced, written) = changed_lines(before, &text);
    Ok(Plan::Change {
        wrapped: Wrapped {
            host: dialect.name.to_string(),
            original,
            replaced: replaced.to_string(),
            written: written.to_string(),
        },
        text,
    })
}

/// The fields that say what a server runs or connects to, in every dialect (Gemini's
/// `httpUrl`, Windsurf's `serverUrl`, Codex's header and token fields, Claude Code's HTTP
/// sign-in settings): the wrapped entry's own, never the original's.
const LAUNCH_FIELDS: &[&str] = &[
    "type",
    "command",
    "args",
    "env",
    "environment",
    "cwd",
    "url",
    "httpUrl",
    "serverUrl",
    "headers",
    "http_headers",
    "env_http_headers",
    "bearer_token_env_var",
    "headersHelper",
    "oauth",
];

/// The wrapped entry: the dialect's entry for `launch`, with the host's own settings of the
/// original (Gemini's `trust` and `includeTools`, a `timeout`, `disabled`, …) kept as they
/// were, and none added that the original did not have: wrapping changes what runs, never
/// what the host allows the server.
fn entry(dialect: &Dialect, launch: &Launch, original: &Value) -> Value {
    let mut entry = (dialect.entry)(launch);
    if let (Some(fields), Some(original)) = (entry.as_object_mut(), original.as_object()) {
        fields.retain(|key, _| LAUNCH_FIELDS.contains(&key.as_str()));
        for (key, value) in original {
            if !LAUNCH_FIELDS.contains(&key.as_str()) {
                fields.insert(key.clone(), value.clone());
            }
        }
    }
    entry
}

/// How an unwrap restores the file.
#[derive(Debug, Clone, PartialEq)]
pub enum Restore {
    /// The replaced lines are back: the file is as it was before the wrap (other changes
    /// made since kept).
    Exact(String),
    /// The written lines were edited since: the original entry is back through the editor,
    /// the rest of the file as it is, but the entry's own formatting may differ.
    Reformatted(String),
}

/// Puts `wrapped`'s original entry `name` back into `now`.
pub fn plan_unwrap(
    dialect: &Dialect,
    now: &str,
    name: &str,
    wrapped: &Wrapped,
) -> Result<Restore, Refused> {
    let doc = Doc::parse(dialect.format, now).map_err(Refused::Unreadable)?;
    let entries = doc
        .entries(dialect.servers_key)
        .map_err(Refused::Unreadable)?;
    match entries.get(name) {
        None => {
            return Err(Refused::Missing {
                name: name.to_string(),
                names: entries.keys().cloned().collect(),
            });
        }
        Some(entry) if !is_wrapped(entry) => {
            return Err(Refused::NotWrapped(format!(
                "`{name}` is not an entry `mcpick wrap` wrote; it was left as it is"
            )));
        }
        Some(_) => {}
    }
    // The written lines, found once, give way to the replaced ones; the result must hold
    // the original entry and every other entry as they are now.
    if now.matches(&wrapped.written).count() == 1 && !wrapped.written.is_empty() {
        let text = now.replacen(&wrapped.written, &wrapped.replaced, 1);
        if let Ok(back) = Doc::parse(dialect.format, &text)
            && let Ok(mut back) = back.entries(dialect.servers_key)
            && back.remove(name).as_ref() == Some(&wrapped.original)
        {
            let mut others = entries.clone();
            others.remove(name);
            if back == others {
                return Ok(Restore::Exact(text));
            }
        }
    }
    let mut doc = doc;
    doc.set(dialect.servers_key, name, &wrapped.original)
        .map_err(Refused::Unreadable)?;
    Ok(Restore::Reformatted(doc.text()))
}

/// The whole lines that differ between `before` and `after`: `before`'s and `after`'s,
/// after their common first and last lines.
fn changed_lines<'a>(before: &'a str, after: &'a str) -> (&'a str, &'a str) {
    let (b, a) = (before.as_bytes(), after.as_bytes());
    let mut start = b.iter().zip(a).take_while(|(x, y)| x == y).count();
    // Back to the start of the line.
    while start > 0 && b[start - 1] != b'\n' {
        start -= 1;
    }
    let mut end = b[start..]
        .iter()
        .rev()
        .zip(a[start..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    // Forward to the end of a line (the common part starts right after a newline).
    while end > 0 && b[b.len() - end - 1] != b'\n' {
        end -= 1;
    }
    (&before[start..b.len() - end], &after[start..a.len() - end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::{FileFormat, Host};

    fn launch() -> Launch {
        Launch {
            command: "mcpick".into(),
            args: vec![
                PROXY_COMMAND.into(),
                "--record".into(),
                ".mcp.json.mcpick-wrap.json".into(),
                "--name".into(),
                "a".into(),
            ],
        }
    }

    fn original(d: &Dialect) -> String {
        match d.format {
            FileFormat::Toml => "# mine\n[mcp_servers.a]\ncommand = \"a\" # keep\nargs = [\"x\"]\n\n[mcp_servers.b]\ncommand = \"b\"\n".into(),
            _ if d.name == "zed" => "{\n  // mine\n  \"context_servers\": {\n    \"a\": { \"command\": \"a\", \"args\": [\"x\"] }, // keep\n    \"b\": { \"command\": \"b\" }\n  }\n}\n".into(),
            _ => {
                let key = d.servers_key[0];
                format!(
                    "{{\n  // mine\n  \"{key}\": {{\n    \"a\": {{ \"command\": \"a\", \"args\": [\"x\"], \"env\": {{ \"K\": \"v\" }} }}, // keep\n    \"b\": {{ \"command\": \"b\" }}\n  }},\n  \"x\": 1\n}}\n"
                )
            }
        }
    }

    #[test]
    fn every_dialect_wraps_once_and_unwraps_byte_for_byte() {
        // A host that takes no servers has no file to write them in.
        for host in Host::ALL.into_iter().filter(|h| h.dialect().mcp) {
            let d = host.dialect();
            let before = original(d);
            let Plan::Change { text, wrapped } =
                plan_wrap(d, Some(&before), "a", &launch()).unwrap()
            else {
                panic!("{}: unchanged", d.name)
            };
            let doc = Doc::parse(d.format, &text).unwrap();
            assert!(
                is_wrapped(&doc.get(d.servers_key, "a").unwrap().unwrap()),
                "{}: {text}",
                d.name
            );
            assert_eq!(
                plan_wrap(d, Some(&text), "a", &launch()).unwrap(),
                Plan::Unchanged,
                "{}: wrapping twice",
                d.name
            );
            let mut other = launch();
            other.args.extend(["--expose".into(), "included".into()]);
            assert_eq!(
                plan_wrap(d, Some(&text), "a", &other).unwrap(),
                Plan::Rewrap,
                "{}: wrapping with other arguments",
                d.name
            );
            assert_eq!(
                plan_unwrap(d, &text, "a", &wrapped).unwrap(),
                Restore::Exact(before.clone()),
                "{}",
                d.name
            );
            // Another entry edited meanwhile: still exact for ours, the edit kept.
            let mut edited = Doc::parse(d.format, &text).unwrap();
            edited
                .set(d.servers_key, "c", &serde_json::json!({ "command": "c" }))
                .unwrap();
            let edited = edited.text();
            let Restore::Exact(back) = plan_unwrap(d, &edited, "a", &wrapped).unwrap() else {
                panic!("{}: not exact after another edit", d.name)
            };
            let doc = Doc::parse(d.format, &back).unwrap();
            assert!(doc.get(d.servers_key, "c").unwrap().is_some());
            assert!(back.contains("keep"), "{}: {back}", d.name);
        }
    }

    #[test]
    fn a_wrapped_http_entry_keeps_none_of_the_originals_connection_fields() {
        let d = Host::Codex.dialect();
        let text = "[mcp_servers.web]\nurl = \"https://x/mcp\"\nbearer_token_env_var = \"TOKEN\"\nhttp_headers = { \"X-Team\" = \"a\" }\nenv_http_headers = { \"X-Key\" = \"KEY\" }\nstartup_timeout_sec = 30\n";
        let Ok(Plan::Change {
            text: wrapped_text, ..
        }) = plan_wrap(d, Some(text), "web", &launch())
        else {
            panic!("not wrapped")
        };
        let doc = Doc::parse(d.format, &wrapped_text).unwrap();
        let entry = doc.get(d.servers_key, "web").unwrap().unwrap();
        assert!(is_wrapped(&entry), "{entry}");
        for field in [
            "url",
            "bearer_token_env_var",
            "http_headers",
            "env_http_headers",
        ] {
            assert!(entry.get(field).is_none(), "{field} in {wrapped_text}");
        }
        assert_eq!(entry["startup_timeout_sec"], 30, "a host setting stays");
    }

    #[test]
    fn a_missing_name_lists_the_entries_and_an_unknown_transport_is_refused() {
        let d = Host::ClaudeCode.dialect();
        let text = r#"{"mcpServers":{"b":{"command":"b"},"odd":{"type":"ws","url":"wss://x"},"web":{"type":"http","url":"https://x","headers":{"K":"${TOKEN}"}}}}"#;
        assert_eq!(
            plan_wrap(d, Some(text), "a", &launch()),
            Err(Refused::Missing {
                name: "a".into(),
                names: vec!["b".into(), "odd".into(), "web".into()]
            })
        );
        assert!(matches!(
            plan_wrap(d, Some(text), "odd", &launch()),
            Err(Refused::Transport(_))
        ));
        let helper =
            r#"{"mcpServers":{"h":{"type":"http","url":"https://x","headersHelper":"get-token"}}}"#;
        assert!(matches!(
            plan_wrap(d, Some(helper), "h", &launch()),
            Err(Refused::Transport(why)) if why.contains("headersHelper")
        ));
        // A Streamable HTTP entry is wrapped: the new entry runs mcpick over stdio, the
        // original (its headers' placeholders as written) is kept for the proxy.
        let Ok(Plan::Change {
            text: wrapped_text,
            wrapped,
        }) = plan_wrap(d, Some(text), "web", &launch())
        else {
            panic!("the HTTP entry was not wrapped")
        };
        let doc = Doc::parse(d.format, &wrapped_text).unwrap();
        let entry = doc.get(d.servers_key, "web").unwrap().unwrap();
        assert!(is_wrapped(&entry), "{entry}");
        assert_eq!(entry["type"], "stdio", "{entry}");
        for field in ["url", "headers"] {
            assert!(entry.get(field).is_none(), "{field} in {entry}");
        }
        assert_eq!(wrapped.original["headers"]["K"], "${TOKEN}");
        assert_eq!(
            plan_unwrap(d, &wrapped_text, "web", &wrapped).unwrap(),
            Restore::Exact(text.to_string())
        );
    }
}
