//! Lines mcpick appends to a file that is not its own (an import in `CLAUDE.md`, a line in
//! `.git/info/exclude`), and how exactly those bytes are taken back: the delivery's files and
//! the skills folders both append so.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsio::{self, write_atomic};

/// Text appended to a file, and whether the file was created for it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Added {
    pub path: PathBuf,
    pub text: String,
    pub created: bool,
}

/// What appending `block` to `path` (whose real file is `real`) adds: a blank line first when
/// the file has text, and a newline when its last line has none.
pub fn addition(path: &Path, real: &Path, block: &str) -> Result<Added, String> {
    let added = |text: String, created| Added {
        path: path.to_path_buf(),
        text,
        created,
    };
    Ok(match fsio::read_capped(real).map_err(|e| e.to_string())? {
        Some(text) if text.contains(block) => added(String::new(), false),
        Some(text) if text.is_empty() => added(block.to_string(), false),
        Some(text) => added(
            format!("{}\n{block}", if text.ends_with('\n') { "" } else { "\n" }),
            false,
        ),
        None => added(block.to_string(), true),
    })
}

/// Appends `added` to the file at `real` (nothing when its text is there already).
pub fn append(added: &Added, real: &Path) -> std::io::Result<()> {
    if added.text.is_empty() {
        return Ok(());
    }
    let mut text = fsio::read_capped(real)?.unwrap_or_default();
    if text.contains(&added.text) && !added.created {
        return Ok(());
    }
    if let Some(parent) = real.parent() {
        std::fs::create_dir_all(parent)?;
    }
    text.push_str(&added.text);
    write_atomic(real, text.as_bytes())
}

/// Takes `added` back out of the file at `real`: the file removed when it was made for it, a
/// note when the lines were changed since.
pub fn take_back(added: &Added, real: &Path) -> std::io::Result<Option<String>> {
    if added.text.is_empty() {
        return Ok(None);
    }
    let Some(text) = fsio::read_capped(real)? else {
        return Ok(None);
    };
    if added.created && text == added.text {
        remove_if_exists(real)?;
        return Ok(None);
    }
    match text.rfind(&added.text) {
        Some(at) => {
            let mut kept = text[..at].to_string();
            kept.push_str(&text[at + added.text.len()..]);
            write_atomic(real, kept.as_bytes())?;
            Ok(None)
        }
        None => Ok(Some(format!(
            "{}: the lines mcpick added were changed since; left as they are",
            added.path.display()
        ))),
    }
}

/// The texts appending `block` may add ([`addition`]): nothing (it was there), the block, or
/// the block after one or two line breaks.
pub fn added_forms(block: &str) -> [String; 4] {
    [
        String::new(),
        block.to_string(),
        format!("\n{block}"),
        format!("\n\n{block}"),
    ]
}

fn remove_if_exists(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
