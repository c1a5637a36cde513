//! RFC 6570 URI Templates (levels 1–4), the one parser mcpick has: [`variables`] for the
//! syntax check (`mcpick check`), [`Template::expand`] to fill a template, and
//! [`Template::matches`] to tell whether a concrete URI is an expansion of a template (so a
//! pinned expansion can be read like a listed resource).
//!
//! Matching is a little more lenient than expansion: a simple `{var}` takes any character
//! except `/`, `?` and `#` (servers rarely percent-encode `:` or `@`), and a query value may
//! hold `/` and `?`. `{+var}` and `{#var}` may span anything. Templates and URIs come from
//! servers, so matching is bounded ([`MAX_URI`], [`MAX_STEPS`]): a hostile pair costs a
//! failed match, never a hang. Matching recurses once per part, so a template has at most
//! [`MAX_EXPRESSIONS`] expressions: a longer one is invalid (a named error), never a stack
//! overflow.

use std::collections::{BTreeMap, HashSet};

/// Longer URIs are never matched.
pub const MAX_URI: usize = 8192;
/// Matching gives up (no match) after this many steps.
pub const MAX_STEPS: usize = 200_000;
/// A template with more expressions is invalid. Matching recurses once per part (at most
/// twice this plus one), so this bounds its stack depth; real templates have a handful.
pub const MAX_EXPRESSIONS: usize = 256;

/// A variable's value: a string, a list, or an associative array (pairs in order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Str(String),
    List(Vec<String>),
    Assoc(Vec<(String, String)>),
}

/// Values by variable name; a variable without one is undefined (left out).
pub type Values = BTreeMap<String, Value>;

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expr(Expr),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Expr {
    op: Op,
    vars: Vec<VarSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct VarSpec {
    name: String,
    prefix: Option<usize>,
    explode: bool,
}

/// The expression operators (RFC 6570 §3.2, appendix A).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    Param,
    Query,
    Continuation,
}

impl Op {
    fn parse(body: &str) -> (Op, &str) {
        let op = match body.as_bytes().first() {
            Some(b'+') => Op::Reserved,
            Some(b'#') => Op::Fragment,
            Some(b'.') => Op::Label,
            Some(b'/') => Op::Path,
            Some(b';') => Op::Param,
            Some(b'?') => Op::Query,
            Some(b'&') => Op::Continuation,
            _ => return (Op::Simple, body),
        };
        (op, &body[1..])
    }

    fn first(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved => "",
            Op::Fragment => "#",
            Op::Label => ".",
            Op::Path => "/",
            Op::Param => ";",
            Op::Query => "?",
            Op::Continuation => "&",
        }
    }

    fn sep(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => ",",
            Op::Label => ".",
            Op::Path => "/",
            Op::Param => ";",
            Op::Query | Op::Continuation => "&",
        }
    }

    fn named(self) -> bool {
        matches!(self, Op::Param | Op::Query | Op::Continuation)
    }

    /// What a named variable with an empty value expands to after its name.
    fn if_empty(self) -> &'static str {
        match self {
            Op::Query | Op::Continuation => "=",
            _ => "",
        }
    }

    /// Whether reserved characters pass unencoded.
    fn reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }

    /// Whether matching lets `c` appear in this operator's expansion (for a simple one:
    /// not `/`, `?` or `#`).
    fn may_hold(self, c: char) -> bool {
        match self {
            Op::Reserved | Op::Fragment => true,
            Op::Query | Op::Continuation => c != '#',
            Op::Path => c != '?' && c != '#',
            Op::Simple | Op::Label | Op::Param => !matches!(c, '/' | '?' | '#'),
        }
    }
}

/// The variable names of a valid template, or why it is not one.
pub fn variables(template: &str) -> Result<Vec<String>, String> {
    Ok(Template::parse(template)?.variables())
}

/// Fills `template` with `values`; an invalid template says why.
pub fn expand(template: &str, values: &Values) -> Result<String, String> {
    Ok(Template::parse(template)?.expand(values))
}

/// The values that make `template` expand to `uri`, when it does (an invalid template
/// matches nothing).
pub fn matches(template: &str, uri: &str) -> Option<Vec<(String, Value)>> {
    Template::parse(template).ok()?.matches(uri)
}

