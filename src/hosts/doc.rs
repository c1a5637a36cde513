//! A host's config file as an editable document that keeps everything it does not touch:
//! JSON and JSONC through `jsonc-parser`'s concrete syntax tree (comments, key order,
//! indentation and other entries stay byte for byte), TOML through `toml_edit`. Values go in
//! and out as JSON values so every dialect shares one comparison.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstObject, CstRootNode};
use serde_json::{Map, Value};
use toml_edit::{DocumentMut, Item, Table};

use super::FileFormat;

/// A TOML parse error by position: the parser's message without the file's text (its own
/// `Display` quotes the offending line, which may hold a secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TomlError {
    /// 1-based line and column (in characters), when the parser knows where.
    pub at: Option<(usize, usize)>,
    pub what: String,
}

/// [`TomlError`] from a parser's span and message over `text`.
pub fn toml_error(text: &str, span: Option<std::ops::Range<usize>>, message: &str) -> TomlError {
    // The message is the parser's own words, but it may quote a key or a value: one line,
    // no control characters.
    let what = message
        .split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    TomlError {
        at: span.map(|s| line_column(text, s.start)),
        what: crate::sanitize::line(&what, 200),
    }
}

impl TomlError {
    /// `FILE:LINE:COLUMN: not valid TOML: what`, the form editors and terminals jump to.
    pub fn at(&self, file: &str) -> String {
        match self.at {
            Some((line, column)) => {
                format!("{file}:{line}:{column}: not valid TOML: {}", self.what)
            }
            None => format!("{file}: not valid TOML: {}", self.what),
        }
    }
}

impl std::fmt::Display for TomlError {
    /// For a caller that names the file before it: `not valid TOML at line L column C: what`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some((line, column)) => write!(
                f,
                "not valid TOML at line {line} column {column}: {}",
                self.what
            ),
            None => write!(f, "not valid TOML: {}", self.what),
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// An editable host file.
pub enum Doc {
    Json(CstRootNode),
    Toml(DocumentMut),
}

impl Doc {
    /// Parses `text` (empty for a file that does not exist yet). Errors say what is wrong
    /// without quoting the file, which may hold secrets.
    pub fn parse(format: FileFormat, text: &str) -> Result<Doc, String> {
        match format {
            FileFormat::Json | FileFormat::Jsonc => {
                let body = if text.trim().is_empty() { "{}\n" } else { text };
                // Validate strictly enough first (the syntax tree parser is lenient).
                super::json::parse(body).map_err(|e| format!("not valid JSON: {e}"))?;
                let root = CstRootNode::parse(body, &ParseOptions::default())
                    .map_err(|e| format!("not valid JSON: {}", e.kind()))?;
                if root.object_value().is_none() {
                    return Err("expected an object at the top level".into());
                }
                Ok(Doc::Json(root))
            }
            FileFormat::Toml => text
                .parse::<DocumentMut>()
                .map(Doc::Toml)
                .map_err(|e| toml_error(text, e.span(), e.message()).to_string()),
        }
    }

    /// The entry `name` in the object at `key`.
    pub fn get(&self, key: &[&str], name: &str) -> Result<Option<Value>, String> {
        Ok(self.entries(key)?.remove(name))
    }

    /// Every entry of the object at `key` (none when it is missing).
    pub fn entries(&self, key: &[&str]) -> Result<Map<String, Value>, String> {
        match self {
            Doc::Json(root) => {
                let Some(object) = json_object(root, key, false)? else {
                    return Ok(Map::new());
                };
                Ok(object
                    .properties()
                    .into_iter()
                    .filter_map(|p| {
                        Some((
                            p.name()?.decoded_value().ok()?,
                            p.value()?.to_serde_value()?,
                        ))
                    })
                    .collect())
            }
            Doc::Toml(doc) => {
                let Some(table) = toml_table(doc, key)? else {
                    return Ok(Map::new());
                };
                Ok(table
                    .iter()
                    .map(|(k, item)| (k.to_string(), item_value(item)))
                    .collect())
            }
        }
    }

