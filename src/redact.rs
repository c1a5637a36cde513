//! Credentials out of everything mcpick shows or writes for sharing: messages, `--json`
//! output, context sets. Pure functions over text; the connection layer and the commands
//! decide what to feed them.
//!
//! Placeholders (`${VAR}`) are never masked: a definition written with them is already safe
//! to show, and keeping them tells the person which variable is meant.
//!
//! # What counts as a secret
//!
//! - in a URL: the whole userinfo (`user:password@`) and the `Authorization: Basic` value
//!   made of it ([`basic_of_userinfo`]), every query value (keys are kept), the fragment, and
//!   path segments that look like keys (below);
//! - in a command line: the value after a flag whose name suggests a secret (`--token X`,
//!   `--api-key=X`), the value of a `NAME=VALUE` or `Name: value` argument with such a name,
//!   URLs (as above), and any argument that looks like a key (below);
//! - header and environment values: always, whole (no prefix is kept).
//!
//! A name suggests a secret when one of its words (split at `-`, `_`, `.`) is `token`, `key`,
//! `secret`, `password`, `passwd`, `pwd`, `pass`, `auth`, `authorization`, `credential(s)`,
//! `apikey` or `cookie`, or when it contains `token`, `secret`, `passw`, `credential` or
//! `apikey` anywhere (`GITHUB_PERSONAL_ACCESS_TOKEN`, `--accesstoken`).
//!
//! A word looks like a key (see [`looks_like_secret`]) when it starts with a scheme word
//! (`Bearer `, `Basic `, `Token `), with a well-known key prefix (`ghp_`, `github_pat_`,
//! `glpat-`, `sk-`, `xoxb-`, `AKIA`, `AIza`, `npm_`, `hf_`, …), is a JWT (`eyJ…` with two
//! dots), or is at least 20 characters of letters, digits, `_`, `-`, `+`, `=` mixing letters and
//! digits with a class change (lower, upper, digit; `Ab` counts as one word) at least every
//! fourth character on average — random keys do, words, CamelCase names and version numbers
//! do not. The heuristic errs toward
//! hiding: a long random-looking identifier is masked too.

use base64::Engine;

/// What a masked value is replaced with.
pub const MASK: &str = "***";

/// Values shorter than this are not searched for in free text (scrubbing `"1"` out of a
/// message would garble it and hide nothing).
const MIN_SCRUB_CHARS: usize = 4;

/// True when `s` holds a `${…}` placeholder and is therefore safe to show as written.
fn has_placeholder(s: &str) -> bool {
    s.contains("${")
}

/// True when a value was masked by this module (a set saved with it cannot be connected to).
pub fn is_masked(s: &str) -> bool {
    s.contains(MASK)
}

/// A header or environment value for display: as written when it holds a placeholder
/// (`Bearer ${API_TOKEN}`), else [`MASK`].
pub fn value(s: &str) -> String {
    if has_placeholder(s) {
        s.to_string()
    } else {
        MASK.to_string()
    }
}

/// A URL for display: userinfo, query values, fragment and key-like path segments masked;
/// scheme, host, port, path and query keys kept. Works on text that is not a valid URL too
/// (it never fails, and never re-encodes what it keeps).
pub fn url(s: &str) -> String {
    let (scheme, rest) = match s.find("://") {
        Some(i) => s.split_at(i + 3),
        None => ("", s),
    };
    let (rest, fragment) = split_once_keep(rest, '#');
    let (rest, query) = split_once_keep(rest, '?');
    let (authority, path) = if scheme.is_empty() {
        ("", rest)
    } else {
        match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        }
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(scheme);
    match authority.rfind('@') {
        Some(at) if !has_placeholder(&authority[..at]) => {
            out.push_str(MASK);
            out.push_str(&authority[at..]);
        }
        _ => out.push_str(authority),
    }
    let segments: Vec<String> = path
        .split('/')
        .map(|segment| {
            if !has_placeholder(segment) && looks_like_secret(segment) {
                MASK.to_string()
            } else {
                segment.to_string()
            }
        })
        .collect();
    out.push_str(&segments.join("/"));
    if let Some(query) = query {
        out.push('?');
        let items: Vec<String> = query
            .split('&')
            .map(|item| match item.split_once('=') {
                Some((key, v)) if !v.is_empty() && !has_placeholder(v) => format!("{key}={MASK}"),
                Some(_) => item.to_string(),
                None if !has_placeholder(item) && looks_like_secret(item) => MASK.to_string(),
                None => item.to_string(),
            })
            .collect();
        out.push_str(&items.join("&"));
    }
    if let Some(fragment) = fragment {
        out.push('#');
        if !fragment.is_empty() && !has_placeholder(fragment) {
            out.push_str(MASK);
        } else {
            out.push_str(fragment);
        }
    }
    out
}

