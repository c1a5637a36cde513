//! The token store: one file per server URL in the user data directory, holding what rmcp's
//! OAuth client needs to use and refresh a sign-in (client ID, tokens, the authorization
//! server's metadata). Files are owner-only (0600, in a 0700 directory), written atomically,
//! and refreshes from several mcpick processes are serialised by a lock file.
//!
//! `MCPICK_DATA_DIR` moves the directory (tests use it); else it is the user data directory
//! (`$XDG_DATA_HOME/mcpick` on Linux), under `tokens/`.

use std::path::{Path, PathBuf};

use rmcp::transport::auth::{
    AuthError, AuthorizationMetadata, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use crate::places::DATA_DIR_ENV;

/// What one file holds.
#[derive(Default, Serialize, Deserialize)]
struct Record {
    /// The server URL, masked ([`crate::redact::url`]), so a person can tell files apart.
    server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    credentials: Option<StoredCredentials>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<AuthorizationMetadata>,
    /// The server refused the stored sign-in (or asked for one): `mcpick login` is needed.
    #[serde(default)]
    needs_login: bool,
    /// A pre-registered confidential client's secret: refreshing its tokens needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
}

/// What `mcpick servers` says about a server's sign-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignIn {
    /// Tokens are stored; `expires` is the access token's expiry (seconds since the epoch),
    /// when the server said; `refreshable` when a refresh token is kept.
    SignedIn {
        expires: Option<u64>,
        refreshable: bool,
    },
    /// The server asked for a sign-in, or refused the stored one.
    NeedsLogin,
}

/// The store of one server URL; a [`CredentialStore`] for rmcp.
#[derive(Debug, Clone)]
pub struct TokenStore {
    path: PathBuf,
    server: String,
}

/// The directory of every token file, or `None` when no home is known.
pub fn dir() -> Option<PathBuf> {
    crate::places::data_dir().map(|d| d.join("tokens"))
}

