//! The policy: how resources nobody marked are filtered and ranked, and the token budget.

use serde::{Deserialize, Serialize};

use super::tokens::TokenizerKind;

/// The priority of a resource whose server gave none (MCP priorities run from 0.0, least
/// important, to 1.0, most important; 0.5 is the middle).
pub const DEFAULT_PRIORITY: f32 = 0.5;

/// Which `audience` annotation a resource needs to be included. A resource without an
/// `audience` annotation counts for both user and assistant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    /// Meant for the model: `audience` contains `assistant`, or is absent.
    #[default]
    Assistant,
    /// Meant for the person: `audience` contains `user`, or is absent.
    User,
    /// Every resource, whatever its audience.
    Any,
}

impl Audience {
    pub fn name(self) -> &'static str {
        match self {
            Audience::Assistant => "assistant",
            Audience::User => "user",
            Audience::Any => "any",
        }
    }

    /// Whether a resource with these audience bits (`None`: not annotated) passes.
    pub fn admits(self, audience: Option<u8>) -> bool {
        use crate::catalog::item::{AUDIENCE_ASSISTANT, AUDIENCE_USER};
        match (self, audience) {
            (Audience::Any, _) | (_, None) => true,
            (Audience::Assistant, Some(bits)) => bits & AUDIENCE_ASSISTANT != 0,
            (Audience::User, Some(bits)) => bits & AUDIENCE_USER != 0,
        }
    }
}

/// How unmarked resources are filtered and ranked, and the budget everything is cut to.
///
/// Order (see [`crate::context::resolve`]): pinned first, then priority high→low
/// ([`DEFAULT_PRIORITY`] for a resource without one), then `lastModified` new→old (none
/// last), then name, server and URI.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Policy {
    /// Audience filter for unmarked resources (default: assistant).
    #[serde(default)]
    pub audience: Audience,
    /// Token budget; `None`: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// Unmarked resources whose priority (or [`DEFAULT_PRIORITY`]) is below this are left
    /// out; `None`: no minimum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_priority: Option<f32>,
    /// The tokenizer token counts come from.
    #[serde(default)]
    pub tokenizer: TokenizerKind,
}

impl Policy {
    /// A resource's priority for ranking: its own, or [`DEFAULT_PRIORITY`].
    pub fn priority(priority: Option<f32>) -> f32 {
        priority.unwrap_or(DEFAULT_PRIORITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::item::{AUDIENCE_ASSISTANT, AUDIENCE_USER};

    #[test]
    fn audience_filter() {
        let both = AUDIENCE_USER | AUDIENCE_ASSISTANT;
        assert!(Audience::Assistant.admits(None));
        assert!(Audience::Assistant.admits(Some(AUDIENCE_ASSISTANT)));
        assert!(Audience::Assistant.admits(Some(both)));
        assert!(!Audience::Assistant.admits(Some(AUDIENCE_USER)));
        assert!(!Audience::Assistant.admits(Some(0)));
        assert!(Audience::User.admits(Some(AUDIENCE_USER)));
        assert!(!Audience::User.admits(Some(AUDIENCE_ASSISTANT)));
        assert!(Audience::Any.admits(Some(0)));
    }

    #[test]
    fn policy_json() {
        let policy = Policy {
            audience: Audience::Any,
            budget: Some(100),
            min_priority: Some(0.25),
            tokenizer: TokenizerKind::Cl100kBase,
        };
        let json = serde_json::to_string(&policy).unwrap();
        assert_eq!(
            json,
            r#"{"audience":"any","budget":100,"minPriority":0.25,"tokenizer":"cl100k_base"}"#
        );
        assert_eq!(serde_json::from_str::<Policy>(&json).unwrap(), policy);
        assert_eq!(
            serde_json::from_str::<Policy>("{}").unwrap(),
            Policy::default()
        );
        assert!(serde_json::from_str::<Policy>(r#"{"budgett":1}"#).is_err());
    }
}
