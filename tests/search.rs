//! The search syntax over whole resources: property tests against a plain-Rust model of what
//! each term means (README, "Search"), and the cases users reported on the demo catalogue.

use std::collections::BTreeSet;

use mcpick::catalog::{Catalogue, ItemId, Match, MatcherKind, Search};
use proptest::prelude::*;
use rmcp::model::Resource;

/// One resource's searchable fields, as the model sees them.
struct Fields {
    title: String,
    name: String,
    uri: String,
    server: String,
    description: String,
}

impl Fields {
    fn of(cat: &Catalogue, id: ItemId) -> Self {
        let item = cat.get(id).unwrap();
        Fields {
            title: item.title().unwrap_or("").to_string(),
            name: item.name().to_string(),
            uri: item.uri().to_string(),
            server: cat.server_name(id.server).to_string(),
            description: item.description().unwrap_or("").to_string(),
        }
    }

    fn primary(&self) -> [&str; 3] {
        [&self.title, &self.name, &self.uri]
    }

    fn all(&self) -> [&str; 5] {
        [
            &self.title,
            &self.name,
            &self.uri,
            &self.server,
            &self.description,
        ]
    }
}

/// Smart case: a term with an upper-case letter matches case exactly, others ignore case.
fn fold(text: &str, term: &str) -> (String, String) {
    if term.chars().any(char::is_uppercase) {
        (text.to_string(), term.to_string())
    } else {
        (text.to_lowercase(), term.to_string())
    }
}

fn contains(text: &str, term: &str) -> bool {
    let (t, n) = fold(text, term);
    t.contains(&n)
}

fn starts_with(text: &str, term: &str) -> bool {
    let (t, n) = fold(text, term);
    t.starts_with(&n)
}

fn ends_with(text: &str, term: &str) -> bool {
    let (t, n) = fold(text, term);
    t.ends_with(&n)
}

/// The term's letters in order, gaps allowed.
fn scattered(text: &str, term: &str) -> bool {
    let (t, n) = fold(text, term);
    let mut rest = t.chars();
    n.chars().all(|c| rest.any(|h| h == c))
}

/// A URI's path: what follows its `scheme://authority`.
fn uri_path(uri: &str) -> &str {
    let Some(at) = uri.find("://") else {
        return uri;
    };
    let rest = &uri[at + 3..];
    rest.find(['/', '?', '#']).map_or("", |end| &rest[end..])
}

/// A fuzzy term (no `:`) in a title, name or URI: scattered in the title, the name or the
/// URI's path; never over the URI's scheme and authority, where it holds only as a run.
fn fuzzy_primary(f: &Fields, term: &str) -> bool {
    scattered(&f.title, term)
        || scattered(&f.name, term)
        || scattered(uri_path(&f.uri), term)
        || contains(&f.uri, term)
}

fn field_text() -> impl Strategy<Value = String> {
    "[abcAB./ ]{1,10}"
}

fn resource() -> impl Strategy<Value = Resource> {
    let uri = (
        prop_oneof![Just("file:///"), Just("https://"), Just("demo://")],
        "[abcAB./]{0,8}",
    )
        .prop_map(|(scheme, rest)| format!("{scheme}{rest}"));
    (
        uri,
        "[abcAB.]{1,6}",
        prop::option::of(field_text()),
        prop::option::of("[abcAB. ]{0,24}"),
    )
        .prop_map(|(uri, name, title, description)| {
            let mut r = Resource::new(uri, name);
            if let Some(t) = title {
                r = r.with_title(t);
            }
            if let Some(d) = description {
                r = r.with_description(d);
            }
            r
        })
}

/// One to three servers (names may repeat: then they are one server).
fn catalogue() -> impl Strategy<Value = Catalogue> {
    prop::collection::vec(
        ("[abc]{1,3}", prop::collection::vec(resource(), 0..25)),
        1..4,
    )
    .prop_map(|servers| {
        let mut cat = Catalogue::new();
        for (name, resources) in servers {
            let s = cat.server(&name);
            cat.append(s, &resources);
        }
        cat
    })
}

/// A search needle: short, from the fields' alphabet, sometimes upper-case.
fn needle() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[abc]{1,3}",
        1 => "[abA.]{1,2}",
        1 => prop_oneof![Just("file".to_string()), Just("https".to_string()), Just("demo".to_string())],
    ]
}

