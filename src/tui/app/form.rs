//! Templates in the browser: `T` lists every server's resource templates; Enter on one opens a
//! form with a field per variable (RFC 6570), the server's `completion/complete` suggestions
//! shown as you type (earlier fields passed as context; ↑/↓ pick one, Tab takes it); Enter
//! reads the expansion, and only an expansion that read joins the catalogue as a resource of
//! that server: the cursor goes to it, the contents pane shows what was read, and `+` pins it
//! like any resource. A read that fails leaves the catalogue as it was and says why in the form.
//!
//! A suggestion is a value, as the person would type it (`docs/My Notes.md`): the template's
//! expansion encodes it once, the RFC 6570 way for its operator (`{path}` encodes `/`,
//! `{+path}` keeps it).

use super::{App, Effect, ExpansionRead, Overlay};
use crate::catalog::template::{Template, Value, Values};
use crate::catalog::{ItemId, ServerId, TemplateEntry};
use crate::context::{Mark, Target};
use crate::sanitize;
use crate::tui::keymap::Action;

/// Suggestions shown under a field, at most.
pub const SUGGESTIONS: usize = 8;
/// A suggested value longer than this (in bytes) is not offered: it would be cut to show.
const MAX_SUGGESTION: usize = 4096;

/// The template form: which template, its fields, the focused one and its suggestions.
#[derive(Debug, Clone)]
pub struct TemplateForm {
    pub server: ServerId,
    pub template: TemplateEntry,
    pub fields: Vec<(String, String)>,
    pub focus: usize,
    /// The server's suggested values for the focused field, exactly as sent (drawn cleaned).
    pub suggestions: Vec<String>,
    /// The suggestion ↑/↓ point at, which Tab takes.
    pub chosen: usize,
    /// The newest completion request (older answers are dropped).
    pub completing: super::job::Job,
    /// The expansion being read (Enter), until its read answers.
    pub reading: Option<String>,
    pub error: Option<String>,
}

impl TemplateForm {
    /// What the template expands to with the fields as filled (empty ones left out).
    pub fn uri(&self) -> Result<String, String> {
        let template = Template::parse(&self.template.uri_template)?;
        let values: Values = self
            .fields
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k.clone(), Value::Str(v.clone())))
            .collect();
        Ok(template.expand(&values))
    }
}

impl App {
    /// Every template, in server order: (server, entry).
    pub fn template_rows(&self) -> Vec<(ServerId, &TemplateEntry)> {
        let mut rows: Vec<(ServerId, &TemplateEntry)> = self
            .catalogue
            .templates()
            .filter_map(|t| {
                let server = (0..self.catalogue.server_count())
                    .find(|&s| **self.catalogue.server_name(s as ServerId) == *t.server)?;
                Some((server as ServerId, t))
            })
            .collect();
        rows.sort_by_key(|(s, _)| *s);
        rows
    }

    /// `T`: the template list.
    pub(super) fn show_templates(&mut self) {
        if self.catalogue.templates().next().is_none() {
            self.info = Some("no server publishes resource templates".into());
            return;
        }
        self.overlay = Some(Overlay::Templates { cursor: 0 });
    }

    /// An action in the template list: move, fill one in, close.
    pub(super) fn on_templates_action(&mut self, action: Action) -> Vec<Effect> {
        let Some(Overlay::Templates { cursor }) = self.overlay else {
            return Vec::new();
        };
        let count = self.template_rows().len();
        let cursor = match action {
            Action::Close => {
                self.overlay = None;
                return Vec::new();
            }
            Action::Down => (cursor + 1).min(count.saturating_sub(1)),
            Action::Up => cursor.saturating_sub(1),
            Action::FillTemplate => return self.open_form(cursor),
            _ => cursor,
        };
        self.overlay = Some(Overlay::Templates { cursor });
        Vec::new()
    }

