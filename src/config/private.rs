//! A JSON file only this user reads and writes, in the user data directory: the approvals
//! ([`super::trust`]) and the kept secrets ([`super::kept`]). Owner-only (0600 in a 0700
//! folder), changed under a lock after reading it again, written atomically; a file that
//! cannot be read is an error naming it (never quoting it) and is left as it is.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The file at `path`, holding a `T`; `what` names its contents in messages ("approvals").
#[derive(Debug, Clone)]
pub struct Private<T> {
    path: PathBuf,
    what: &'static str,
    holds: PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned + Default> Private<T> {
    pub fn new(path: PathBuf, what: &'static str) -> Private<T> {
        Private {
            path,
            what,
            holds: PhantomData,
        }
    }

    /// `file` in the user data directory (`$MCPICK_DATA_DIR` in tests); `None` when no home
    /// is known.
    pub fn in_data_dir(file: &str, what: &'static str) -> Option<Private<T>> {
        crate::places::data_dir().map(|dir| Private::new(dir.join(file), what))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What it holds: the default when there is no file yet. Refused when the file or its
    /// folder is one that others can write ([`crate::fsio::loose`]): another local user could
    /// have approved a command for this user there, which mcpick would then run as them. A
    /// refusal, not a warning: a warning is read after the command already ran.
    pub fn load(&self) -> Result<T, String> {
        let (shown, what) = (self.path.display(), self.what);
        let folder = self.path.parent().unwrap_or(Path::new("."));
        if let Some(why) = crate::fsio::loose(folder).or_else(|| crate::fsio::loose(&self.path)) {
            return Err(format!(
                "the {what} in {shown} are not used: {why} (the data folder and the file must be this user's alone)"
            ));
        }
        match crate::fsio::read_text(&self.path) {
            Ok(None) => Ok(T::default()),
            // Where, not what: a parser's message may quote the file (a secret).
            Ok(Some(text)) => serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{shown}: not a file of {what} mcpick can read (line {}, column {})",
                    e.line(),
                    e.column()
                )
            }),
            Err(e) => Err(format!("{shown}: cannot read the {what}: {e}")),
        }
    }

    /// Runs `change` on what the file holds now, under its lock, and writes the result back
    /// when `change` says it changed something; gives back `change`'s answer.
    pub fn change_with<R>(&self, change: impl FnOnce(&mut T) -> (R, bool)) -> Result<R, String> {
        let (shown, what) = (self.path.display(), self.what);
        let dir = self.path.parent().unwrap_or(Path::new("."));
        crate::fsio::private_dir(dir)
            .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
        let name = self.path.file_name().unwrap_or_default().to_string_lossy();
        let _lock = crate::fsio::Lock::take(&dir.join(format!(".{name}.lock")), true)
            .map_err(|e| e.to_string())?;
        let mut held = self.load()?;
        let (answer, changed) = change(&mut held);
        if changed {
            let mut bytes = serde_json::to_vec_pretty(&held).map_err(|e| e.to_string())?;
            bytes.push(b'\n');
            crate::fsio::write_with(&self.path, &bytes, crate::fsio::Perms::Private)
                .map_err(|e| format!("{shown}: cannot write the {what}: {e}"))?;
        }
        Ok(answer)
    }
}