/// The `Authorization` value an HTTP client makes of a URL's userinfo: `user:password@` →
/// `Basic base64(user:password)`, both parts percent-decoded first (as reqwest does). It is
/// the same credential as the userinfo, so it is masked wherever it shows up (a server may
/// quote the header back). `None` without a userinfo.
pub fn basic_of_userinfo(raw: &str) -> Option<String> {
    let parsed = url::Url::parse(raw).ok()?;
    if parsed.username().is_empty() && parsed.password().is_none() {
        return None;
    }
    let user = percent_decode(parsed.username());
    let password = percent_decode(parsed.password().unwrap_or(""));
    let encoded =
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}").as_bytes());
    Some(format!("Basic {encoded}"))
}

/// `%XX` escapes decoded (invalid ones kept as written), as UTF-8 where it is.
pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(Some(hi)), Some(Some(lo))) = (
                bytes.get(i + 1).map(|&b| hex(b)),
                bytes.get(i + 2).map(|&b| hex(b)),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `("a?b", '?')` → `("a", Some("b"))`; without the separator, `(s, None)`.
fn split_once_keep(s: &str, sep: char) -> (&str, Option<&str>) {
    match s.split_once(sep) {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    }
}

/// A command's arguments for display, with literal secrets masked (see the module
/// documentation for what counts).
pub fn args(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut secret_next = false;
    for arg in args {
        let after_secret_flag = std::mem::take(&mut secret_next);
        if has_placeholder(arg) {
            out.push(arg.clone());
            continue;
        }
        if after_secret_flag && !arg.starts_with('-') {
            out.push(MASK.to_string());
            continue;
        }
        if let Some(flag) = arg.strip_prefix('-').filter(|f| !f.is_empty()) {
            match arg.split_once('=') {
                Some((name, v)) if secret_name(name) && !v.is_empty() => {
                    out.push(format!("{name}={MASK}"))
                }
                Some((name, v)) => out.push(format!("{name}={}", word(v))),
                None => {
                    secret_next = secret_name(flag);
                    out.push(arg.clone());
                }
            }
            continue;
        }
        out.push(assignment(arg).unwrap_or_else(|| word(arg)));
    }
    out
}

/// `NAME=VALUE` and `Name: value` arguments with a secret-suggesting name, masked.
fn assignment(arg: &str) -> Option<String> {
    for sep in ["=", ": ", ":"] {
        if let Some((name, v)) = arg.split_once(sep) {
            let plain = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if plain && secret_name(name) && !v.trim().is_empty() {
                return Some(format!("{name}{sep}{MASK}"));
            }
        }
    }
    None
}

/// One free-standing argument or value: URLs masked as URLs, key-like words replaced.
fn word(s: &str) -> String {
    if s.contains("://") {
        url(s)
    } else if looks_like_secret(s) {
        MASK.to_string()
    } else {
        s.to_string()
    }
}

/// A command line for display: the command (kept) and its arguments masked, joined by spaces.
pub fn command_line(command: &str, arguments: &[String]) -> String {
    std::iter::once(word(command))
        .chain(args(arguments))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word (`production`) or a media type (`application/json`, `text/event-stream`).
fn plain_setting(value: &str) -> bool {
    let word = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-+.".contains(c))
    };
    value.chars().all(|c| c.is_ascii_alphabetic())
        || value
            .split_once('/')
            .is_some_and(|(kind, sub)| word(kind) && word(sub))
}

/// Whether a flag, variable or header name suggests its value is a secret.
pub fn secret_name(name: &str) -> bool {
    const WORDS: [&str; 13] = [
        "token",
        "key",
        "secret",
        "password",
        "passwd",
        "pwd",
        "pass",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "apikey",
        "cookie",
    ];
    const PARTS: [&str; 5] = ["token", "secret", "passw", "credential", "apikey"];
    let lower = name.trim_start_matches('-').to_ascii_lowercase();
    lower.split(['-', '_', '.']).any(|w| WORDS.contains(&w))
        || PARTS.iter().any(|p| lower.contains(p))
}

/// Whether a single word looks like a credential (see the module documentation).
pub fn looks_like_secret(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    for scheme in ["bearer ", "basic ", "token "] {
        if lower.starts_with(scheme) && s.len() > scheme.len() {
            return true;
        }
    }
    const PREFIXES: [&str; 22] = [
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "glpat-",
        "sk-",
        "sk_live_",
        "sk_test_",
        "rk_live_",
        "pk_live_",
        "xoxb-",
        "xoxp-",
        "xoxa-",
        "xoxs-",
        "AKIA",
        "ASIA",
        "AIza",
        "npm_",
        "pypi-",
        "hf_",
    ];
    if PREFIXES
        .iter()
        .any(|p| s.starts_with(p) && s.len() >= p.len() + 12)
    {
        return true;
    }
    if s.starts_with("eyJ") && s.matches('.').count() == 2 && s.len() >= 20 {
        return true;
    }
    let chars: Vec<char> = s.chars().collect();
    if chars.len() < 20
        || !chars
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '='))
    {
        return false;
    }
    let class = |c: &char| {
        if c.is_ascii_digit() {
            Some(0)
        } else if c.is_ascii_lowercase() {
            Some(1)
        } else if c.is_ascii_uppercase() {
            Some(2)
        } else {
            None
        }
    };
    let classes: Vec<u8> = chars.iter().filter_map(class).collect();
    let digits = classes.contains(&0);
    let letters = classes.iter().any(|&c| c != 0);
    // An upper-case letter followed by lower-case ones is one word (CamelCase), not a change.
    let changes = classes
        .windows(2)
        .filter(|w| w[0] != w[1] && !(w[0] == 2 && w[1] == 1))
        .count();
    digits && letters && changes * 4 >= classes.len()
}