impl Template {
    /// Parses a template, or says what is wrong and where.
    pub fn parse(template: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        let mut at = 0;
        let mut exprs = 0;
        while let Some(open) = rest.find(['{', '}']) {
            literal(&rest[..open], at)?;
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_string()));
            }
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
            let body = &rest[open + 1..close];
            exprs += 1;
            if exprs > MAX_EXPRESSIONS {
                return Err(format!(
                    "more than {MAX_EXPRESSIONS} expressions (the limit on a template's expressions)"
                ));
            }
            parts.push(Part::Expr(
                expression(body).map_err(|e| format!("{{{body}}}: {e}"))?,
            ));
            at += close + 1;
            rest = &rest[close + 1..];
        }
        literal(rest, at)?;
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_string()));
        }
        Ok(Template { parts })
    }

    /// The variable names, in template order (a name used twice is named twice).
    pub fn variables(&self) -> Vec<String> {
        self.exprs()
            .flat_map(|e| e.vars.iter().map(|v| v.name.clone()))
            .collect()
    }

    fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.parts.iter().filter_map(|p| match p {
            Part::Expr(e) => Some(e),
            Part::Literal(_) => None,
        })
    }

    /// The URI these values make (RFC 6570 §3).
    pub fn expand(&self, values: &Values) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(l) => out.push_str(l),
                Part::Expr(e) => e.expand(values, &mut out),
            }
        }
        out
    }

    /// The values (in template order; undefined variables left out) that make this template
    /// expand to `uri`, or `None` when no values do. Lists come back for exploded variables.
    pub fn matches(&self, uri: &str) -> Option<Vec<(String, Value)>> {
        if uri.len() > MAX_URI {
            return None;
        }
        let mut search = Search {
            parts: &self.parts,
            uri,
            failed: HashSet::new(),
            steps: MAX_STEPS,
            out: Vec::new(),
        };
        search.from(0, 0).then_some(search.out)
    }
}

