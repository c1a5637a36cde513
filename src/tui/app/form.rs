//! Templates in the browser: `T` lists every server's resource templates; Enter on one opens a
//! form with a field per variable (RFC 6570), the server's `completion/complete` suggestions
//! shown as you type (earlier fields passed as context); Enter reads the expansion: it joins
//! the catalogue as a resource of that server, the cursor goes to it and the contents pane
//! reads it, and `+` pins it like any resource.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Effect, Overlay};
use crate::catalog::template::{Template, Value, Values};
use crate::catalog::{ItemId, ServerId, TemplateEntry};
use crate::sanitize;

/// Suggestions shown under a field, at most.
pub const SUGGESTIONS: usize = 8;

/// The template form: which template, its fields, the focused one and its suggestions.
#[derive(Debug, Clone)]
pub struct TemplateForm {
    pub server: ServerId,
    pub template: TemplateEntry,
    pub fields: Vec<(String, String)>,
    pub focus: usize,
    pub suggestions: Vec<String>,
    /// Of the newest completion request (older answers are dropped).
    pub generation: u64,
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

    /// Keys while the template list or the form is open: true when the key was theirs.
    pub(super) fn on_form_key(&mut self, key: KeyEvent) -> Option<Vec<Effect>> {
        match self.overlay {
            Some(Overlay::Templates { cursor }) => Some(self.on_list_key(cursor, key)),
            Some(Overlay::Form) => Some(self.on_field_key(key)),
            _ => None,
        }
    }

    fn on_list_key(&mut self, cursor: usize, key: KeyEvent) -> Vec<Effect> {
        let count = self.template_rows().len();
        let cursor = match key.code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('T') => {
                self.overlay = None;
                return Vec::new();
            }
            KeyCode::Down | KeyCode::Char('j') => (cursor + 1).min(count.saturating_sub(1)),
            KeyCode::Up | KeyCode::Char('k') => cursor.saturating_sub(1),
            KeyCode::Enter => return self.open_form(cursor),
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
            generation: 0,
            error: None,
        });
        self.overlay = Some(Overlay::Form);
        self.complete()
    }

    fn on_field_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(form) = self.form.as_mut() else {
            self.overlay = None;
            return Vec::new();
        };
        let last = form.fields.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc => {
                self.overlay = None;
                self.form = None;
                return Vec::new();
            }
            KeyCode::Enter => return self.read_expansion(),
            KeyCode::Down => form.focus = (form.focus + 1).min(last),
            KeyCode::Up | KeyCode::BackTab => form.focus = form.focus.saturating_sub(1),
            KeyCode::Tab => {
                // The first suggestion fills the field; then the next field.
                if let Some(first) = form.suggestions.first().cloned()
                    && let Some(field) = form.fields.get_mut(form.focus)
                    && field.1 != first
                {
                    field.1 = first;
                } else {
                    form.focus = (form.focus + 1).min(last);
                }
            }
            KeyCode::Backspace => {
                if let Some(field) = form.fields.get_mut(form.focus) {
                    field.1.pop();
                }
            }
            KeyCode::Char(c)
                if (key.modifiers - KeyModifiers::SHIFT).is_empty() && !c.is_control() =>
            {
                if let Some(field) = form.fields.get_mut(form.focus) {
                    field.1.push(c);
                }
            }
            _ => return Vec::new(),
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
        form.generation += 1;
        form.suggestions.clear();
        let context = form
            .fields
            .iter()
            .take(form.focus)
            .filter(|(_, v)| !v.is_empty())
            .cloned()
            .collect();
        vec![Effect::Complete {
            generation: form.generation,
            server: form.server,
            template: form.template.uri_template.clone(),
            argument,
            value,
            context,
        }]
    }

    pub(super) fn on_completions(&mut self, generation: u64, values: Vec<String>) {
        if let Some(form) = self.form.as_mut()
            && form.generation == generation
        {
            form.suggestions = values
                .iter()
                .take(SUGGESTIONS)
                .map(|v| sanitize::line(v, 200))
                .collect();
        }
    }

    /// Enter: the expansion joins the catalogue (once) and the cursor goes to it.
    fn read_expansion(&mut self) -> Vec<Effect> {
        let Some(form) = self.form.as_ref() else {
            return Vec::new();
        };
        let uri = match form.uri() {
            Ok(uri) if !uri.is_empty() => uri,
            Ok(_) => return Vec::new(),
            Err(e) => {
                if let Some(form) = self.form.as_mut() {
                    form.error = Some(e);
                }
                return Vec::new();
            }
        };
        let server = form.server;
        let id = match self.catalogue.find(server, &uri) {
            Some(id) => id,
            None => {
                let resource = crate::context::expansion::resource(&form.template, uri.clone());
                self.catalogue.append(server, [&resource]);
                let Some(id) = self.catalogue.find(server, &uri) else {
                    return Vec::new();
                };
                self.browse.tree.insert(id, &uri, false);
                self.browse.list.push(id);
                self.browse.list_stale = true;
                id
            }
        };
        self.overlay = None;
        self.form = None;
        self.info = Some(sanitize::line(
            &format!("expansion: {uri} (+ pins it)"),
            300,
        ));
        self.go_to_item(id);
        let mut fx = self.request_resolve();
        fx.extend(self.sync_contents());
        fx
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
