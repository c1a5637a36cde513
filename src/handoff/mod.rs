//! Hand-off: "this set, in host H, scope S, as name N", the one library `install`,
//! `uninstall`, `deliver`, `preview --host`, the browser's hand-off overlay and its agent view
//! read from. A hand-off is planned ([`plan`]: nothing written), shown ([`Plan::delivery_lines`]),
//! made ([`Plan::write_entry`], then [`Plan::deliver`] once the set is read) and taken back,
//! byte for byte. What mcpick knows of each host is its [`profile::Profile`], one file per host
//! in [`profiles`]; the other modules are generic over a profile (`docs/development.md` maps
//! them).

pub mod channel;
pub mod delivery;
pub mod entry;
pub mod findings;
pub mod hooks;
pub mod lines;
pub mod live;
pub mod make;
pub mod profile;
pub mod profiles;
pub mod service;
pub mod skills;
pub mod start;
pub mod version;

use std::path::{Path, PathBuf};

pub use channel::Delivered;
pub use delivery::{Delivery, absolute, own_outputs};
pub use entry::{EntryPlan, NotPlanned, Refusal};
pub use profile::{Channel, Profile};

/// The name hosts know the served set by unless `--as` gives another.
pub const DEFAULT_NAME: &str = "mcpick";

use crate::context::{Candidate, Preview, measured::Texts};
use crate::hosts::{Host, Places, Scope};

/// How `install` hands the set to the model (`install --deliver`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Deliver {
    /// In the model's context at session start, and every change on the session's next turn,
    /// through the host's per-turn hooks; served.
    #[default]
    Live,
    /// In the model's context at every session start, and served.
    #[value(alias = "session")]
    Start,
    /// Served only: the user mentions resources, runs the prompt, or the model calls the tool.
    OnDemand,
}

/// A set resolved and read as the agent gets it: what a delivery is made of.
#[derive(Clone, Copy)]
pub struct Contents<'r, 'c> {
    pub preview: &'r Preview,
    /// The candidates `preview` and `texts` index into.
    pub candidates: &'r [Candidate<'c>],
    pub texts: &'r Texts,
    /// The skills the preview includes, read whole and verified (or refused): what goes to a
    /// host with a skills folder as skills. `None`: not read (the browser), so every skill
    /// travels as resources and the skills written earlier stay as they are.
    pub skills: Option<&'r [crate::skills::Fetched]>,
}

