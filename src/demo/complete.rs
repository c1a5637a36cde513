//! Argument completion for the two resource templates (`completion/complete`).

use rmcp::model::CompletionInfo;

use super::catalogue::Catalogue;

/// The project-file template and its argument.
pub(crate) const FILE_TEMPLATE: &str = "file:///project/{path}";
/// The note template and its argument.
pub(crate) const NOTE_TEMPLATE: &str = "demo://notes/{id}";

/// Published project paths starting with `prefix`, in list order, as values (`docs/My
/// Notes.md`), not as the URI spells them (`docs/My%20Notes.md`): the client's expansion
/// does the encoding, and a value sent encoded would be encoded twice.
pub(crate) fn paths(catalogue: Catalogue, prefix: &str) -> CompletionInfo {
    let mut values = Vec::new();
    let mut total = 0usize;
    catalogue.for_each_file_path(|path| {
        let value = crate::catalog::tree::percent_decode(path);
        if value.starts_with(prefix) {
            total += 1;
            if values.len() < CompletionInfo::MAX_VALUES {
                values.push(value.into_owned());
            }
        }
    });
    page(values, total)
}

/// Published note ids whose decimal spelling starts with `prefix`, ascending.
pub(crate) fn note_ids(catalogue: Catalogue, prefix: &str) -> CompletionInfo {
    let mut values = Vec::new();
    let mut total = 0usize;
    if prefix.bytes().all(|b| b.is_ascii_digit()) {
        for id in catalogue.note_ids() {
            let id = id.to_string();
            if id.starts_with(prefix) {
                total += 1;
                if values.len() < CompletionInfo::MAX_VALUES {
                    values.push(id);
                }
            }
        }
    }
    page(values, total)
}

fn page(values: Vec<String>, total: usize) -> CompletionInfo {
    let has_more = total > values.len();
    let total = u32::try_from(total).unwrap_or(u32::MAX);
    CompletionInfo::with_pagination(values, Some(total), has_more)
        .unwrap_or_else(|_| CompletionInfo::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_prefix_and_cap_at_100() {
        let cat = Catalogue::new(10_000);
        let all = paths(cat, "");
        assert_eq!(all.values.len(), 100);
        assert!(all.has_more_results());
        assert!(all.total.unwrap() > 7_000);

        let mcp = paths(cat, "src/mcp/");
        assert!(!mcp.values.is_empty());
        assert!(mcp.values.iter().all(|v| v.starts_with("src/mcp/")));
        assert!(mcp.total.unwrap() as usize >= mcp.values.len());

        let readme = paths(cat, "READ");
        assert_eq!(readme.values, ["README.md"]);
        assert_eq!(readme.total, Some(1));
        assert_eq!(readme.has_more, Some(false));

        // Values, not URI text: the client's expansion encodes them once.
        assert_eq!(paths(cat, "docs/My").values, ["docs/My Notes.md"]);
        assert_eq!(paths(cat, "docs/My N").values, ["docs/My Notes.md"]);

        assert!(paths(cat, "nope/").values.is_empty());
        assert_eq!(paths(cat, "nope/").total, Some(0));
    }

    /// What the form does with a suggestion: expand the template with it, then read.
    #[test]
    fn every_suggested_path_expands_to_a_uri_the_server_reads() {
        use crate::catalog::template::{Value, Values, expand};
        let cat = Catalogue::new(10_000);
        let mut suggested = paths(cat, "").values;
        suggested.extend(paths(cat, "docs/My").values);
        for value in suggested {
            let values = Values::from([("path".to_string(), Value::Str(value.clone()))]);
            let uri = expand(FILE_TEMPLATE, &values).unwrap();
            assert!(cat.lookup(&uri).is_some(), "{value} → {uri}");
        }
        let values = Values::from([("path".to_string(), Value::Str("docs/My Notes.md".into()))]);
        assert_eq!(
            expand(FILE_TEMPLATE, &values).unwrap(),
            "file:///project/docs%2FMy%20Notes.md"
        );
    }

    #[test]
    fn note_ids_start_with_the_typed_digits() {
        let cat = Catalogue::new(10_000);
        let ones = note_ids(cat, "1");
        assert_eq!(ones.values[0], "1");
        assert!(ones.values.iter().all(|v| v.starts_with('1')));
        assert!(ones.values.contains(&"100".to_owned()));
        let twelve = note_ids(cat, "12");
        assert!(twelve.values.iter().all(|v| v.starts_with("12")));
        assert!(!twelve.values.is_empty());
        assert!(note_ids(cat, "x").values.is_empty());
        assert_eq!(note_ids(Catalogue::new(0), "").total, Some(0));
    }
}
