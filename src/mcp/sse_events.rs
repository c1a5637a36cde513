//! A server-sent-events parser for the legacy HTTP+SSE transport that never holds more than
//! the message-size limit: an event whose data grows past it is reported once, with the id
//! of the request it answers (see [`super::limit::Message`]), and its remaining bytes are
//! only scanned, never kept.

use serde_json::Value;

use super::limit::{Finished, Message, MessageLimit, Verdict};

/// Longest field name kept; longer names are fields mcpick ignores anyway.
const MAX_FIELD: usize = 16;
/// Longest event name kept.
const MAX_NAME: usize = 64;

/// What the parser found in the bytes pushed so far.
#[derive(Debug, PartialEq)]
pub(crate) enum Item {
    /// A complete event within the limit.
    Event { name: Option<String>, data: String },
    /// An event above the limit that answers request `id` (reported as soon as both are
    /// known; its end is not waited for).
    TooLarge(Value),
    /// An event above the limit without an id.
    Dropped,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Data,
    Event,
    Ignore,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Line {
    /// Nothing read on this line yet.
    Start,
    /// Reading the field name.
    Field,
    /// Reading the value of a field.
    Value(Kind),
}

#[derive(Debug)]
pub(crate) struct EventReader {
    line: Line,
    field: Vec<u8>,
    skip_space: bool,
    prev_cr: bool,
    name: Vec<u8>,
    data: Message,
    has_data: bool,
}

impl EventReader {
    pub(crate) fn new(limit: MessageLimit) -> Self {
        EventReader {
            line: Line::Start,
            field: Vec::new(),
            skip_space: false,
            prev_cr: false,
            name: Vec::new(),
            data: Message::new(limit),
            has_data: false,
        }
    }

    /// Parses the next chunk of the stream, appending what it completes to `out`.
    pub(crate) fn push(&mut self, mut chunk: &[u8], out: &mut Vec<Item>) {
        while !chunk.is_empty() {
            if std::mem::take(&mut self.prev_cr) && chunk[0] == b'\n' {
                chunk = &chunk[1..];
                continue;
            }
            let end = chunk.iter().position(|b| matches!(b, b'\n' | b'\r'));
            let piece = &chunk[..end.unwrap_or(chunk.len())];
            self.take(piece, out);
            match end {
                Some(at) => {
                    self.prev_cr = chunk[at] == b'\r';
                    self.end_line(out);
                    chunk = &chunk[at + 1..];
                }
                None => chunk = &[],
            }
        }
    }

    /// Part of one line (no line break in it).
    fn take(&mut self, mut piece: &[u8], out: &mut Vec<Item>) {
        if piece.is_empty() {
            return;
        }
        if matches!(self.line, Line::Start | Line::Field) {
            self.line = Line::Field;
            let Some(colon) = piece.iter().position(|b| *b == b':') else {
                self.push_field(piece);
                return;
            };
            self.push_field(&piece[..colon]);
            let kind = self.kind();
            self.line = Line::Value(kind);
            self.skip_space = true;
            piece = &piece[colon + 1..];
            if kind == Kind::Data {
                self.begin_data_line(out);
            }
        }
        if self.skip_space && !piece.is_empty() {
            self.skip_space = false;
            if piece[0] == b' ' {
                piece = &piece[1..];
            }
        }
        match self.line {
            Line::Value(Kind::Data) => {
                let verdict = self.data.push(piece);
                report(verdict, out);
            }
            Line::Value(Kind::Event) => {
                let room = MAX_NAME.saturating_sub(self.name.len());
                self.name.extend_from_slice(&piece[..piece.len().min(room)]);
            }
            _ => {}
        }
    }

    fn push_field(&mut self, piece: &[u8]) {
        let room = (MAX_FIELD + 1).saturating_sub(self.field.len());
        self.field
            .extend_from_slice(&piece[..piece.len().min(room)]);
    }

    fn kind(&self) -> Kind {
        match self.field.as_slice() {
            b"data" => Kind::Data,
            b"event" => Kind::Event,
            _ => Kind::Ignore,
        }
    }

    /// Data lines of one event are joined with `\n`.
    fn begin_data_line(&mut self, out: &mut Vec<Item>) {
        if self.has_data {
            report(self.data.push(b"\n"), out);
        }
        self.has_data = true;
    }

    fn end_line(&mut self, out: &mut Vec<Item>) {
        match self.line {
            Line::Start => self.dispatch(out),
            // A field without a colon has an empty value.
            Line::Field => {
                if self.kind() == Kind::Data {
                    self.begin_data_line(out);
                }
            }
            Line::Value(_) => {}
        }
        self.line = Line::Start;
        self.field.clear();
        self.skip_space = false;
    }

    /// A blank line ends the event.
    fn dispatch(&mut self, out: &mut Vec<Item>) {
        let name = std::mem::take(&mut self.name);
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        match self.data.finish() {
            Finished::Complete(data) => out.push(Item::Event {
                name: (!name.is_empty()).then(|| String::from_utf8_lossy(&name).into_owned()),
                data: String::from_utf8_lossy(&data).into_owned(),
            }),
            Finished::Reported => {}
            Finished::Dropped => out.push(Item::Dropped),
        }
    }
}

fn report(verdict: Verdict, out: &mut Vec<Item>) {
    if let Verdict::TooLarge(id) = verdict {
        out.push(Item::TooLarge(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(chunks: &[&[u8]], limit: MessageLimit) -> Vec<Item> {
        let mut reader = EventReader::new(limit);
        let mut out = Vec::new();
        for chunk in chunks {
            reader.push(chunk, &mut out);
        }
        out
    }

    fn event(name: Option<&str>, data: &str) -> Item {
        Item::Event {
            name: name.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    #[test]
    fn parses_events_across_chunks_and_line_endings() {
        let stream: &[u8] = b"event: endpoint\r\ndata: /message?s=1\r\n\r\n: comment\n\nevent:message\ndata:{\"a\":\ndata: 1}\n\nid: 7\ndata\n\n";
        let whole = parse(&[stream], MessageLimit::from_mib(1));
        let expected = vec![
            event(Some("endpoint"), "/message?s=1"),
            event(Some("message"), "{\"a\":\n1}"),
            event(None, ""),
        ];
        assert_eq!(whole, expected);
        // Byte by byte gives the same events.
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(parse(&bytes, MessageLimit::from_mib(1)), expected);
    }

    #[test]
    fn an_oversized_event_is_reported_with_its_id_and_the_stream_goes_on() {
        let limit = MessageLimit::from_mib(1);
        let big = vec![b'x'; limit.bytes()];
        let items = parse(
            &[
                b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"t\":\"",
                &big,
                &big,
                b"\"}}\n\n",
                b"data: {\"id\":4}\n\n",
            ],
            limit,
        );
        assert_eq!(
            items,
            vec![Item::TooLarge(json!(3)), event(None, "{\"id\":4}")]
        );
        let items = parse(
            &[b"data: {\"method\":\"x\",\"p\":\"", &big, b"\"}\n\n"],
            limit,
        );
        assert_eq!(items, vec![Item::Dropped]);
    }
}
