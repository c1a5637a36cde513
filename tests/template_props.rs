//! Property tests of RFC 6570 templates: a URI expanded from values matches its template and
//! gives those values back (templates built so that the answer is unique).

use mcpick::catalog::template::{Template, Value, Values};
use proptest::prelude::*;

/// One expression: operator, and per variable its modifier and value.
#[derive(Debug, Clone)]
struct Piece {
    op: &'static str,
    vars: Vec<(&'static str, Value)>,
}

fn any_text() -> impl Strategy<Value = String> {
    "\\PC{1,6}"
}

/// Reserved expansion leaves these as they are; `/` and `,` are left out so that the
/// literal `/` between expressions and the list separator stay unambiguous.
fn reserved_text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9:@!$'()*+;=~_.-]{1,6}"
}

fn list() -> impl Strategy<Value = Value> {
    prop::collection::vec(any_text(), 1..4).prop_map(Value::List)
}

/// An expression that may stand between `/` literals.
fn middle() -> impl Strategy<Value = Piece> {
    prop_oneof![
        any_text().prop_map(|v| Piece {
            op: "",
            vars: vec![("", Value::Str(v))]
        }),
        (any_text(), any_text()).prop_map(|(a, b)| Piece {
            op: "",
            vars: vec![("", Value::Str(a)), (":3", Value::Str(b))]
        }),
        list().prop_map(|l| Piece {
            op: "",
            vars: vec![("*", l)]
        }),
        reserved_text().prop_map(|v| Piece {
            op: "+",
            vars: vec![("", Value::Str(v))]
        }),
        "[^./#?]{1,6}".prop_map(|v| Piece {
            op: ".",
            vars: vec![("", Value::Str(v))]
        }),
        list().prop_map(|l| Piece {
            op: "/",
            vars: vec![("*", l)]
        }),
        ("\\PC{0,6}", "\\PC{0,6}").prop_map(|(a, b)| Piece {
            op: ";",
            vars: vec![("", Value::Str(a)), ("", Value::Str(b))]
        }),
    ]
}

/// An expression that can only end a template.
fn tail() -> impl Strategy<Value = Option<Piece>> {
    prop::option::of(prop_oneof![
        ("\\PC{0,6}", "\\PC{0,6}").prop_map(|(a, b)| Piece {
            op: "?",
            vars: vec![("", Value::Str(a)), ("", Value::Str(b))]
        }),
        list().prop_map(|l| Piece {
            op: "?",
            vars: vec![("*", l)]
        }),
        "[a-zA-Z0-9:@!$'()*+;=~_.?-]{1,6}".prop_map(|v| Piece {
            op: "#",
            vars: vec![("", Value::Str(v))]
        }),
    ])
}

/// The template text, the values to expand and what matching must give back.
fn case() -> impl Strategy<Value = (String, Values, Vec<(String, Value)>)> {
    (prop::collection::vec(middle(), 1..4), tail()).prop_map(|(middle, tail)| {
        let mut template = "t://h".to_string();
        let mut values = Values::new();
        let mut want = Vec::new();
        let mut n = 0;
        for piece in middle.iter().chain(tail.iter()) {
            // Before the tail too: `{+a}{?b}` is ambiguous (`+` may take a `?`).
            template.push('/');
            let mut names = Vec::new();
            for (modifier, value) in &piece.vars {
                let name = format!("v{n}");
                n += 1;
                names.push(format!("{name}{modifier}"));
                values.insert(name.clone(), value.clone());
                let given = match (modifier, value) {
                    (&":3", Value::Str(s)) => Value::Str(s.chars().take(3).collect()),
                    _ => value.clone(),
                };
                want.push((name, given));
            }
            template.push_str(&format!("{{{}{}}}", piece.op, names.join(",")));
        }
        (template, values, want)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn expand_then_match_gives_the_values_back((template, values, want) in case()) {
        let parsed = Template::parse(&template).unwrap();
        let uri = parsed.expand(&values);
        prop_assert_eq!(parsed.matches(&uri), Some(want), "{} → {}", template, uri);
    }

    /// A URI with one more segment is not an expansion of a template of simple variables.
    #[test]
    fn a_simple_variable_never_takes_a_slash(a in any_text(), b in any_text()) {
        let parsed = Template::parse("t://h/{a}/{b}").unwrap();
        let uri = parsed.expand(&Values::from([
            ("a".to_string(), Value::Str(a)),
            ("b".to_string(), Value::Str(b)),
        ]));
        prop_assert!(parsed.matches(&uri).is_some());
        prop_assert_eq!(parsed.matches(&format!("{uri}/more")), None);
    }

    /// `{var}` encodes a value once: the expansion holds only unreserved characters and
    /// `%XX` triplets, and decoding it gives the value back byte for byte (a `%` in the value
    /// is `%25`, a `/` is `%2F`).
    #[test]
    fn a_simple_value_is_encoded_exactly_once(value in "\\PC{0,24}") {
        let parsed = Template::parse("t://h/{v}").unwrap();
        let uri = parsed.expand(&Values::from([("v".to_string(), Value::Str(value.clone()))]));
        let expanded = uri.strip_prefix("t://h/").unwrap();
        let mut bytes = expanded.bytes();
        while let Some(b) = bytes.next() {
            if b == b'%' {
                let (h, l) = (bytes.next(), bytes.next());
                prop_assert!(h.is_some_and(|c| c.is_ascii_hexdigit()), "{}", uri);
                prop_assert!(l.is_some_and(|c| c.is_ascii_hexdigit()), "{}", uri);
            } else {
                prop_assert!(b.is_ascii_alphanumeric() || b"-._~".contains(&b), "{}", uri);
            }
        }
        prop_assert_eq!(decode(expanded), value);
    }

    /// `{+var}` passes reserved characters and existing `%XX` triplets as they are, and
    /// encodes the rest once.
    #[test]
    fn a_reserved_value_keeps_slashes_and_triplets(
        parts in prop::collection::vec(prop_oneof![
            "[a-zA-Z0-9/:@!$'()*+,;=~_.?#\\[\\]&-]{1,4}".prop_map(|s| (s.clone(), s)),
            Just(("%20".to_string(), "%20".to_string())),
            Just((" ".to_string(), "%20".to_string())),
            Just(("%".to_string(), "%25".to_string())),
            Just(("é".to_string(), "%C3%A9".to_string())),
        ], 1..6)
    ) {
        let value: String = parts.iter().map(|(v, _)| v.as_str()).collect();
        let want: String = parts.iter().map(|(_, e)| e.as_str()).collect();
        let parsed = Template::parse("t://h/{+v}").unwrap();
        let uri = parsed.expand(&Values::from([("v".to_string(), Value::Str(value.clone()))]));
        // A lone `%` followed by two hex digits of the next part is a triplet: skip those.
        let lone_then_hex = value.as_bytes().windows(3).any(|w| {
            w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit()
        }) && parts.iter().any(|(v, _)| v == "%");
        prop_assume!(!lone_then_hex);
        prop_assert_eq!(uri, format!("t://h/{want}"), "value {:?}", value);
    }
}

/// Percent-decodes `s` (valid `%XX` triplets only).
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}