    fn open_form(&mut self, index: usize) -> Vec<Effect> {
        let Some((server, entry)) = self
            .template_rows()
            .get(index)
            .map(|(s, e)| (*s, (*e).clone()))
        else {
            return Vec::new();
        };
        let fields = match Template::parse(&entry.uri_template) {
            Ok(t) => t
                .variables()
                .into_iter()
                .map(|v| (v, String::new()))
                .collect(),
            Err(e) => {
                self.info = Some(sanitize::line(&format!("not a valid template: {e}"), 300));
                return Vec::new();
            }
        };
        self.form = Some(TemplateForm {
            server,
            template: entry,
            fields,
            focus: 0,
            suggestions: Vec::new(),
            chosen: 0,
            completing: Default::default(),
            reading: None,
            error: None,
        });
        self.overlay = Some(Overlay::Form);
        self.complete()
    }

    /// An action in the template form: choose a suggestion, move between fields, edit the
    /// field, read the expansion, close.
    pub(super) fn on_form_action(&mut self, action: Action) -> Vec<Effect> {
        let Some(form) = self.form.as_mut() else {
            self.overlay = None;
            return Vec::new();
        };
        let last = form.fields.len().saturating_sub(1);
        match action {
            Action::Close => {
                self.overlay = None;
                self.form = None;
                return Vec::new();
            }
            Action::ReadExpansion => return self.read_expansion(),
            // With suggestions shown, ↑/↓ choose one (no new request); else they move fields.
            Action::NextSuggestion if !form.suggestions.is_empty() => {
                form.chosen = (form.chosen + 1) % form.suggestions.len();
                return Vec::new();
            }
            Action::PreviousSuggestion if !form.suggestions.is_empty() => {
                let n = form.suggestions.len();
                form.chosen = (form.chosen + n - 1) % n;
                return Vec::new();
            }
            Action::NextSuggestion => form.focus = (form.focus + 1).min(last),
            Action::PreviousSuggestion | Action::PreviousField => {
                form.focus = form.focus.saturating_sub(1)
            }
            Action::TakeSuggestion => {
                // The chosen suggestion fills the field; when it already does, the next field.
                if let Some(chosen) = form.suggestions.get(form.chosen).cloned()
                    && let Some(field) = form.fields.get_mut(form.focus)
                    && field.1 != chosen
                {
                    field.1 = chosen;
                } else {
                    form.focus = (form.focus + 1).min(last);
                }
            }
            Action::DeleteChar => {
                if let Some(field) = form.fields.get_mut(form.focus) {
                    field.1.pop();
                }
            }
            _ => return Vec::new(),
        }
        form.error = None;
        self.complete()
    }

    /// A character typed into the focused field.
    pub(super) fn type_into_field(&mut self, c: char) -> Vec<Effect> {
        let Some(form) = self.form.as_mut() else {
            self.overlay = None;
            return Vec::new();
        };
        if let Some(field) = form.fields.get_mut(form.focus) {
            field.1.push(c);
        }
        form.error = None;
        self.complete()
    }

    /// Asks for suggestions for the focused field.
    fn complete(&mut self) -> Vec<Effect> {
        let Some(form) = self.form.as_mut() else {
            return Vec::new();
        };
        let Some((argument, value)) = form.fields.get(form.focus).cloned() else {
            return Vec::new();
        };
        let generation = form.completing.start();
        form.suggestions.clear();
        form.chosen = 0;
        let context = form
            .fields
            .iter()
            .take(form.focus)
            .filter(|(_, v)| !v.is_empty())
            .cloned()
            .collect();
        vec![Effect::Complete {
            generation,
            server: form.server,
            template: form.template.uri_template.clone(),
            argument,
            value,
            context,
        }]
    }

    pub(super) fn on_completions(&mut self, generation: u64, values: Vec<String>) {
        if let Some(form) = self.form.as_mut()
            && form.completing.finish(generation).is_some()
        {
            // Values as the server sent them: drawing cleans them, the field takes them whole.
            form.suggestions = values
                .into_iter()
                .filter(|v| !v.is_empty() && v.len() <= MAX_SUGGESTION)
                .take(SUGGESTIONS)
                .collect();
            form.chosen = 0;
        }
    }

