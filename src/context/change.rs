//! A change one front end made to its copy of a set, kept as operations so it can be applied
//! to a newer copy: the file as other processes left it. The browser saves this way: under
//! the set's lock it reads the file again and applies only what the person just did, so a
//! mark another process saved meanwhile is kept (see [`super::file::SetFile::update`]).
//!
//! A conflict is a target (or a policy field) that the other process changed too, to
//! something else: the operation applied last wins, and [`Applied`] names the conflicts so
//! the front end can say so.

use super::file::ContextSet;
use super::mark::{Mark, Target};
use super::policy::Policy;
use crate::mcp::TransportSpec;

/// One operation.
#[derive(Debug, Clone, PartialEq)]
enum Op {
    /// The mark on `target` went from `before` to `after`.
    Mark {
        target: Target,
        before: Option<Mark>,
        after: Option<Mark>,
    },
    /// The policy went from `before` to `after` (only fields that differ are applied).
    Policy { before: Policy, after: Policy },
    /// The definition of a server a new mark refers to.
    Server { name: String, spec: TransportSpec },
}

/// Operations in the order they were made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SetChange {
    ops: Vec<Op>,
}

/// What applying a change found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    /// Targets the file had marked differently from what this front end last saw: they now
    /// carry this front end's mark.
    pub conflicts: Vec<Target>,
    /// Policy fields the file had changed differently (`budget`, `audience`, …).
    pub policy_conflicts: Vec<&'static str>,
}

impl SetChange {
    /// The change from `base` (what the front end last saw on disk, plus its own changes
    /// sent so far) to `current`, for the `touched` targets and the policy. Server
    /// definitions of servers that gain a mark are included when `current` has them.
    pub fn between(
        base: &ContextSet,
        current: &ContextSet,
        touched: impl IntoIterator<Item = Target>,
    ) -> SetChange {
        let mut ops = Vec::new();
        let mut servers: Vec<String> = Vec::new();
        for target in touched {
            let before = base.marks.get(&target);
            let after = current.marks.get(&target);
            if before == after {
                continue;
            }
            if after.is_some() && !servers.contains(&target.server) {
                servers.push(target.server.clone());
            }
            ops.push(Op::Mark {
                target,
                before,
                after,
            });
        }
        if base.policy != current.policy {
            ops.push(Op::Policy {
                before: base.policy,
                after: current.policy,
            });
        }
        for name in servers {
            if let Some(spec) = current.servers.get(&name) {
                ops.push(Op::Server {
                    name,
                    spec: spec.clone(),
                });
            }
        }
        SetChange { ops }
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// This change followed by `later` (one save for both).
    pub fn then(mut self, later: SetChange) -> SetChange {
        self.ops.extend(later.ops);
        self
    }

    /// Applies the operations in order (marks without undo history).
    pub fn apply(&self, set: &mut ContextSet) -> Applied {
        let mut applied = Applied::default();
        for op in &self.ops {
            match op {
                Op::Mark {
                    target,
                    before,
                    after,
                } => {
                    let there = set.marks.get(target);
                    if there != *before && there != *after {
                        applied.conflicts.push(target.clone());
                    }
                    set.marks.set(target.clone(), *after);
                }
                Op::Policy { before, after } => {
                    apply_policy(&mut set.policy, before, after, &mut applied);
                }
                Op::Server { name, spec } => {
                    set.servers.insert(name.clone(), spec.clone());
                }
            }
        }
        set.marks.clear_history();
        applied
    }
}

/// Applies each policy field that changed from `before` to `after`.
fn apply_policy(there: &mut Policy, before: &Policy, after: &Policy, applied: &mut Applied) {
    fn field<T: PartialEq + Copy>(
        name: &'static str,
        there: &mut T,
        before: T,
        after: T,
        applied: &mut Applied,
    ) {
        if before == after {
            return;
        }
        if *there != before && *there != after {
            applied.policy_conflicts.push(name);
        }
        *there = after;
    }
    field(
        "audience",
        &mut there.audience,
        before.audience,
        after.audience,
        applied,
    );
    field(
        "budget",
        &mut there.budget,
        before.budget,
        after.budget,
        applied,
    );
    field(
        "minPriority",
        &mut there.min_priority,
        before.min_priority,
        after.min_priority,
        applied,
    );
    field(
        "tokenizer",
        &mut there.tokenizer,
        before.tokenizer,
        after.tokenizer,
        applied,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_with(marks: &[(&str, Mark)]) -> ContextSet {
        let mut set = ContextSet::default();
        for (uri, mark) in marks {
            set.marks.set(Target::exact("s", *uri), Some(*mark));
        }
        set
    }

    #[test]
    fn others_marks_are_kept_and_conflicts_named() {
        let base = set_with(&[("a", Mark::Pin)]);
        let mut ours = base.clone();
        ours.marks.set(Target::exact("s", "mine"), Some(Mark::Pin));
        ours.marks.set(Target::exact("s", "a"), None);
        ours.policy.budget = crate::context::Budget::Tokens(10);
        let change = SetChange::between(
            &base,
            &ours,
            [Target::exact("s", "mine"), Target::exact("s", "a")],
        );
        // Another process pinned `theirs`, and excluded `mine`, meanwhile.
        let mut disk = set_with(&[
            ("a", Mark::Pin),
            ("theirs", Mark::Pin),
            ("mine", Mark::Exclude),
        ]);
        disk.policy.audience = crate::context::Audience::Any;
        let applied = change.apply(&mut disk);
        let marks: Vec<String> = disk
            .marks
            .iter()
            .map(|(t, m)| format!("{} {t}", m.name()))
            .collect();
        assert_eq!(marks, ["pin s: mine", "pin s: theirs"]);
        assert_eq!(applied.conflicts, [Target::exact("s", "mine")]);
        assert_eq!(disk.policy.budget, crate::context::Budget::Tokens(10));
        assert_eq!(disk.policy.audience, crate::context::Audience::Any);
        assert!(applied.policy_conflicts.is_empty());
        // The same change again: no conflict (the file already agrees).
        assert_eq!(change.apply(&mut disk), Applied::default());
    }

    #[test]
    fn nothing_touched_is_empty() {
        let base = set_with(&[("a", Mark::Pin)]);
        assert!(SetChange::between(&base, &base.clone(), [Target::exact("s", "a")]).is_empty());
    }
}
