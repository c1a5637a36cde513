//! Context sets: marks, the policy, resolution into the agent's view, and the file on disk.
//! Pure library code shared by the headless commands and the TUI (no terminal, no sockets;
//! only [`ContextSet::load`]/[`ContextSet::update`]/[`SetFile`] touch the disk).
//!
//! - [`mark`]: [`Marks`] (pin / exclude / none on a URI or a `PREFIX*`, most specific wins,
//!   undo history).
//! - [`policy`]: [`Policy`] (audience filter, minimum priority, budget, tokenizer) and
//!   [`DEFAULT_PRIORITY`].
//! - [`tokens`]: real token counts ([`TokenizerKind::count`]) and size-based estimates.
//! - [`content`]: [`agent_text`], the text the agent is handed for one read.
//! - [`resolve()`]: catalogue + marks + policy + measures → [`Preview`] (included in order,
//!   cut line, left out with reasons, missing marks).
//! - [`ranking`]: the rank key, and [`RankOrder`], the ranking kept across changes of the
//!   catalogue (a browser resolving a million resources again does not sort them again).
//! - [`expansion`]: exact marks on URIs a server's template produces, as resources of that
//!   server ([`expansion::expansions`], [`expansion::add`]).
//! - [`file`]: [`ContextSet`], the JSON file (versioned, stable order, atomic save, changed
//!   under a lock by [`ContextSet::update`]; [`SetFile`] for a front end that keeps it open).
//! - [`change`]: [`SetChange`], a front end's change as operations, applied to the file as
//!   others left it.
//! - Relative paths in a set's server definitions are [`crate::config::relative`]'s job.
//!
//! # How a front end uses it
//!
//! ```text
//! let set = ContextSet::load(path)?;                      // edge: disk
//! set.marks.toggle(Target::exact(server, uri), Mark::Pin); // key press
//! set.marks.undo();                                       // undo key
//! let sources = Sources::from_lists(candidates(&catalogue), &listed, &unavailable);
//! let shown = sources.resolve(&set.marks, &set.policy, &measures); // what is known now
//! let exact = sources                                      // or read to a fixed point
//!     .resolve_reading(&set.marks, &set.policy, &mut measures, jobs,
//!                      |c| mcp::read::for_agent(connection_of(c.server), c.uri), // edge
//!                      None)                              // or what the last one judged
//!     .await.0;                                           // preview, texts, dropped parts
//! ContextSet::update(path, |set| set.marks.set(target, Some(Mark::Pin)))?; // edge: locked
//! ```

pub mod alias;
pub mod change;
pub mod content;
pub mod expansion;
pub mod file;
pub mod lock;
pub mod mark;
pub mod measured;
pub mod own;
pub mod policy;
pub mod ranking;
pub mod resolve;
pub mod tokens;

pub use change::{Applied, SetChange};
pub use content::{agent_text, measure};
pub use expansion::Expansion;
pub use file::{ContextSet, DEFAULT_FILE, SetError, SetFile, Updated, VERSION, missing_set};
pub use mark::{Effective, Mark, Marks, Pattern, Target};
pub use measured::{Judged, Keep, Resolution, Sources, Texts};
pub use own::OwnOutputs;
pub use policy::{Audience, Budget, DEFAULT_PRIORITY, Policy};
pub use ranking::RankOrder;
pub use resolve::{
    Candidate, Included, LeftOut, Measure, Measures, Missing, Preview, Reason, Unavailable,
    candidates, candidates_in, filtered,
};
pub use tokens::TokenizerKind;
