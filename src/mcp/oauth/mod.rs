//! OAuth sign-in to remote servers, on rmcp's client (feature `auth`): `mcpick login` runs
//! the flow ([`login`]), [`TokenStore`] keeps the tokens per server URL, and HTTP connections
//! use them through rmcp's `AuthClient`, which sends the token, refreshes it before expiry
//! and once on a 401. The token goes only to the server's URL: mcpick's HTTP client refuses
//! redirects to another origin.

mod login;
mod store;

pub use login::{ClientConfig, LoginOptions, login};
pub use store::{DATA_DIR_ENV, SignIn, TokenStore};

use rmcp::transport::auth::AuthorizationManager;

/// rmcp's OAuth manager for `url` with the stored sign-in, or `None` when none is stored.
pub(crate) async fn stored_sign_in(
    url: &str,
) -> Result<Option<(AuthorizationManager, TokenStore)>, String> {
    let Some(store) = TokenStore::for_url(url) else {
        return Ok(None);
    };
    if !store.has_tokens() {
        return Ok(None);
    }
    super::http::install_crypto();
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| format!("OAuth: {e}"))?;
    manager.set_credential_store(store.clone());
    if let Some(metadata) = store.metadata() {
        manager.set_metadata(metadata);
    }
    match manager.initialize_from_store().await {
        Ok(true) => {
            // A confidential client refreshes with its secret.
            if let Some((client_id, secret)) = store.client_secret() {
                let config = rmcp::transport::auth::OAuthClientConfig::new(client_id, url)
                    .with_client_secret(secret);
                manager
                    .configure_client(config)
                    .map_err(|e| format!("OAuth: {e}"))?;
            }
            Ok(Some((manager, store)))
        }
        Ok(false) => Ok(None),
        Err(e) => Err(format!("OAuth: {e}")),
    }
}