    /// Sets the entry `name` in the object at `key` (created when missing), in place when it
    /// exists, else after the other entries.
    pub fn set(&mut self, key: &[&str], name: &str, value: &Value) -> Result<(), String> {
        match self {
            Doc::Json(root) => {
                let object = json_object(root, key, true)?.expect("created");
                match object.get(name) {
                    Some(prop) => prop.set_value(super::json::to_input(value)),
                    None => {
                        object.append(name, super::json::to_input(value));
                    }
                }
                Ok(())
            }
            Doc::Toml(doc) => {
                let table = toml_table_mut(doc, key)?;
                table.insert(name, toml_item(value));
                Ok(())
            }
        }
    }

    /// Removes the entry `name`; false when there was none.
    pub fn remove(&mut self, key: &[&str], name: &str) -> Result<bool, String> {
        match self {
            Doc::Json(root) => match json_object(root, key, false)?.and_then(|o| o.get(name)) {
                Some(prop) => {
                    prop.remove();
                    Ok(true)
                }
                None => Ok(false),
            },
            Doc::Toml(doc) => {
                if toml_table(doc, key)?.is_none() {
                    return Ok(false);
                }
                Ok(toml_table_mut(doc, key)?.remove(name).is_some())
            }
        }
    }

    /// The elements of the array at `key` (the last key names it, in the object the keys
    /// before it lead to); `None` when it is missing. Something else than an array there is
    /// an error. JSON files only (hook settings are JSON).
    pub fn elements(&self, key: &[&str]) -> Result<Option<Vec<Value>>, String> {
        Ok(self.json_array(key, false)?.map(|array| {
            array
                .elements()
                .iter()
                .map(|e| e.to_serde_value().unwrap_or(Value::Null))
                .collect()
        }))
    }

    /// Appends `value` to the array at `key` (created, with the objects leading to it, when
    /// missing), after its other elements.
    pub fn push(&mut self, key: &[&str], value: &Value) -> Result<(), String> {
        let array = self.json_array(key, true)?.expect("created");
        array.append(super::json::to_input(value));
        Ok(())
    }

    /// Replaces the element `index` of the array at `key` in place.
    pub fn replace_element(
        &mut self,
        key: &[&str],
        index: usize,
        value: &Value,
    ) -> Result<(), String> {
        let array = self.existing_array(key)?;
        let element = array
            .elements()
            .into_iter()
            .nth(index)
            .ok_or_else(|| format!("`{}` has no element {index}", key.join(".")))?;
        let input = super::json::to_input(value);
        match (element.as_object(), element.as_array()) {
            (Some(object), _) => {
                object.replace_with(input);
            }
            (None, Some(inner)) => {
                inner.replace_with(input);
            }
            (None, None) => {
                element.remove();
                array.insert(index, input);
            }
        }
        Ok(())
    }

    /// Removes the element `index` of the array at `key`.
    pub fn remove_element(&mut self, key: &[&str], index: usize) -> Result<(), String> {
        let array = self.existing_array(key)?;
        let element = array
            .elements()
            .into_iter()
            .nth(index)
            .ok_or_else(|| format!("`{}` has no element {index}", key.join(".")))?;
        element.remove();
        Ok(())
    }

    fn existing_array(&self, key: &[&str]) -> Result<CstArray, String> {
        self.json_array(key, false)?
            .ok_or_else(|| format!("`{}` is missing", key.join(".")))
    }

    /// The array at `key`; with `create`, it and the objects leading to it are added when
    /// missing.
    fn json_array(&self, key: &[&str], create: bool) -> Result<Option<CstArray>, String> {
        let Doc::Json(root) = self else {
            return Err("arrays are edited in JSON files only".into());
        };
        let Some((last, parents)) = key.split_last() else {
            return Err("no array named".into());
        };
        let Some(object) = json_object(root, parents, create)? else {
            return Ok(None);
        };
        match object.get(last) {
            Some(prop) => match prop.value().and_then(|v| v.as_array()) {
                Some(array) => Ok(Some(array)),
                None => Err(format!("`{}` is not an array", key.join("."))),
            },
            None if create => Ok(Some(object.array_value_or_set(last))),
            None => Ok(None),
        }
    }

    /// The file's text.
    pub fn text(&self) -> String {
        match self {
            Doc::Json(root) => root.to_string(),
            Doc::Toml(doc) => doc.to_string(),
        }
    }
}