/// Secret values to be replaced wherever they appear in free text (error chains from
/// reqwest and rmcp quote the URL they failed on; a server's stderr may echo its token).
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    /// (secret, what to show instead), longest secret first.
    pairs: Vec<(String, String)>,
}

impl Secrets {
    /// Adds a secret and its display form. Values too short to search for are ignored.
    pub fn add(&mut self, secret: &str, shown: &str) {
        if secret.chars().count() < MIN_SCRUB_CHARS
            || secret == shown
            || has_placeholder(secret)
            || self.pairs.iter().any(|(s, _)| s == secret)
        {
            return;
        }
        self.pairs.push((secret.to_string(), shown.to_string()));
        self.pairs.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
    }

    /// Adds a secret value shown as [`MASK`].
    pub fn add_value(&mut self, secret: &str) {
        self.add(secret, MASK);
    }

    /// Adds `value` (shown as [`MASK`]) unless it is a plain setting: a word (letters only)
    /// or a media type whose name (`name`: a variable, header or query key; may be empty)
    /// does not say credential (`NODE_ENV=production`, `Accept: application/json`,
    /// `mode=read`). Masking those would replace mcpick's own words in messages and hide
    /// nothing. A URL's secrets are added when it is one.
    pub fn add_if_secret(&mut self, name: &str, value: &str) {
        if value.contains("://") {
            self.add_url(value);
        }
        if secret_name(name) || looks_like_secret(value) || !plain_setting(value) {
            self.add_value(value);
        }
    }

