//! `mcpick ls --json` written as the listing arrives: a million resources never sit in
//! memory, only the page at hand (and the pages of servers whose turn has not come).
//!
//! The document is the one [`super::ls::Listing`] serialises to, byte for byte: resources
//! first (streamed), then templates and the servers' reports, which are only known once
//! every listing has ended. Resources come in catalogue order, servers in order: the first
//! server still listing is written page by page as its pages arrive; the pages of later
//! servers wait in the catalogue and are written when their turn comes.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::rc::Rc;

use rmcp::model::Resource;
use tokio::sync::Notify;

use crate::catalog::{AppendReport, Catalogue, Duplicate, ResourceEntry, ServerId, TemplateEntry};

use super::ls::ServerReport;

/// The document, written piece by piece exactly as serialising a whole
/// [`super::ls::Listing`] with [`crate::safe_json::to_writer_pretty`] writes it. The first
/// write error is kept (and later writes skipped); [`JsonOut::failed`] tells it.
pub struct JsonOut<W: Write> {
    out: W,
    resources: usize,
    error: Option<std::io::Error>,
    /// Told once, on the first write error.
    broken: Rc<Notify>,
}

impl<W: Write> JsonOut<W> {
    /// Starts the document: `{`, then the resources array's opening.
    pub fn start(out: W) -> Self {
        let mut json = JsonOut {
            out,
            resources: 0,
            error: None,
            broken: Rc::new(Notify::new()),
        };
        json.write(|out| out.write_all(b"{\n  \"resources\": ["));
        json
    }

    fn write(&mut self, f: impl FnOnce(&mut W) -> std::io::Result<()>) {
        if self.error.is_none()
            && let Err(e) = f(&mut self.out)
        {
            self.error = Some(e);
            self.broken.notify_one();
        }
    }

    /// Whether a write failed (the reader went away, the disk is full).
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Appends one resource to the array.
    pub fn resource(&mut self, entry: &ResourceEntry) {
        let first = self.resources == 0;
        self.resources += 1;
        self.write(|out| {
            out.write_all(if first { b"\n" } else { b",\n" })?;
            nested(out, entry, "    ", true)
        });
    }

    /// Hands what is written so far on to the reader.
    pub fn flush(&mut self) {
        self.write(|out| out.flush());
    }

    /// Closes the resources array, writes the templates and the servers' reports, and ends
    /// the document (with a final newline). Gives the writer back, or the first error of
    /// the whole document.
    pub fn finish(
        mut self,
        templates: &[TemplateEntry],
        servers: &[ServerReport],
    ) -> std::io::Result<W> {
        let any = self.resources > 0;
        self.write(|out| {
            out.write_all(if any { b"\n  ]" } else { b"]" })?;
            out.write_all(b",\n  \"templates\": ")?;
            nested(out, &templates, "  ", false)?;
            out.write_all(b",\n  \"servers\": ")?;
            nested(out, &servers, "  ", false)?;
            out.write_all(b"\n}\n")?;
            out.flush()
        });
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.out),
        }
    }
}

/// Writes `value` pretty, as a value nested at `indent` inside a pretty document: every
/// line after the first indented (the first too when `first_indented`). Strings never hold
/// a raw line break in JSON, so lines are the document's own.
fn nested(
    out: &mut impl Write,
    value: &impl serde::Serialize,
    indent: &str,
    first_indented: bool,
) -> std::io::Result<()> {
    let text = crate::safe_json::to_string_pretty(value)?;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        if i > 0 || first_indented {
            out.write_all(indent.as_bytes())?;
        }
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Where listed resources go while `ls` lists.
pub enum Sink<W: Write> {
    /// Into the catalogue: a table, a tree, a filter or a sort needs all of them first.
    Keep(Catalogue),
    /// Out as JSON as they arrive.
    Stream(Stream<W>),
}

/// The streaming state: whose turn it is, and what that server listed so far.
pub struct Stream<W: Write> {
    pub json: JsonOut<W>,
    /// The pages of servers whose turn has not come, and every server's templates.
    pub waiting: Catalogue,
    /// The server being written (its index); every earlier one is finished and written.
    live: usize,
    finished: Vec<bool>,
    /// The live server's URIs so far, as 128-bit hashes (a repeated URI is a duplicate, as
    /// the catalogue counts it): 16 bytes a resource instead of the resource.
    seen: HashSet<u128>,
    /// Resources written, per server.
    written: Vec<usize>,
}

fn uri_key(uri: &str) -> u128 {
    let half = |salt: u8| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        uri.hash(&mut h);
        h.finish() as u128
    };
    (half(0) << 64) | half(1)
}