/// The object at `key`; with `create`, missing objects are added on the way. A key that
/// holds something else than an object is an error (replacing it would lose it).
fn json_object(
    root: &CstRootNode,
    key: &[&str],
    create: bool,
) -> Result<Option<CstObject>, String> {
    let Some(mut object) = root.object_value() else {
        return Err("expected an object at the top level".into());
    };
    let mut path = String::new();
    for k in key {
        path.push_str(if path.is_empty() { "" } else { "." });
        path.push_str(k);
        object = match object.get(k) {
            Some(prop) => match prop.value().and_then(|v| v.as_object()) {
                Some(inner) => inner,
                None => return Err(format!("`{path}` is not an object")),
            },
            None if create => object.object_value_or_set(k),
            None => return Ok(None),
        };
    }
    Ok(Some(object))
}

fn toml_table<'a>(doc: &'a DocumentMut, key: &[&str]) -> Result<Option<&'a Table>, String> {
    let mut table = doc.as_table();
    for k in key {
        table = match table.get(k) {
            None => return Ok(None),
            Some(item) => item
                .as_table()
                .ok_or_else(|| format!("`{k}` is not a table"))?,
        };
    }
    Ok(Some(table))
}

fn toml_table_mut<'a>(doc: &'a mut DocumentMut, key: &[&str]) -> Result<&'a mut Table, String> {
    let mut table = doc.as_table_mut();
    for k in key {
        if table.get(k).is_none() {
            let mut new = Table::new();
            // `[mcp_servers.NAME]` headers only, no empty `[mcp_servers]`.
            new.set_implicit(true);
            table.insert(k, Item::Table(new));
        }
        table = table
            .get_mut(k)
            .and_then(Item::as_table_mut)
            .ok_or_else(|| format!("`{k}` is not a table"))?;
    }
    Ok(table)
}

/// A TOML item as JSON (dates as their text).
fn item_value(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(v) => toml_value(v),
        Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, i)| (k.to_string(), item_value(i)))
                .collect(),
        ),
        Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| item_value(&Item::Table(t.clone())))
                .collect(),
        ),
    }
}

fn toml_value(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as V;
    match v {
        V::String(s) => Value::String(s.value().clone()),
        V::Integer(i) => Value::from(*i.value()),
        V::Float(f) => serde_json::Number::from_f64(*f.value())
            .map(Value::Number)
            .unwrap_or(Value::Null),
        V::Boolean(b) => Value::Bool(*b.value()),
        V::Datetime(d) => Value::String(d.value().to_string()),
        V::Array(a) => Value::Array(a.iter().map(toml_value).collect()),
        V::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), toml_value(v)))
                .collect(),
        ),
    }
}

/// A server entry as a TOML table: `[mcp_servers.NAME]` with its fields, objects inline.
fn toml_item(value: &Value) -> Item {
    match value {
        Value::Object(map) => {
            let mut table = Table::new();
            let mut fields: Vec<_> = map.iter().collect();
            fields.sort_by_key(|(k, _)| super::json::rank(k));
            for (k, v) in fields {
                table.insert(k, Item::Value(toml_plain(v)));
            }
            Item::Table(table)
        }
        other => Item::Value(toml_plain(other)),
    }
}

fn toml_plain(value: &Value) -> toml_edit::Value {
    match value {
        Value::Null => toml_edit::Value::from(""),
        Value::Bool(b) => toml_edit::Value::from(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml_edit::Value::from(i),
            None => toml_edit::Value::from(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => toml_edit::Value::from(s.as_str()),
        Value::Array(items) => toml_edit::Value::Array(items.iter().map(toml_plain).collect()),
        Value::Object(map) => {
            let mut t = toml_edit::InlineTable::new();
            for (k, v) in map {
                t.insert(k, toml_plain(v));
            }
            toml_edit::Value::InlineTable(t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_errors_say_where_without_quoting_the_file() {
        let text = "[mcp_servers.db]\nargs = [\"postgres://u:sekrit@h/db\"\n";
        let Err(err) = Doc::parse(FileFormat::Toml, text) else {
            panic!("parsed");
        };
        assert!(err.starts_with("not valid TOML at line "), "{err}");
        assert!(!err.contains("sekrit") && !err.contains('\n'), "{err}");
        let e = toml_error("a\nbé = ", Some(6..6), "expected a value\n");
        assert_eq!(
            e.at("f.toml"),
            "f.toml:2:4: not valid TOML: expected a value"
        );
        assert_eq!(
            toml_error("", None, "x").at("f.toml"),
            "f.toml: not valid TOML: x"
        );
    }
}