fn literal(text: &str, at: usize) -> Result<(), String> {
    match text.char_indices().find(|&(_, c)| {
        c.is_control() || c == ' ' || matches!(c, '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '|')
    }) {
        Some((i, c)) => Err(format!("{c:?} is not allowed in a literal (at {})", at + i)),
        None => Ok(()),
    }
}

fn expression(body: &str) -> Result<Expr, String> {
    let (op, list) = Op::parse(body);
    if list.starts_with(['=', ',', '!', '@', '|']) {
        return Err("a reserved operator".into());
    }
    if list.is_empty() {
        return Err("an empty expression".into());
    }
    let mut vars = Vec::new();
    for spec in list.split(',') {
        let var = match spec.split_once(':') {
            Some((name, len)) => {
                let ok = !len.is_empty()
                    && len.len() <= 4
                    && len.bytes().all(|b| b.is_ascii_digit())
                    && !len.starts_with('0');
                if !ok {
                    return Err(format!("`:{len}` is not a prefix length 1–9999"));
                }
                VarSpec {
                    name: name.to_string(),
                    prefix: len.parse().ok(),
                    explode: false,
                }
            }
            None => VarSpec {
                name: spec.strip_suffix('*').unwrap_or(spec).to_string(),
                prefix: None,
                explode: spec.ends_with('*'),
            },
        };
        varname(&var.name)?;
        vars.push(var);
    }
    Ok(Expr { op, vars })
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

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn reserved(b: u8) -> bool {
    b":/?#[]@!$&'()*+,;=".contains(&b)
}

fn hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

/// Appends `s` percent-encoded: everything but unreserved characters (and, for `+`/`#`,
/// reserved characters and existing `%XX` triplets).
fn encode(s: &str, allow_reserved: bool, out: &mut String) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if unreserved(c) || (allow_reserved && reserved(c)) {
            out.push(c as char);
        } else if allow_reserved && c == b'%' && i + 2 < b.len() && hex(b[i + 1]) && hex(b[i + 2]) {
            out.push_str(&s[i..i + 3]);
            i += 3;
            continue;
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
        i += 1;
    }
}

/// Percent-decodes; a `%` not followed by two hex digits stays as it is. `None` when the
/// bytes are not UTF-8.
fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() && hex(b[i + 1]) && hex(b[i + 2]) {
            let digits = std::str::from_utf8(&b[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(digits, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Appends a list (keys `None`) or an associative array (keys `Some`); an empty one is
/// undefined (RFC 6570 §3.2.1). `start` writes the operator's first or separator string.
fn expand_pairs(
    op: Op,
    var: &VarSpec,
    pairs: &[(Option<&str>, &str)],
    start: &mut impl FnMut(&mut String),
    out: &mut String,
) {
    if pairs.is_empty() {
        return;
    }
    let allow = op.reserved();
    start(out);
    if !var.explode {
        if op.named() {
            out.push_str(&var.name);
            out.push('=');
        }
        for (i, (key, value)) in pairs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if let Some(key) = key {
                encode(key, allow, out);
                out.push(',');
            }
            encode(value, allow, out);
        }
        return;
    }
    for (i, (key, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(op.sep());
        }
        match key {
            Some(key) => encode(key, allow, out),
            None if op.named() => out.push_str(&var.name),
            None => {}
        }
        if op.named() && value.is_empty() {
            out.push_str(op.if_empty());
            continue;
        }
        if key.is_some() || op.named() {
            out.push('=');
        }
        encode(value, allow, out);
    }
}

impl Expr {
    fn expand(&self, values: &Values, out: &mut String) {
        let op = self.op;
        let allow = op.reserved();
        let mut first = true;
        let mut start = |out: &mut String| {
            out.push_str(if first { op.first() } else { op.sep() });
            first = false;
        };
        for var in &self.vars {
            let Some(value) = values.get(&var.name) else {
                continue;
            };
            match value {
                Value::Str(s) => {
                    start(out);
                    if op.named() {
                        out.push_str(&var.name);
                        if s.is_empty() {
                            out.push_str(op.if_empty());
                            continue;
                        }
                        out.push('=');
                    }
                    let s: String = match var.prefix {
                        Some(n) => s.chars().take(n).collect(),
                        None => s.clone(),
                    };
                    encode(&s, allow, out);
                }
                Value::List(items) => {
                    let pairs: Vec<(Option<&str>, &str)> =
                        items.iter().map(|i| (None, i.as_str())).collect();
                    expand_pairs(op, var, &pairs, &mut start, out);
                }
                Value::Assoc(pairs) => {
                    let pairs: Vec<(Option<&str>, &str)> = pairs
                        .iter()
                        .map(|(k, v)| (Some(k.as_str()), v.as_str()))
                        .collect();
                    expand_pairs(op, var, &pairs, &mut start, out);
                }
            }
        }
    }

    /// The values that make this expression expand to exactly `text`, or `None`.
    fn parse(&self, text: &str) -> Option<Vec<(String, Value)>> {
        if text.is_empty() {
            return Some(Vec::new()); // every variable undefined
        }
        if !text.chars().all(|c| self.op.may_hold(c)) {
            return None;
        }
        let rest = text.strip_prefix(self.op.first())?;
        if self.op.named() {
            return self.parse_named(rest);
        }
        if let [var] = self.vars.as_slice()
            && !var.explode
        {
            return Some(vec![(var.name.clone(), Value::Str(self.item(var, rest)?))]);
        }
        let items: Vec<&str> = rest.split(self.op.sep()).collect();
        let mut next = 0;
        let mut out = Vec::new();
        for var in &self.vars {
            if next == items.len() {
                break; // the rest are undefined
            }
            if var.explode {
                // Everything the single variables after it do not need.
                let after = self.vars.iter().skip_while(|v| !std::ptr::eq(*v, var));
                let needed = after.filter(|v| !v.explode).count();
                let take = (items.len() - next).saturating_sub(needed).max(1);
                let list = items[next..next + take]
                    .iter()
                    .map(|i| self.item(var, i))
                    .collect::<Option<Vec<_>>>()?;
                out.push((var.name.clone(), Value::List(list)));
                next += take;
            } else {
                out.push((var.name.clone(), Value::Str(self.item(var, items[next])?)));
                next += 1;
            }
        }
        (next == items.len()).then_some(out)
    }

    /// `?a=1&b=2`, `;x;y=2`: each item names its variable; any order.
    fn parse_named(&self, rest: &str) -> Option<Vec<(String, Value)>> {
        let mut found: Vec<Option<Value>> = vec![None; self.vars.len()];
        for item in rest.split(self.op.sep()) {
            let (name, value) = match item.split_once('=') {
                Some((n, v)) => (n, v),
                None if self.op == Op::Param => (item, ""),
                None => return None,
            };
            let i = self.vars.iter().position(|v| v.name == name)?;
            let var = &self.vars[i];
            let value = self.item(var, value)?;
            match (&mut found[i], var.explode) {
                (slot @ None, false) => *slot = Some(Value::Str(value)),
                (Some(_), false) => return None,
                (Some(Value::List(list)), true) => list.push(value),
                (slot, true) => *slot = Some(Value::List(vec![value])),
            }
        }
        Some(
            self.vars
                .iter()
                .zip(found)
                .filter_map(|(v, value)| Some((v.name.clone(), value?)))
                .collect(),
        )
    }

    /// One item's value, decoded; `None` when it cannot come from `var` (a prefix too long,
    /// a separator inside, not UTF-8).
    fn item(&self, var: &VarSpec, raw: &str) -> Option<String> {
        if !self.op.reserved() && self.vars.len() > 1 && raw.contains(',') {
            return None;
        }
        let value = decode(raw)?;
        if var.prefix.is_some_and(|n| value.chars().count() > n) {
            return None;
        }
        Some(value)
    }
}

/// A backtracking match of template parts against a URI; `failed` remembers the (part,
/// position) pairs that cannot lead to a match, so each is tried once.
struct Search<'a> {
    parts: &'a [Part],
    uri: &'a str,
    failed: HashSet<(usize, usize)>,
    steps: usize,
    out: Vec<(String, Value)>,
}

impl Search<'_> {
    fn from(&mut self, part: usize, pos: usize) -> bool {
        if part == self.parts.len() {
            return pos == self.uri.len();
        }
        if self.steps == 0 || self.failed.contains(&(part, pos)) {
            return false;
        }
        self.steps -= 1;
        match &self.parts[part] {
            Part::Literal(l) => {
                if self.uri[pos..].starts_with(l.as_str()) && self.from(part + 1, pos + l.len()) {
                    return true;
                }
            }
            Part::Expr(e) => {
                // Longest first: where the operator allows, an expression takes what it can.
                let rest = &self.uri[pos..];
                let limit = rest
                    .char_indices()
                    .find(|&(_, c)| !e.op.may_hold(c))
                    .map_or(rest.len(), |(i, _)| i);
                let ends: Vec<usize> = rest[..limit]
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain([limit])
                    .collect();
                for &end in ends.iter().rev() {
                    if self.steps == 0 {
                        break;
                    }
                    self.steps -= 1;
                    let Some(values) = e.parse(&rest[..end]) else {
                        continue;
                    };
                    let kept = self.out.len();
                    self.out.extend(values);
                    if self.from(part + 1, pos + end) {
                        return true;
                    }
                    self.out.truncate(kept);
                }
            }
        }
        self.failed.insert((part, pos));
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, Value)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn s(v: &str) -> Value {
        Value::Str(v.into())
    }

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

    /// The examples of RFC 6570 §3.2 (level 4 variables).
    #[test]
    fn expands_like_the_rfc() {
        let v = values(&[
            ("var", s("value")),
            ("hello", s("Hello World!")),
            ("path", s("/foo/bar")),
            ("empty", s("")),
            ("x", s("1024")),
            ("y", s("768")),
            (
                "list",
                Value::List(vec!["red".into(), "green".into(), "blue".into()]),
            ),
            (
                "keys",
                Value::Assoc(vec![
                    ("semi".into(), ";".into()),
                    ("dot".into(), ".".into()),
                    ("comma".into(), ",".into()),
                ]),
            ),
        ]);
        for (t, want) in [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("{var:3}", "val"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
            ("X{.x,y}", "X.1024.768"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
            ("{?undef}", ""),
            ("{x,undef,y}", "1024,768"),
        ] {
            assert_eq!(expand(t, &v).unwrap(), want, "{t}");
        }
    }

    #[test]
    fn a_simple_variable_spans_no_slash_query_or_fragment() {
        assert_eq!(
            matches("demo://items/{id}", "demo://items/42"),
            Some(vec![("id".into(), s("42"))])
        );
        for uri in ["demo://items/4/2", "demo://items/4?2", "demo://items/4#2"] {
            assert_eq!(matches("demo://items/{id}", uri), None, "{uri}");
        }
        assert_eq!(
            matches("file:///{+path}", "file:///a/b?c#d"),
            Some(vec![("path".into(), s("a/b?c#d"))])
        );
        assert_eq!(
            matches("doc://x{#frag}", "doc://x#a/b"),
            Some(vec![("frag".into(), s("a/b"))])
        );
        assert_eq!(matches("demo://items/{id}", "demo://other/1"), None);
        assert_eq!(matches("demo://fixed", "demo://fixed"), Some(vec![]));
        assert_eq!(matches("demo://fixed", "demo://fixed2"), None);
    }

    #[test]
    fn backtracks_over_literals_and_expressions() {
        assert_eq!(
            matches("repo://{+path}/blob/{rev}", "repo://a/blob/b/blob/main"),
            Some(vec![
                ("path".into(), s("a/blob/b")),
                ("rev".into(), s("main"))
            ])
        );
        assert_eq!(
            matches("x://{a}-{b}.txt", "x://one-two-three.txt"),
            Some(vec![("a".into(), s("one-two")), ("b".into(), s("three"))])
        );
        assert_eq!(
            matches("x://{a}{/b*}", "x://top/c/d"),
            Some(vec![
                ("a".into(), s("top")),
                ("b".into(), Value::List(vec!["c".into(), "d".into()]))
            ])
        );
        assert_eq!(
            matches("x://h/{name}", "x://h/My%20Notes"),
            Some(vec![("name".into(), s("My Notes"))])
        );
    }

    #[test]
    fn query_forms_take_any_subset_in_any_order() {
        let t = "search://q{?term,lang}";
        assert_eq!(
            matches(t, "search://q?term=rust&lang=en"),
            Some(vec![("term".into(), s("rust")), ("lang".into(), s("en"))])
        );
        assert_eq!(
            matches(t, "search://q?lang=en"),
            Some(vec![("lang".into(), s("en"))])
        );
        assert_eq!(matches(t, "search://q"), Some(vec![]));
        assert_eq!(matches(t, "search://q?other=1"), None);
        assert_eq!(
            matches("x://{id}{?a}{&b}", "x://7?a=1&b=2"),
            Some(vec![
                ("id".into(), s("7")),
                ("a".into(), s("1")),
                ("b".into(), s("2"))
            ])
        );
        assert_eq!(
            matches("x://{;p}", "x://;p"),
            Some(vec![("p".into(), s(""))])
        );
    }

    #[test]
    fn a_prefix_bounds_what_matches() {
        assert_eq!(
            matches("x://{id:3}", "x://abc"),
            Some(vec![("id".into(), s("abc"))])
        );
        assert_eq!(matches("x://{id:3}", "x://abcd"), None);
    }

    /// Matching recurses once per part: a template of 50,000 expressions once overflowed
    /// the stack (`serve` aborted). It is now invalid, naming the limit, and matches nothing.
    #[test]
    fn too_many_expressions_is_a_named_error() {
        let at_limit = "x://".to_string() + &"{a}".repeat(MAX_EXPRESSIONS);
        assert!(Template::parse(&at_limit).is_ok());
        let hostile = "x://".to_string() + &"{a}".repeat(50_000);
        // Every expression may be empty, so a match would recurse 50,000 deep.
        assert_eq!(matches(&hostile, "x://1"), None);
        let error = variables(&hostile).unwrap_err();
        assert!(error.contains("256 expressions"), "{error}");
    }

    #[test]
    fn a_hostile_pair_gives_up_quickly() {
        let template = "x://".to_string() + &"{+a}".repeat(40) + "!";
        let uri = "x://".to_string() + &"a".repeat(4000);
        assert_eq!(matches(&template, &uri), None);
        assert_eq!(matches("x://{+a}", &"x".repeat(MAX_URI + 1)), None);
    }
}