impl<W: Write> Sink<W> {
    /// Streams to `out`; `catalogue` names the servers (and holds nothing else yet).
    pub fn stream(out: W, catalogue: Catalogue) -> Self {
        let n = catalogue.server_count();
        Sink::Stream(Stream {
            json: JsonOut::start(out),
            waiting: catalogue,
            live: 0,
            finished: vec![false; n],
            seen: HashSet::new(),
            written: vec![0; n],
        })
    }

    /// The catalogue that keeps what is not written yet (and every server's templates).
    pub fn catalogue_mut(&mut self) -> &mut Catalogue {
        match self {
            Sink::Keep(catalogue) => catalogue,
            Sink::Stream(stream) => &mut stream.waiting,
        }
    }

    /// Takes one page of a server's listing; duplicates are skipped and reported, as the
    /// catalogue's [`Catalogue::append`] does.
    pub fn page(&mut self, server: ServerId, items: &[Resource]) -> AppendReport {
        match self {
            Sink::Keep(catalogue) => catalogue.append(server, items),
            Sink::Stream(stream) if server as usize != stream.live => {
                stream.waiting.append(server, items)
            }
            Sink::Stream(stream) => stream.write_page(server, items),
        }
    }

    /// The resources a server listed so far.
    pub fn count(&self, server: ServerId) -> usize {
        match self {
            Sink::Keep(catalogue) => catalogue.server_len(server),
            Sink::Stream(stream) => {
                stream.written[server as usize] + stream.waiting.server_len(server)
            }
        }
    }

    /// A server's listing ended: when it was the live one, the next unfinished server's
    /// waiting pages are written and it becomes the live one.
    pub fn finished(&mut self, server: ServerId) {
        let Sink::Stream(stream) = self else { return };
        stream.finished[server as usize] = true;
        while stream.live < stream.finished.len() && stream.finished[stream.live] {
            stream.live += 1;
            if stream.live < stream.finished.len() {
                stream.promote(stream.live as ServerId);
            }
        }
        stream.json.flush();
    }

    /// Told when writing failed: listing further is of no use. Never, when nothing is
    /// written while listing.
    pub fn broken(&self) -> Rc<Notify> {
        match self {
            Sink::Keep(_) => Rc::new(Notify::new()),
            Sink::Stream(stream) => stream.json.broken.clone(),
        }
    }
}

impl<W: Write> Stream<W> {
    fn write_page(&mut self, server: ServerId, items: &[Resource]) -> AppendReport {
        let mut report = AppendReport::default();
        let mut kept = Vec::with_capacity(items.len());
        for (index, resource) in items.iter().enumerate() {
            if self.seen.insert(uri_key(&resource.uri)) {
                kept.push(resource);
            } else {
                report.duplicates.push(Duplicate {
                    index,
                    uri: resource.uri.clone(),
                });
            }
        }
        // A catalogue of this page alone gives each entry exactly the form the whole
        // catalogue would.
        let mut page = Catalogue::new();
        let id = page.server(self.waiting.server_name(server));
        report.added = page.append(id, kept).added;
        for (item, _) in page.iter() {
            if let Some(entry) = page.entry(item) {
                self.json.resource(&entry);
            }
        }
        self.written[server as usize] += report.added;
        self.json.flush();
        report
    }

