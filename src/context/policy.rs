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

/// What the budget lets in besides the pins. Until a person sets one, only what they pinned is
/// handed over: someone who pinned one file expects that file, not everything the servers
/// publish. Stored as the set file's `"budget"`: absent (files written before this rule
/// meant "no limit" by it, and now mean pins only), a number of tokens, or `"all"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Budget {
    /// None set: pinned resources only; every other one is left out (`no budget set`).
    #[default]
    Unset,
    /// Pins first, then the rest ranked and cut at this many tokens.
    Tokens(u64),
    /// Everything the filters admit, no limit.
    All,
}

impl Budget {
    /// The rule while no budget is set, said where the set is shown (`preview`, the agent
    /// view, `install`).
    pub const UNSET_RULE: &str = "no budget set: only pinned resources are delivered; `mcpick policy --budget N` adds the rest, ranked, up to N tokens; `--budget all` adds everything";

    pub fn is_unset(&self) -> bool {
        *self == Budget::Unset
    }

    /// The token limit that cuts the ranked list, if any.
    pub fn tokens(self) -> Option<u64> {
        match self {
            Budget::Tokens(n) => Some(n),
            _ => None,
        }
    }

    /// Whether a resource nobody pinned can be included at all.
    pub fn admits_unpinned(self) -> bool {
        self != Budget::Unset
    }

    /// How people read it: `none set (pinned only)`, `4,000 tokens`, `all (no limit)`.
    pub fn describe(self) -> String {
        match self {
            Budget::Unset => "none set (pinned only)".to_string(),
            Budget::Tokens(n) => format!("{} tokens", crate::units::thousands(n)),
            Budget::All => "all (no limit)".to_string(),
        }
    }
}

/// A number, `"all"`, or nothing (`null` too: the same as absent).
impl Serialize for Budget {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Budget::Unset => s.serialize_none(),
            Budget::Tokens(n) => s.serialize_u64(*n),
            Budget::All => s.serialize_str("all"),
        }
    }
}

impl<'de> Deserialize<'de> for Budget {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored {
            Tokens(u64),
            Word(String),
        }
        match Option::<Stored>::deserialize(d)? {
            None => Ok(Budget::Unset),
            Some(Stored::Tokens(n)) => Ok(Budget::Tokens(n)),
            Some(Stored::Word(w)) if w == "all" => Ok(Budget::All),
            Some(Stored::Word(w)) => Err(serde::de::Error::custom(format!(
                "budget `{w}`: a number of tokens or \"all\""
            ))),
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
    /// The token budget; absent: none set, so only pinned resources are handed over.
    #[serde(default, skip_serializing_if = "Budget::is_unset")]
    pub budget: Budget,
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
            budget: Budget::Tokens(100),
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

    /// A file written before budgets had three states still loads: absent (and `null`) is
    /// "none set"; `"all"` is no limit and round-trips.
    #[test]
    fn budget_json_keeps_old_files_and_says_all() {
        let budget = |json: &str| serde_json::from_str::<Policy>(json).map(|p| p.budget);
        assert_eq!(budget("{}").unwrap(), Budget::Unset);
        assert_eq!(budget(r#"{"budget":null}"#).unwrap(), Budget::Unset);
        assert_eq!(budget(r#"{"budget":7}"#).unwrap(), Budget::Tokens(7));
        assert_eq!(budget(r#"{"budget":"all"}"#).unwrap(), Budget::All);
        assert!(budget(r#"{"budget":"lots"}"#).is_err());
        let all = Policy {
            budget: Budget::All,
            ..Policy::default()
        };
        let json = serde_json::to_string(&all).unwrap();
        assert!(json.contains(r#""budget":"all""#), "{json}");
        assert_eq!(serde_json::from_str::<Policy>(&json).unwrap(), all);
        let unset = serde_json::to_string(&Policy::default()).unwrap();
        assert!(!unset.contains("budget"), "{unset}");
    }
}