    /// The secrets of a URL: the URL itself (as written and as a URL parser prints it),
    /// its userinfo (also decoded, and as the `Authorization: Basic` value made of it), query
    /// and fragment values, and key-like path segments.
    pub fn add_url(&mut self, raw: &str) {
        self.add(raw, &url(raw));
        if let Ok(parsed) = url::Url::parse(raw) {
            let normal = parsed.to_string();
            self.add(&normal, &url(&normal));
            self.add_value(parsed.password().unwrap_or(""));
            self.add_value(&percent_decode(parsed.password().unwrap_or("")));
            // A user name is masked in the URL; in free text only when it is a token
            // (`https://TOKEN@host`): `user` or `admin` would mask mcpick's own words.
            for name in [
                parsed.username().to_string(),
                percent_decode(parsed.username()),
            ] {
                self.add_if_secret("", &name);
            }
            // The header a client makes of the userinfo, whole and its base64 alone.
            if let Some(basic) = basic_of_userinfo(raw) {
                self.add_value(&basic);
                self.add_value(basic.trim_start_matches("Basic "));
            }
            for (k, v) in parsed.query_pairs() {
                self.add_if_secret(&k, &v);
            }
            if let Some(query) = parsed.query() {
                for item in query.split('&') {
                    if let Some((k, v)) = item.split_once('=') {
                        self.add_if_secret(k, v);
                    }
                }
            }
            self.add_if_secret("", parsed.fragment().unwrap_or(""));
            for segment in parsed.path_segments().into_iter().flatten() {
                if looks_like_secret(segment) {
                    self.add_value(segment);
                }
            }
        }
    }

    /// The secrets of a command's arguments: each argument the display form masks, and the
    /// masked part on its own.
    pub fn add_args(&mut self, arguments: &[String]) {
        for (raw, shown) in arguments.iter().zip(args(arguments)) {
            if *raw == shown {
                continue;
            }
            if raw.contains("://") {
                self.add_url(raw);
            }
            for sep in ["=", ": ", ":"] {
                if let Some((_, v)) = raw.split_once(sep) {
                    self.add_value(v.trim());
                }
            }
            self.add(raw, &shown);
        }
    }