    /// Makes `server` the live one: writes what it listed while waiting, remembers its
    /// URIs, and frees its pages (its templates stay).
    fn promote(&mut self, server: ServerId) {
        self.seen.clear();
        let ids: Vec<_> = self
            .waiting
            .iter()
            .filter(|(id, _)| id.server == server)
            .map(|(id, _)| id)
            .collect();
        for id in ids {
            if let Some(entry) = self.waiting.entry(id) {
                self.seen.insert(uri_key(&entry.uri));
                self.json.resource(&entry);
            }
        }
        self.written[server as usize] += self.waiting.server_len(server);
        self.waiting.replace(server, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::ls::{Listing, ServerReport, listing};

    fn resource(uri: &str, name: &str) -> Resource {
        serde_json::from_value(serde_json::json!({"uri": uri, "name": name})).unwrap()
    }

    fn report(name: &str, count: usize) -> ServerReport {
        ServerReport {
            name: name.into(),
            transport: "stdio",
            protocol_version: Some("2025-11-25".into()),
            server_info: None,
            capabilities: Some(serde_json::json!({"resources": {}})),
            has_resources: true,
            resource_count: count,
            template_count: 0,
            capped: false,
            error: None,
            warnings: Vec::new(),
            warning_count: 0,
        }
    }

    /// What serialising the whole document writes, for the same catalogue.
    fn whole(listing: &Listing) -> String {
        let mut text = crate::safe_json::to_string_pretty(listing).unwrap();
        text.push('\n');
        text
    }

    #[test]
    fn the_streamed_document_is_the_whole_one_byte_for_byte() {
        let a = |i: usize| resource(&format!("file:///a/{i}"), &format!("a \u{1b}[31m{i}\u{9b}"));
        let b = |i: usize| resource(&format!("mem://b/{i}"), "b");
        // Pages arrive interleaved: b (still waiting for a) first, then a, with a
        // duplicate in each.
        let mut names = Catalogue::new();
        names.server("a");
        names.server("b");
        let mut sink = Sink::stream(Vec::new(), names.clone());
        let mut whole_catalogue = names;
        // b's pages wait for a; a ends; b's last page (with a duplicate of a page that
        // waited) is written as it arrives.
        let pages: [(ServerId, Vec<Resource>); 4] = [
            (1, vec![b(0), b(1), b(0)]),
            (0, vec![a(0), a(1)]),
            (0, vec![a(1), a(2)]),
            (1, vec![b(2), b(1)]),
        ];
        for (n, (server, page)) in pages.iter().enumerate() {
            if n == 3 {
                sink.finished(0);
            }
            let streamed = sink.page(*server, page);
            let kept = whole_catalogue.append(*server, page);
            assert_eq!(streamed, kept, "page {n}");
            assert_eq!(streamed.duplicates.len(), [1, 0, 1, 1][n], "page {n}");
        }
        let template: rmcp::model::ResourceTemplate =
            serde_json::from_value(serde_json::json!({"uriTemplate": "mem://b/{x}", "name": "t"}))
                .unwrap();
        sink.catalogue_mut().set_templates(1, [&template]);
        whole_catalogue.set_templates(1, [&template]);
        assert_eq!((sink.count(0), sink.count(1)), (3, 3));
        sink.finished(1);
        let servers = vec![report("a", 3), report("b", 3)];
        let Sink::Stream(stream) = sink else {
            unreachable!()
        };
        let templates: Vec<TemplateEntry> = stream.waiting.templates().cloned().collect();
        let text = String::from_utf8(stream.json.finish(&templates, &servers).unwrap()).unwrap();
        let ids: Vec<_> = whole_catalogue.iter().map(|(id, _)| id).collect();
        let expected = whole(&listing(&whole_catalogue, &ids, servers));
        assert_eq!(text, expected);
        // Server b's first page waited for a's turn; C0 and C1 controls are escaped as the
        // whole document escapes them.
        assert!(text.find("file:///a/2").unwrap() < text.find("mem://b/0").unwrap());
        assert!(
            text.contains("\\u001b[31m") && text.contains("\\u009b"),
            "{text}"
        );
    }

    #[test]
    fn an_empty_listing_is_the_whole_one_too() {
        let mut names = Catalogue::new();
        names.server("a");
        let mut sink = Sink::stream(Vec::new(), names.clone());
        sink.finished(0);
        let Sink::Stream(stream) = sink else {
            unreachable!()
        };
        let servers = vec![report("a", 0)];
        let text = String::from_utf8(stream.json.finish(&[], &servers).unwrap()).unwrap();
        assert_eq!(text, whole(&listing(&names, &[], servers)));
    }

    /// A writer that fails once `left` bytes are written, as a closed pipe does.
    struct Breaks {
        left: usize,
    }

    impl Write for Breaks {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.left {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
            self.left -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_write_error_is_told_once_and_kept() {
        let mut names = Catalogue::new();
        names.server("a");
        let mut sink = Sink::stream(Breaks { left: 100 }, names);
        let broken = sink.broken();
        let page: Vec<Resource> = (0..50)
            .map(|i| resource(&format!("file:///{i}"), "x"))
            .collect();
        sink.page(0, &page);
        // Told (the permit waits for the listener), and the listing may stop.
        tokio::time::timeout(std::time::Duration::from_secs(1), broken.notified())
            .await
            .expect("the broken writer is told");
        sink.page(0, &page);
        let Sink::Stream(stream) = sink else {
            unreachable!()
        };
        let error = stream.json.finish(&[], &[]).err().expect("the write error");
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe);
    }
}
