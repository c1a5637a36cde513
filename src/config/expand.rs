//! Placeholders in server definitions (`${VAR}`, `${VAR:-default}`, `${env:VAR}`,
//! `${workspaceFolder}`, `${userHome}`, `${input:ID}`), and masking for display.
//!
//! Expansion is a pure function of the text and a [`Vars`]: the environment is a lookup
//! function, so tests never depend on the real process environment.

use std::path::Path;

use serde_json::Value;

/// What placeholders expand to.
pub struct Vars<'a> {
    /// Environment variable lookup.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `${workspaceFolder}`: the working directory.
    pub workspace: &'a Path,
    /// `${userHome}`.
    pub home: Option<&'a Path>,
}

/// True when `s` contains something that looks like a placeholder.
pub fn has_placeholder(s: &str) -> bool {
    s.contains("${")
}

/// Expands every `${…}` in `raw`. `inputs` is the VS Code file's `inputs` array (if any), used
/// only to make the error for `${input:ID}` more helpful. Errors name the placeholder as
/// written, never a value.
pub fn expand(raw: &str, vars: &Vars, inputs: Option<&Value>) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "`{}` has a `${{` without its closing `}}`",
                rest[start..].chars().take(40).collect::<String>()
            ));
        };
        let inner = &after[..end];
        out.push_str(&resolve(inner, vars, inputs)?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn resolve(inner: &str, vars: &Vars, inputs: Option<&Value>) -> Result<String, String> {
    let written = format!("${{{inner}}}");
    let env = |name: &str| {
        (vars.env)(name)
            .ok_or_else(|| format!("`{written}`: the environment variable `{name}` is not set"))
    };
    match inner {
        "workspaceFolder" => return Ok(vars.workspace.to_string_lossy().into_owned()),
        "workspaceFolderBasename" => {
            return Ok(vars
                .workspace
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default());
        }
        "userHome" => {
            return vars
                .home
                .map(|h| h.to_string_lossy().into_owned())
                .ok_or_else(|| format!("`{written}`: the home directory is not known"));
        }
        "pathSeparator" | "/" => return Ok(std::path::MAIN_SEPARATOR.to_string()),
        _ => {}
    }
    if let Some(name) = inner.strip_prefix("env:") {
        return if is_var_name(name) {
            env(name)
        } else {
            Err(format!(
                "`{written}` is not a valid environment variable name"
            ))
        };
    }
    if let Some(id) = inner.strip_prefix("input:") {
        let declared = inputs.and_then(Value::as_array).and_then(|list| {
            list.iter()
                .find(|i| i.get("id").and_then(Value::as_str) == Some(id))
        });
        let what = match declared {
            Some(input) => match input.get("description").and_then(Value::as_str) {
                Some(d) => format!(
                    "the input `{id}` (\"{}\")",
                    d.chars().take(80).collect::<String>()
                ),
                None => format!("the input `{id}`"),
            },
            None => format!("the input `{id}`, which `inputs` does not declare,"),
        };
        return Err(format!(
            "`{written}` asks VS Code to prompt for {what}; mcpick cannot prompt: \
             put the value in an environment variable and write `${{env:NAME}}`"
        ));
    }
    if let Some((name, default)) = inner.split_once(":-")
        && is_var_name(name)
    {
        // Shell semantics: the default also replaces an empty value.
        return Ok((vars.env)(name)
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| default.to_string()));
    }
    if is_var_name(inner) {
        return env(inner);
    }
    Err(format!(
        "`{written}` is not a placeholder mcpick knows (use ${{VAR}}, ${{VAR:-default}}, \
         ${{env:VAR}}, ${{workspaceFolder}} or ${{userHome}})"
    ))
}

/// The environment variables `raw` needs set: `${VAR}` and `${env:VAR}` (one with a
/// default, `${VAR:-x}`, is not needed).
pub fn variables(raw: &str) -> Vec<String> {
    raw.split("${")
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(inner, _)| inner))
        // The hosts' own variables (`${workspaceFolder}`, `${userHome}`) are not the
        // environment's: mcpick fills them in itself.
        .filter(|inner| !HOST_VARIABLES.contains(inner))
        .map(|inner| inner.strip_prefix("env:").unwrap_or(inner))
        .filter(|name| is_var_name(name))
        .map(String::from)
        .collect()
}

/// The variables [`resolve`] fills in from the places, not the environment.
const HOST_VARIABLES: &[&str] = &["workspaceFolder", "workspaceFolderBasename", "userHome"];

fn is_var_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// How a secret-bearing value (an env value, a header value) is shown: as written when it
/// holds a placeholder (`Bearer ${API_TOKEN}`), else masked whole (see [`crate::redact`]).
pub fn shown_secret(raw: &str) -> String {
    crate::redact::value(raw)
}

/// A secret value, masked whole: no prefix of it is ever shown.
pub fn mask(_value: &str) -> String {
    crate::redact::MASK.to_string()
}
