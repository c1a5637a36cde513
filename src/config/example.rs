//! What a person is told when a set records a server they typed without its secrets: where
//! the secrets are kept, and an mcpick.toml entry with `${VAR}` placeholders that works on
//! other machines. Plain text, for the headless commands and the browser alike.

use std::collections::BTreeMap;

use super::select::Chosen;
use crate::mcp::TransportSpec;
use crate::{redact, sanitize};

/// Tells the person what a set records without its credentials: kept for them on this
/// machine (see [`crate::config::kept`]), and how to write them as `${VAR}` placeholders so
/// the set works elsewhere too.
pub fn masked_note(chosen: &Chosen) -> Option<String> {
    if chosen.masked.is_empty() {
        return None;
    }
    let name = sanitize::line(&chosen.selected.spec.name, 200);
    let head = if chosen.kept.is_empty() {
        format!(
            "the set records server `{name}` without its credentials: masked {}",
            chosen.masked.join(", ")
        )
    } else {
        crate::config::kept::kept_note(&name, &chosen.masked)
    };
    Some(format!(
        "note: {head}.\n  \
         To use the set elsewhere, define `{name}` in a config file with placeholders \
         for the secrets, e.g. in mcpick.toml:\n{}",
        toml_example(&name, &chosen.shown)
    ))
}

/// An mcpick.toml entry for `shown` with `${NAME}` placeholders where values were masked.
pub fn toml_example(name: &str, shown: &TransportSpec) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::written::fixtures::{http_with_secrets, stdio_with_secrets};
    use crate::config::written::written_form;

    #[test]
    fn the_example_uses_placeholders_for_what_was_masked() {
        let example = toml_example("remote", &written_form(&http_with_secrets()));
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

        let example = toml_example("srv", &written_form(&stdio_with_secrets()));
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
    }
}
