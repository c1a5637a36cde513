//! RFC 6570 URI Template syntax (levels 1–4): enough to tell a valid template from a broken
//! one and to name its variables. Expansion is not needed here.

/// The variable names of a valid template, or why it is not one.
pub fn variables(template: &str) -> Result<Vec<String>, String> {
    let mut vars = Vec::new();
    let mut rest = template;
    let mut at = 0;
    while let Some(open) = rest.find(['{', '}']) {
        literal(&rest[..open], at)?;
        if rest.as_bytes()[open] == b'}' {
            return Err(format!("`}}` without `{{` at {}", at + open));
        }
        let Some(close) = rest[open + 1..].find(['}', '{']) else {
            return Err(format!("`{{` at {} is never closed", at + open));
        };
        let close = open + 1 + close;
        if rest.as_bytes()[close] == b'{' {
            return Err(format!("`{{` inside an expression at {}", at + close));
        }
        expression(&rest[open + 1..close], &mut vars)
            .map_err(|e| format!("{{{}}}: {e}", &rest[open + 1..close]))?;
        at += close + 1;
        rest = &rest[close + 1..];
    }
    literal(rest, at)?;
    Ok(vars)
}

fn literal(text: &str, at: usize) -> Result<(), String> {
    match text.char_indices().find(|&(_, c)| {
        c.is_control() || c == ' ' || matches!(c, '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '|')
    }) {
        Some((i, c)) => Err(format!("{c:?} is not allowed in a literal (at {})", at + i)),
        None => Ok(()),
    }
}

fn expression(body: &str, vars: &mut Vec<String>) -> Result<(), String> {
    let list = body
        .strip_prefix(['+', '#', '.', '/', ';', '?', '&'])
        .unwrap_or(body);
    if list.starts_with(['=', ',', '!', '@', '|']) {
        return Err("a reserved operator".into());
    }
    if list.is_empty() {
        return Err("an empty expression".into());
    }
    for spec in list.split(',') {
        let name = match spec.split_once(':') {
            Some((name, len)) => {
                let ok = !len.is_empty()
                    && len.len() <= 4
                    && len.bytes().all(|b| b.is_ascii_digit())
                    && !len.starts_with('0');
                if !ok {
                    return Err(format!("`:{len}` is not a prefix length 1–9999"));
                }
                name
            }
            None => spec.strip_suffix('*').unwrap_or(spec),
        };
        varname(name)?;
        vars.push(name.to_string());
    }
    Ok(())
}

fn varname(name: &str) -> Result<(), String> {
    let bytes = name.as_bytes();
    let mut i = 0;
    if name.is_empty() || name.starts_with('.') || name.ends_with('.') || name.contains("..") {
        return Err(format!("`{name}` is not a variable name"));
    }
    while i < bytes.len() {
        match bytes[i] {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' => i += 1,
            b'%' if bytes.len() > i + 2
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit() =>
            {
                i += 3
            }
            _ => return Err(format!("`{name}` is not a variable name")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_templates_name_their_variables() {
        assert_eq!(variables("file:///project/{path}").unwrap(), ["path"]);
        assert_eq!(
            variables("http://x/{+base}{/seg*}{?q,lang:2}{#frag}").unwrap(),
            ["base", "seg", "q", "lang", "frag"]
        );
        assert_eq!(variables("plain://no/vars").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn broken_templates_say_why() {
        for bad in [
            "demo://broken/{id",
            "demo://x/}",
            "demo://{}",
            "demo://{a b}",
            "demo://{=x}",
            "demo://{x:0}",
            "demo://{x{y}}",
            "demo://a b/{x}",
        ] {
            assert!(variables(bad).is_err(), "{bad}");
        }
    }
}