    /// `text` with every known secret replaced by its display form.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (secret, shown) in &self.pairs {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), shown);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn urls_lose_userinfo_query_values_and_fragments() {
        assert_eq!(
            url("http://user:pw@h:8080/mcp?token=abc&mode=x&flag#frag"),
            "http://***@h:8080/mcp?token=***&mode=***&flag#***"
        );
        assert_eq!(url("https://h/mcp"), "https://h/mcp");
        assert_eq!(url("https://h/mcp?"), "https://h/mcp?");
        assert_eq!(
            url("https://${HOST}/mcp?token=${TOKEN}&k=lit"),
            "https://${HOST}/mcp?token=${TOKEN}&k=***"
        );
        assert_eq!(url("https://${U}:${P}@h/"), "https://${U}:${P}@h/");
        assert_eq!(
            url("https://h/bot/ghp_0123456789abcdefABCDEF/x"),
            "https://h/bot/***/x"
        );
        // Not a URL at all: never fails.
        assert_eq!(url("not a url"), "not a url");
    }

    #[test]
    fn the_basic_header_made_of_a_userinfo_is_masked_too() {
        let raw = "http://alice:s3cret%20pass@h/mcp";
        // base64("alice:s3cret pass"), decoded as a client sends it.
        assert_eq!(
            basic_of_userinfo(raw).as_deref(),
            Some("Basic YWxpY2U6czNjcmV0IHBhc3M=")
        );
        assert_eq!(basic_of_userinfo("http://h/mcp"), None);
        let mut secrets = Secrets::default();
        secrets.add_url(raw);
        assert_eq!(
            secrets.scrub("headers: authorization: Basic YWxpY2U6czNjcmV0IHBhc3M=; x"),
            "headers: authorization: ***; x"
        );
        assert_eq!(
            secrets.scrub("token YWxpY2U6czNjcmV0IHBhc3M= echoed"),
            "token *** echoed"
        );
        assert_eq!(secrets.scrub("password s3cret pass"), "password ***");
    }

    #[test]
    fn args_lose_values_of_secret_flags_and_key_like_words() {
        assert_eq!(
            args(&v(&[
                "--token",
                "s3cr3t",
                "--api-key=abc",
                "--port",
                "80",
                "API_TOKEN=xyz",
                "Authorization: Bearer q",
                "ghp_0123456789abcdefABCDEF",
                "--url",
                "http://h/?k=v",
                "--password",
                "--verbose",
            ])),
            v(&[
                "--token",
                "***",
                "--api-key=***",
                "--port",
                "80",
                "API_TOKEN=***",
                "Authorization: ***",
                "***",
                "--url",
                "http://h/?k=***",
                "--password",
                "--verbose",
            ])
        );
        // Placeholders and ordinary arguments stay.
        let plain = v(&[
            "-y",
            "@modelcontextprotocol/server-everything@2026.8.31",
            "--token",
            "${TOKEN}",
            "/x/node_modules/server-filesystem/dist/index.js",
            "mcp-server-filesystem-2024",
            "MyServerName2024Edition",
            "--keyboard",
            "us",
        ]);
        assert_eq!(args(&plain), plain);
    }

    #[test]
    fn key_like_words() {
        for secret in [
            "Bearer abc",
            "sk-proj-0123456789abcdef",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
            "Zx9Qp2Lm7Rt4Vb8Nc1Kd",
            "0f3a9c2b7e1d4a6b8c0e2f4a6b8c0d1e",
        ] {
            assert!(looks_like_secret(secret), "{secret}");
        }
        for word in [
            "server-everything",
            "mcp-server-filesystem-2024",
            "2026.8.31",
            "demo-server",
            "aaaaaaaaaaaaaaaaaaaaaaaaa1",
        ] {
            assert!(!looks_like_secret(word), "{word}");
        }
    }

    #[test]
    fn secret_names() {
        for name in [
            "--token",
            "--api-key",
            "API_KEY",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "--accesstoken",
            "X-Auth",
            "Authorization",
            "--password",
            "DB_PASS",
        ] {
            assert!(secret_name(name), "{name}");
        }
        for name in ["--port", "--keyboard", "--author", "MODE", "--verbose"] {
            assert!(!secret_name(name), "{name}");
        }
    }

    #[test]
    fn scrub_replaces_urls_and_values_longest_first() {
        let mut secrets = Secrets::default();
        secrets.add_url("http://u:hunter22@127.0.0.1:9/mcp?token=PLANTED");
        secrets.add_value("HEADERVALUE");
        secrets.add_value("x");
        let text = "error sending request for url (http://u:hunter22@127.0.0.1:9/mcp?token=PLANTED): \
                    refused; header HEADERVALUE; x stays";
        let clean = secrets.scrub(text);
        assert!(!clean.contains("PLANTED"), "{clean}");
        assert!(!clean.contains("hunter22"), "{clean}");
        assert!(!clean.contains("HEADERVALUE"), "{clean}");
        assert!(
            clean.contains("http://***@127.0.0.1:9/mcp?token=***"),
            "{clean}"
        );
        assert!(clean.contains("x stays"), "{clean}");
    }

    #[test]
    fn values_are_masked_whole() {
        assert_eq!(value("Bearer abcdefghijklmnop"), MASK);
        assert_eq!(value("Bearer ${TOKEN}"), "Bearer ${TOKEN}");
    }
}
