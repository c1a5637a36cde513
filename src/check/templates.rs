//! `templates.syntax`: every `uriTemplate` is valid RFC 6570 and every template is named.
//! `templates.completion`: with the `completions` capability, each variable of each valid
//! template can be completed (`completion/complete` answers).

use serde_json::Value;

use super::observe::Listing;
use super::{Finding, Judge, quote};
use crate::catalog::template::variables;
use crate::mcp::Connection;

pub const SYNTAX: &str = "templates.syntax";
pub const COMPLETION: &str = "templates.completion";

/// Templates and variables completed at most.
const MAX_TEMPLATES: usize = 5;
const MAX_VARIABLES: usize = 3;

pub fn syntax(templates: &Listing) -> Finding {
    if templates.items.is_empty() {
        return Finding::skipped(SYNTAX, "no resource templates listed");
    }
    let mut judge = Judge::new(SYNTAX);
    if let Some(stop) = &templates.stop {
        judge.warn(format!("resources/templates/list stopped early: {stop:?}"));
    }
    for (i, t) in templates.items.iter().enumerate() {
        match t.get("uriTemplate") {
            Some(Value::String(template)) => {
                if let Err(why) = variables(template) {
                    judge.fail(format!("template {i} `{template}` is not RFC 6570: {why}"));
                }
            }
            other => judge.fail(format!(
                "template {i}: uriTemplate is {}",
                other.map_or("missing".into(), quote)
            )),
        }
        if t.get("name")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            judge.fail(format!("template {i}: no name"));
        }
    }
    judge.note(format!("{} valid templates", templates.items.len()));
    judge.finish()
}

pub async fn completion(conn: &Connection, caps: &Value, templates: &Listing) -> Finding {
    if caps.get("completions").is_none_or(Value::is_null) {
        return Finding::skipped(COMPLETION, "no `completions` capability declared");
    }
    let valid: Vec<(&str, Vec<String>)> = templates
        .uris()
        .into_iter()
        .filter_map(|t| Some((t, variables(t).ok()?)))
        .filter(|(_, vars)| !vars.is_empty())
        .collect();
    if valid.is_empty() {
        return Finding::skipped(COMPLETION, "no valid template with a variable");
    }
    let mut judge = Judge::new(COMPLETION);
    let mut asked = 0;
    for (template, vars) in valid.iter().take(MAX_TEMPLATES) {
        for var in vars.iter().take(MAX_VARIABLES) {
            asked += 1;
            match conn.probe_complete(template, var, "").await {
                Ok(reply) if reply["completion"]["values"].is_array() => {}
                Ok(reply) => judge.fail(format!(
                    "completion/complete {template} `{var}`: no completion.values in {}",
                    quote(&reply)
                )),
                Err(e) => judge.fail(format!(
                    "completion/complete {template} `{var}` failed although `completions` is \
                     declared: {}",
                    conn.explain(&e)
                )),
            }
        }
    }
    judge.note(format!("{asked} template variables completed"));
    judge.finish()
}