/// A hand-off planned and not yet made: the entry's edit and, where the host has a channel
/// and it was asked for, the session-start delivery and the per-turn hooks; nothing is
/// written until it is made.
#[derive(Debug)]
pub struct Plan {
    pub host: Host,
    /// The entry's scope, or the delivery's where the host takes no entry.
    pub scope: Scope,
    /// The served entry; `None` for a host that takes no MCP servers (pi).
    pub entry: Option<EntryPlan>,
    pub delivery: Option<(&'static Channel, Delivery)>,
    /// The per-turn hooks in the host's settings (`--deliver live` on a host that has them).
    pub hooks: Option<hooks::HooksPlan>,
    /// The set file, absolute.
    pub set: PathBuf,
    /// What else the person should know before it is made (the host has no channel).
    pub notes: Vec<String>,
}

/// Plans `host`'s hand-off of `set` as `name` (the scope given, else the host's default),
/// delivered as `deliver` asks: at session start ([`Deliver::Start`]), and also on every turn
/// through the host's hooks ([`Deliver::Live`]; `start` where the host has no per-turn
/// channel). The delivery is planned (and every file it touches checked) before the entry,
/// the hooks with it: a refusal leaves no half-done hand-off.
pub fn plan(
    host: Host,
    scope: Option<Scope>,
    places: &Places,
    set: &Path,
    name: &str,
    force: bool,
    deliver: Deliver,
) -> Result<Plan, NotPlanned> {
    let set_abs = absolute(set);
    let at_start = deliver != Deliver::OnDemand;
    let scope_of = entry::scope_of(host.dialect(), scope);
    // A host that reads another host's delivery of the set already installed gets it there.
    let reached = start::reached_through(host, &places.project, &set_abs);
    let delivery = match &scope_of {
        Ok(scope) if at_start && reached.is_none() => start::plan(
            host,
            *scope,
            places,
            &set_abs,
            name,
            deliver == Deliver::Live,
        )
        .map_err(NotPlanned::failed)?,
        _ => None,
    };
    let entry = match host.dialect().mcp {
        true => Some(entry::plan_entry(host, scope, places, set, name, force)?),
        false => None,
    };
    let scope = match &entry {
        Some(entry) => entry.scope,
        None => entry::scope_of(host.dialect(), scope).map_err(NotPlanned::request)?,
    };
    let hooks = match deliver {
        Deliver::Live => hooks::plan(
            host,
            scope,
            places,
            set,
            name,
            entry.as_ref().map(|e| &e.edit),
        )?,
        _ => None,
    };
    let mut notes = Vec::new();
    if let (Some(reached), true) = (reached, at_start) {
        notes.push(reached);
    } else if at_start && delivery.is_none() {
        notes.push(start::no_channel(
            host,
            scope_of.as_ref().copied().unwrap_or(Scope::User),
        ));
    } else if deliver == Deliver::Live && hooks.is_none() && !loader_runs_turns(host, &delivery) {
        notes.push(match &delivery {
            Some((channel, delivery)) if channel.every_call => {
                start::read_every_call(channel, delivery.files().first().map(|(_, path)| *path))
            }
            _ => hooks::no_per_turn(host),
        });
    }
    if let Some((channel, scope)) = delivery.as_ref().and_then(|(c, d)| Some((c, d.scope()?))) {
        notes.extend(start::read_twice(
            channel.host,
            scope,
            &places.project,
            &set_abs,
        ));
    }
    if entry.is_some() && scope == Scope::Project {
        notes.extend(entry::path_note(host));
    }
    if deliver != Deliver::Live
        && let Ok(Some(earlier)) = hooks::plan_removal(host, scope, places, name)
        && !earlier.is_unchanged()
    {
        notes.push(format!(
            "mcpick's per-turn hooks from an earlier install stay in {} (running sessions still get each change on their next turn); `mcpick uninstall {}` takes them out with the rest",
            earlier.path.display(),
            host.name()
        ));
    }
    Ok(Plan {
        host,
        scope,
        entry,
        delivery,
        hooks,
        set: set_abs,
        notes,
    })
}

/// Whether `host`'s delivery is a loader that runs `mcpick turn` itself (pi's extension): its
/// per-turn channel needs no hook settings.
fn loader_runs_turns(host: Host, delivery: &Option<(&'static Channel, Delivery)>) -> bool {
    profiles::of(host).per_turn.is_some()
        && delivery
            .as_ref()
            .is_some_and(|(c, _)| matches!(c.reached, profile::Reached::Loader(_)))
}

impl Plan {
    /// What the delivery will touch, for a dry run and the overlay (the entry's change is
    /// [`entry::Edit::diff`]).
    /// What mcpick writes for the set once this hand-off is made (its own delivery and host
    /// files with the recorded ones): what the resolution for its first delivery leaves out.
    pub fn own_outputs(&self) -> crate::context::OwnOutputs {
        own_outputs(&self.set, self.delivery.as_ref().map(|(_, d)| d))
    }

    pub fn delivery_lines(&self) -> Vec<String> {
        match &self.delivery {
            Some((channel, delivery)) => start::planned_lines(channel, delivery),
            None => Vec::new(),
        }
    }

    /// What the per-turn hooks will be (none planned: nothing).
    pub fn hook_lines(&self) -> Vec<String> {
        self.hooks.as_ref().map(|h| h.lines()).unwrap_or_default()
    }

    /// Writes the per-turn hooks (after the entry: Gemini CLI keeps both in one file, and the
    /// hooks were planned on the text the entry leaves). Nothing when none were planned.
    pub fn write_hooks(&self) -> Result<Written, String> {
        match &self.hooks {
            Some(hooks) => hooks.commit(),
            None => Ok(Written::default()),
        }
    }

    /// Writes the entry and approves it for the project (the person asked for it): the
    /// lines that say what was done, and the warnings.
    pub fn write_entry(&self, places: &Places) -> Result<Written, String> {
        let Some(entry) = &self.entry else {
            return Ok(Written::default());
        };
        let Written {
            lines,
            mut warnings,
            ..
        } = entry.commit()?;
        let mut notes = Vec::new();
        if !entry.edit.is_unchanged() {
            let approval = entry::approve_entry(places, entry);
            warnings.extend(approval.warning);
            notes.extend(approval.approved);
        }
        if let Some(note) = &profiles::of(entry.host).entry_note
            && (!note.project_only || entry.scope == Scope::Project)
        {
            notes.push(
                note.text
                    .replace("NAME", &crate::sanitize::line(&entry.name, 200)),
            );
        }
        Ok(Written {
            lines,
            warnings,
            notes,
        })
    }

    /// Writes the session-start delivery of `contents` (nothing when none was planned).
    pub fn deliver(&self, contents: Contents<'_, '_>) -> Result<Written, String> {
        let Some((channel, delivery)) = &self.delivery else {
            return Ok(Written::default());
        };
        start::write(channel, delivery, &self.set, contents)
    }
}

/// What a step of a hand-off did, for a person: lines, then warnings and notes.
#[derive(Debug, Default)]
pub struct Written {
    pub lines: Vec<String>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
}