    /// Enter: a listed resource (or an expansion already read) is gone to at once; any other
    /// expansion is read first ([`Effect::ReadExpansion`]) and joins the catalogue only when
    /// that read succeeds ([`App::on_expansion_read`]).
    fn read_expansion(&mut self) -> Vec<Effect> {
        let Some(form) = self.form.as_mut() else {
            return Vec::new();
        };
        let uri = match form.uri() {
            Ok(uri) if !uri.is_empty() => uri,
            Ok(_) => return Vec::new(),
            Err(e) => {
                form.error = Some(e);
                return Vec::new();
            }
        };
        let server = form.server;
        if let Some(id) = self.catalogue.find(server, &uri) {
            self.close_form_at(id, &uri);
            let mut fx = self.request_resolve();
            fx.extend(self.sync_contents());
            return fx;
        }
        form.error = None;
        form.reading = Some(uri.clone());
        vec![Effect::ReadExpansion { server, uri }]
    }

    /// The read of an expansion answered: on success it joins the catalogue, the cursor goes
    /// to it and the pane shows what was read; on failure the form says why and nothing is
    /// added. An answer for anything but the form's current expansion is dropped.
    pub(super) fn on_expansion_read(
        &mut self,
        server: ServerId,
        uri: String,
        result: Result<ExpansionRead, String>,
    ) -> Vec<Effect> {
        let Some(form) = self.form.as_mut() else {
            return Vec::new();
        };
        if form.server != server || form.reading.as_deref() != Some(uri.as_str()) {
            return Vec::new();
        }
        form.reading = None;
        let read = match result {
            Ok(read) => read,
            Err(why) => {
                form.error = Some(sanitize::line(
                    &format!("{uri} could not be read, so it was not added: {why}"),
                    500,
                ));
                return Vec::new();
            }
        };
        let mut added = false;
        let id = match self.catalogue.find(server, &uri) {
            Some(id) => id,
            None => {
                added = true;
                let resource = crate::context::expansion::resource(&form.template, uri.clone());
                let Some(id) = self.catalogue.add_unlisted(server, &resource) else {
                    return Vec::new();
                };
                self.browse.tree.insert(id, &uri, false);
                self.browse.list.push(id);
                self.browse.list_stale = true;
                id
            }
        };
        // What was read is shown: the pane does not read it a second time.
        self.contents.show_read(id, read.doc, read.fresh_for);
        self.close_form_at(id, &uri);
        let mut fx = if added {
            self.pin_expansion(server, &uri)
        } else {
            self.request_resolve()
        };
        fx.extend(self.sync_contents());
        fx
    }

    /// An expansion that read and joined the browser's catalogue joins the set as `preview`
    /// finds it: through an exact mark in the set file ([`crate::context::expansion`]). A
    /// pin unless the URI has an exact mark already; unmarked later, it leaves the catalogue
    /// again ([`App::forget_unmarked_expansions`]), so the agent view never counts an
    /// expansion `preview` does not see.
    fn pin_expansion(&mut self, server: ServerId, uri: &str) -> Vec<Effect> {
        let target = Target::exact(self.catalogue.server_name(server).as_ref(), uri);
        let marks = &mut self.context.set.marks;
        if marks.get(&target).is_some() {
            return self.request_resolve();
        }
        marks.set(target.clone(), Some(Mark::Pin));
        self.info = Some(sanitize::line(&format!("pinned expansion {uri}"), 300));
        self.context_changed(vec![target])
    }

    fn close_form_at(&mut self, id: ItemId, uri: &str) {
        self.overlay = None;
        self.form = None;
        self.info = Some(sanitize::line(
            &format!("expansion: {uri} (+ pins it)"),
            300,
        ));
        self.go_to_item(id);
    }

    /// Puts the cursor on `id` in the view shown (the tree opens its folders).
    fn go_to_item(&mut self, id: ItemId) {
        self.browse.tree.reveal(id);
        self.browse.tree.refresh();
        if let Some(row) = self.browse.tree.row_of(id) {
            self.browse.tree_cursor.index = row;
            self.browse.tree_anchor = None;
        }
        self.reanchor();
        self.clamp();
    }
}
