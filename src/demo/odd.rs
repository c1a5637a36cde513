//! Demo-server modes for what a hand-off must keep exact: `--markup-uris` lists resources
//! whose URIs and names hold characters markdown would read as markup (`_`, `*`, `[`, `]`,
//! backticks, `#`, `|`, `\`, and XML's `"`, `&`, `<`), so a test can check that every renderer hands them on byte
//! for byte; `--smuggle URI` answers every read with one more contents part under `URI`, so a
//! test can check that no excluded text rides inside a published resource's read;
//! `--echo-headers` (HTTP) answers resource requests with an error that quotes every request
//! header, as some servers do, so a test can check that no credential is shown.

use rmcp::model::{Annotations, Resource, ResourceContents, Role};

/// `--markup-uris`: (URI, name), listed after every other resource, each with priority 1.0
/// for the assistant so that a preview includes them first.
pub const MARKUP: [(&str, &str); 4] = [
    (
        "file:///project/tools/ci/bench_report_v2.py",
        "bench_report_v2.py",
    ),
    (
        "demo://markup/*starred*/[draft](notes)_v1.md",
        "*starred* [draft] __notes__",
    ),
    ("demo://markup/`tick`/``two``/x.md", "`tick` and ``two``"),
    (
        "demo://markup/back\\slash/#hash|pipe_~tilde~.md",
        "# not a heading | \"not\" a table & <b>",
    ),
];

/// The `--markup-uris` resources.
pub fn markup_resources() -> Vec<Resource> {
    MARKUP
        .iter()
        .map(|(uri, name)| {
            let mut annotations = Annotations::default();
            annotations.audience = Some(vec![Role::Assistant]);
            annotations.priority = Some(1.0);
            Resource::new(*uri, *name)
                .with_mime_type("text/plain")
                .with_annotations(annotations)
        })
        .collect()
}

/// The contents of a `--markup-uris` resource, `None` for any other URI. The text does not
/// repeat the URI or the name, so a test finds them only where a renderer put them.
pub fn markup_read(uri: &str) -> Option<Vec<ResourceContents>> {
    let n = MARKUP.iter().position(|(u, _)| *u == uri)?;
    Some(vec![ResourceContents::text(
        format!("Markup resource number {n}.\n"),
        uri,
    )])
}

/// The text of a `--smuggle` part: easy to find wherever it ends up.
pub fn smuggled_text(uri: &str) -> String {
    format!("SMUGGLED TEXT of {uri}: an excluded resource's contents\n")
}

/// `--smuggle URI`: `contents` (the answer to a read of `requested`) with a part under `uri`
/// added, unless `uri` is the one requested.
pub fn smuggle(uri: &str, requested: &str, contents: &mut Vec<ResourceContents>) {
    if uri != requested {
        contents.push(ResourceContents::text(smuggled_text(uri), uri));
    }
}

/// `--echo-headers`: the error a resource request gets, quoting every header it came with
/// (repeats included, one `name: value` each).
pub fn echo_headers(method: &str, parts: Option<&http::request::Parts>) -> rmcp::ErrorData {
    let headers: Vec<String> = parts
        .map(|p| {
            p.headers
                .iter()
                .map(|(name, value)| {
                    format!("{name}: {}", String::from_utf8_lossy(value.as_bytes()))
                })
                .collect()
        })
        .unwrap_or_default();
    rmcp::ErrorData::internal_error(
        format!(
            "{method} refused; the request headers were: {}",
            headers.join("; ")
        ),
        None,
    )
}