fn engines() -> impl Strategy<Value = MatcherKind> {
    prop::sample::select(vec![MatcherKind::Nucleo, MatcherKind::Skim])
}

fn find(cat: &Catalogue, kind: MatcherKind, query: &str) -> Vec<Match> {
    Search { kind, threads: 2 }.find(&cat.snapshot(), query)
}

fn ids(matches: &[Match]) -> BTreeSet<ItemId> {
    matches.iter().map(|m| m.id).collect()
}

/// The resources for which `holds` is true, by the model.
fn expected(cat: &Catalogue, holds: impl Fn(&Fields) -> bool) -> BTreeSet<ItemId> {
    cat.iter()
        .map(|(id, _)| id)
        .filter(|&id| holds(&Fields::of(cat, id)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_negation_excludes_a_resource_when_any_field_contains_it(
        cat in catalogue(), t in needle(), kind in engines(),
    ) {
        let found = ids(&find(&cat, kind, &format!("!{t}")));
        let want = expected(&cat, |f| !f.all().iter().any(|text| contains(text, &t)));
        prop_assert_eq!(found, want);
    }

    #[test]
    fn anchors_match_the_start_or_end_of_a_title_name_or_uri(
        cat in catalogue(), t in needle(), kind in engines(),
    ) {
        let found = ids(&find(&cat, kind, &format!("^{t}")));
        prop_assert_eq!(found, expected(&cat, |f| f.primary().iter().any(|x| starts_with(x, &t))));
        let found = ids(&find(&cat, kind, &format!("{t}$")));
        prop_assert_eq!(found, expected(&cat, |f| f.primary().iter().any(|x| ends_with(x, &t))));
        let found = ids(&find(&cat, kind, &format!("^{t}$")));
        prop_assert_eq!(found, expected(&cat, |f| f.primary().iter().any(|x| fold(x, &t).0 == fold(x, &t).1)));
        let found = ids(&find(&cat, kind, &format!("!^{t}")));
        prop_assert_eq!(found, expected(&cat, |f| !f.primary().iter().any(|x| starts_with(x, &t))));
    }

    #[test]
    fn an_exact_term_is_a_substring_of_some_field(
        cat in catalogue(), t in needle(), kind in engines(),
    ) {
        let found = find(&cat, kind, &format!("'{t}"));
        prop_assert_eq!(ids(&found), expected(&cat, |f| f.all().iter().any(|x| contains(x, &t))));
        // A run in the title, name or URI ranks above one in the server name or description.
        let primary: Vec<bool> = found
            .iter()
            .map(|m| Fields::of(&cat, m.id).primary().iter().any(|x| contains(x, &t)))
            .collect();
        prop_assert!(primary.windows(2).all(|w| w[0] || !w[1]), "{:?}", primary);
    }

    #[test]
    fn a_fuzzy_term_scatters_only_in_titles_names_and_uri_paths(
        cat in catalogue(), t in needle(), kind in engines(),
    ) {
        let found = find(&cat, kind, &t);
        let model = |f: &Fields| {
            fuzzy_primary(f, &t)
                || contains(&f.server, &t)
                || contains(&f.description, &t)
        };
        if kind == MatcherKind::Nucleo {
            prop_assert_eq!(ids(&found), expected(&cat, model));
        } else {
            // skim may miss a scattered match; it never invents one.
            prop_assert!(ids(&found).is_subset(&expected(&cat, model)));
        }
        // Tiers, best first: title/name/URI, then the server name, then the description.
        let tier = |id: ItemId| {
            let f = Fields::of(&cat, id);
            if fuzzy_primary(&f, &t) {
                0
            } else if contains(&f.server, &t) {
                1
            } else {
                2
            }
        };
        let tiers: Vec<u8> = found.iter().map(|m| tier(m.id)).collect();
        prop_assert!(tiers.windows(2).all(|w| w[0] <= w[1]), "{:?}", tiers);
    }

    #[test]
    fn terms_are_anded_and_results_are_resources(
        cat in catalogue(),
        terms in prop::collection::vec(
            (prop::sample::select(vec!["", "!", "'", "^", "!^"]), needle(), any::<bool>()),
            1..4,
        ),
        kind in engines(),
    ) {
        let terms: Vec<String> = terms
            .into_iter()
            .map(|(prefix, t, dollar)| format!("{prefix}{t}{}", if dollar { "$" } else { "" }))
            .collect();
        let query = terms.join(" ");
        let found = find(&cat, kind, &query);
        let all: BTreeSet<ItemId> = cat.iter().map(|(id, _)| id).collect();
        prop_assert_eq!(ids(&found).len(), found.len(), "a resource twice");
        prop_assert!(ids(&found).is_subset(&all));
        let each = terms
            .iter()
            .map(|t| ids(&find(&cat, kind, t)))
            .reduce(|a, b| &a & &b)
            .unwrap();
        prop_assert_eq!(ids(&found), each, "query {:?}", query);
    }
}

// The cases reported on the demo catalogue (300 resources, as `mcpick --demo` lists them).

fn demo() -> Catalogue {
    let mut cat = Catalogue::new();
    let s = cat.server("demo");
    cat.append(s, &mcpick::demo::demo_resources(300));
    cat
}

fn uris(cat: &Catalogue, matches: &[Match]) -> Vec<String> {
    matches
        .iter()
        .map(|m| cat.get(m.id).unwrap().uri().to_string())
        .collect()
}

#[test]
fn demo_negation_excludes_readme_resources() {
    let cat = demo();
    for kind in [MatcherKind::Nucleo, MatcherKind::Skim] {
        let found = find(&cat, kind, "!readme");
        let readmes = cat
            .iter()
            .filter(|&(id, _)| {
                Fields::of(&cat, id)
                    .all()
                    .iter()
                    .any(|x| x.to_lowercase().contains("readme"))
            })
            .count();
        assert!(readmes > 0);
        assert_eq!(found.len(), 300 - readmes, "{kind:?}");
        assert!(!uris(&cat, &found).contains(&"file:///project/README.md".to_string()));
    }
}

#[test]
fn demo_anchors_match_uri_schemes_and_titles() {
    let cat = demo();
    let search = Search::default();
    let files = uris(&cat, &search.find(&cat.snapshot(), "^file"));
    assert!(files.len() > 100, "{}", files.len());
    let all_files = cat
        .iter()
        .filter(|(_, item)| item.uri().starts_with("file://"))
        .count();
    assert_eq!(files.len(), all_files);
    assert!(files.iter().all(|u| u.starts_with("file://")));
    let wiki = uris(&cat, &search.find(&cat.snapshot(), "^https"));
    assert!(!wiki.is_empty());
    assert!(wiki.iter().all(|u| u.starts_with("https://")));
    let project = search.find(&cat.snapshot(), "^Project");
    assert!(!project.is_empty());
    for m in &project {
        let item = cat.get(m.id).unwrap();
        assert!(
            item.title().unwrap_or("").starts_with("Project"),
            "{item:?}"
        );
    }
}

#[test]
fn demo_note_does_not_match_scattered_letters_in_descriptions() {
    let cat = demo();
    let found = Search::default().find(&cat.snapshot(), "note");
    assert!(!found.is_empty());
    for m in &found {
        let f = Fields::of(&cat, m.id);
        assert!(
            fuzzy_primary(&f, "note") || f.description.to_lowercase().contains("note"),
            "{}: {}",
            f.uri,
            f.description
        );
    }
    // Before: 149 of 300, most of them letters scattered through a description.
    assert!(found.len() < 100, "{} matches", found.len());
}

#[test]
fn demo_png_puts_the_png_file_first() {
    let cat = demo();
    for kind in [MatcherKind::Nucleo, MatcherKind::Skim] {
        let found = uris(&cat, &find(&cat, kind, "png"));
        assert_eq!(found[0], "demo://assets/logo.png", "{kind:?}: {found:?}");
    }
}

#[test]
fn demo_server_names_are_searchable() {
    let mut cat = Catalogue::new();
    let a = cat.server("github");
    let b = cat.server("notes");
    cat.append(a, &[Resource::new("x://one", "one")]);
    cat.append(b, &[Resource::new("x://two", "two")]);
    let found = Search::default().find(&cat.snapshot(), "github");
    assert_eq!(uris(&cat, &found), ["x://one"]);
    let found = Search::default().find(&cat.snapshot(), "!github");
    assert_eq!(uris(&cat, &found), ["x://two"]);
}