/// The key of a server URL: the URL without userinfo or fragment, hashed (the file name shows
/// nothing of it).
fn key(url: &str) -> String {
    let keyed = match url::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url.to_string(),
    };
    let digest = Sha256::digest(keyed.as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

fn store_error(what: &str, error: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(format!("{what}: {error}"))
}

impl TokenStore {
    /// The store of `url`, or `None` when there is no data directory.
    pub fn for_url(url: &str) -> Option<TokenStore> {
        Some(TokenStore {
            path: dir()?.join(format!("{}.json", key(url))),
            server: crate::redact::url(url),
        })
    }

    /// The file's path (tests check its mode).
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Record {
        std::fs::read(&self.path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    fn write(&self, record: &Record) -> std::io::Result<()> {
        let mut record_out = Record {
            server: self.server.clone(),
            ..Default::default()
        };
        record_out.credentials = record.credentials.clone();
        record_out.metadata = record.metadata.clone();
        record_out.needs_login = record.needs_login;
        let bytes = serde_json::to_vec_pretty(&record_out).map_err(std::io::Error::other)?;
        write_private(&self.path, &bytes)
    }

    fn update(&self, change: impl FnOnce(&mut Record)) -> std::io::Result<()> {
        let mut record = self.read();
        change(&mut record);
        self.write(&record)
    }

    /// True when tokens are stored (a connection should use them).
    pub fn has_tokens(&self) -> bool {
        self.read()
            .credentials
            .is_some_and(|c| c.token_response.is_some())
    }

    /// The authorization server's metadata found at the last login.
    pub fn metadata(&self) -> Option<AuthorizationMetadata> {
        self.read().metadata
    }

    pub fn set_metadata(&self, metadata: AuthorizationMetadata) -> std::io::Result<()> {
        self.update(|r| r.metadata = Some(metadata))
    }

    /// The access and refresh tokens and the client secret stored now, to be scrubbed from
    /// any message.
    pub fn secrets(&self) -> Vec<String> {
        let record = self.read();
        let mut secrets: Vec<String> = record.client_secret.into_iter().collect();
        let Some(tokens) = record.credentials.and_then(|c| c.token_response) else {
            return secrets;
        };
        let fields = serde_json::to_value(&tokens).unwrap_or_default();
        secrets.extend(
            ["access_token", "refresh_token"]
                .iter()
                .filter_map(|f| fields[f].as_str().map(str::to_string)),
        );
        secrets
    }

    /// The pre-registered client's ID and secret, when a secret is kept.
    pub fn client_secret(&self) -> Option<(String, String)> {
        let record = self.read();
        Some((record.credentials?.client_id, record.client_secret?))
    }

    /// Keeps (or, with `None`, forgets) a pre-registered client's secret.
    pub fn set_client_secret(&self, secret: Option<String>) -> std::io::Result<()> {
        self.update(|r| r.client_secret = secret)
    }

    /// Records that the server wants a (new) sign-in; stored tokens are dropped, the client
    /// registration is kept for the next login.
    pub fn mark_needs_login(&self) {
        let _ = self.update(|r| {
            r.needs_login = true;
            if let Some(c) = &mut r.credentials {
                c.token_response = None;
            }
        });
    }

    /// The sign-in state, or `None` when the server never asked for one.
    pub fn sign_in(&self) -> Option<SignIn> {
        if !self.path.exists() {
            return None;
        }
        let record = self.read();
        if record.needs_login {
            return Some(SignIn::NeedsLogin);
        }
        let credentials = record.credentials?;
        let Some(tokens) = credentials.token_response else {
            return Some(SignIn::NeedsLogin);
        };
        // Read through serde: the token type's accessors are a trait of the oauth2 crate.
        let fields = serde_json::to_value(&tokens).unwrap_or_default();
        let expires = fields["expires_in"]
            .as_u64()
            .zip(credentials.token_received_at)
            .map(|(ttl, at)| at + ttl);
        Some(SignIn::SignedIn {
            expires,
            refreshable: fields["refresh_token"].is_string(),
        })
    }

    /// Deletes the file (and its lock file); true when there was one.
    pub fn delete(&self) -> std::io::Result<bool> {
        let _ = std::fs::remove_file(self.path.with_extension("lock"));
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// Writes `bytes` to `path` owner-only through [`crate::fsio`] (atomic, fsynced); the
/// directory is created owner-only.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        crate::fsio::private_dir(dir)?;
    }
    crate::fsio::write_with(path, bytes, crate::fsio::Perms::Private)
}

/// The store's refresh lock: an owner-only lock file in the owner-only directory, waited
/// for on a blocking thread.
fn lock(path: PathBuf) -> std::io::Result<crate::fsio::Lock> {
    if let Some(dir) = path.parent() {
        crate::fsio::private_dir(dir)?;
    }
    crate::fsio::Lock::take(&path, true)
}

#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self.read().credentials)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let signed_in = credentials.token_response.is_some();
        self.update(|r| {
            r.credentials = Some(credentials);
            r.needs_login = !signed_in;
        })
        .map_err(|e| store_error("could not write the token store", e))
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.delete()
            .map(|_| ())
            .map_err(|e| store_error("could not delete the token store", e))
    }

    async fn on_refresh_token_rejected(
        &self,
        _credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        self.mark_needs_login();
        Ok(())
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let path = self.path.with_extension("lock");
        let guard = tokio::task::spawn_blocking(move || lock(path))
            .await
            .map_err(|e| store_error("could not lock the token store", e))?
            .map_err(|e| store_error("could not lock the token store", e))?;
        Ok(Some(CredentialRefreshGuard::new(guard)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_userinfo_and_fragment_but_not_the_path() {
        assert_eq!(key("http://u:p@h:1/mcp#x"), key("http://h:1/mcp"));
        assert_ne!(key("http://h:1/mcp"), key("http://h:1/other"));
        assert_ne!(key("http://h:1/mcp"), key("http://h:2/mcp"));
        assert_eq!(key("http://h/mcp").len(), 32);
    }

    #[test]
    fn private_writes_are_owner_only_and_replace_whole() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/x.json");
        write_private(&path, b"one").unwrap();
        // What a login killed half way through its save left (pid 4194301 is not running).
        std::fs::write(path.with_file_name(".x.json.4194301.0.tmp"), b"{\"credent").unwrap();
        write_private(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }
}
