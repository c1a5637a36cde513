//! The agent's ranking by what each resource says of itself, and that ranking kept across
//! changes of the catalogue.
//!
//! Resolution ranks pinned resources first, then by the **rank key**: priority (or
//! [`DEFAULT_PRIORITY`](super::policy::DEFAULT_PRIORITY)) high→low, `lastModified` new→old
//! (none last), then name, server and URI, then catalogue order. The key depends only on
//! the resource, and "pinned first" is a stable partition of the key's order, so an order by
//! the key can be kept from one resolution to the next: [`RankOrder`] is that order for a
//! snapshot, and [`RankOrder::advance`] makes it the order of a later snapshot in proportion
//! to what changed (the appended resources sorted among themselves and merged in, the
//! removed ones skipped, the changed ones taken out and put back), so that a browser that
//! resolves a million resources after every list change, measure or mark does not sort them
//! again each time. Pure: no I/O.

use std::cell::Cell;
use std::cmp::Ordering;
use std::sync::Arc;

use super::policy::Policy;
#[cfg(doc)]
use crate::catalog::Catalogue;
use crate::catalog::{Extent, Item, ItemId, Snapshot, kept};

/// The numeric head of the rank key with a position, 16 bytes: what most comparisons of a
/// sort read (no item, no string), falling back to the rest of the key only on a tie.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keyed {
    /// `lastModified` in ms; `i64::MIN` for none (a tie with a real `i64::MIN` goes on to
    /// [`compare`], which tells them apart).
    modified: i64,
    priority: f32,
    /// The position of the item in whatever is being sorted.
    pub at: u32,
}

impl Keyed {
    pub fn new(at: u32, item: &Item) -> Self {
        Keyed {
            modified: item.modified_ms().unwrap_or(i64::MIN),
            priority: Policy::priority(item.priority()),
            at,
        }
    }

    /// Priority high→low, then `lastModified` new→old: consistent with [`compare`] wherever
    /// it is not `Equal`.
    fn head(&self, other: &Keyed) -> Ordering {
        other
            .priority
            .total_cmp(&self.priority)
            .then_with(|| other.modified.cmp(&self.modified))
    }
}

/// Sorts `keyed` by the rank key, `rest(a, b)` comparing the items at positions `a` and `b`
/// by the whole key ([`compare`]) where the numeric head ties, the positions breaking the
/// last ties; `compares` counts the comparisons. Unstable (no scratch copy of a million
/// entries), yet deterministic.
pub(crate) fn sort_keyed(
    keyed: &mut [Keyed],
    compares: &Cell<usize>,
    rest: impl Fn(u32, u32) -> Ordering,
) {
    keyed.sort_unstable_by(|a, b| {
        compares.set(compares.get() + 1);
        a.head(b)
            .then_with(|| rest(a.at, b.at))
            .then_with(|| a.at.cmp(&b.at))
    });
}

/// The rank key of two resources, each as (its server's name, its item), catalogue order
/// aside: priority (or the default) high→low, `lastModified` new→old (none last), name
/// (title, else name), server, URI.
pub fn compare(a: (&str, &Item), b: (&str, &Item)) -> Ordering {
    let ((sa, a), (sb, b)) = (a, b);
    Policy::priority(b.priority())
        .total_cmp(&Policy::priority(a.priority()))
        .then_with(|| compare_modified(a.modified_ms(), b.modified_ms()))
        .then_with(|| a.display_name().cmp(b.display_name()))
        .then_with(|| sa.cmp(sb))
        .then_with(|| a.uri().cmp(b.uri()))
}

/// Newest first; a resource without `lastModified` after every one with it.
fn compare_modified(a: Option<i64>, b: Option<i64>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => b.cmp(&a),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// How a [`RankOrder`] was made (for tests and benchmarks: an advance that should have been
/// proportional must not silently sort everything).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankUpdate {
    /// Every resource sorted.
    Sorted,
    /// The earlier order kept: `inserted` resources (appended, or changed in place) put in,
    /// `taken_out` skipped (removed, or changed in place).
    Merged { inserted: usize, taken_out: usize },
}

/// The live resources of a snapshot in rank-key order, and how far that snapshot reached.
#[derive(Debug, Clone)]
pub struct RankOrder {
    ids: Vec<ItemId>,
    extent: Extent,
    made: RankUpdate,
    /// Comparisons of two resources it took (the whole key, or its numeric head).
    compares: usize,
}

impl RankOrder {
    /// Every live resource of `snapshot`, sorted.
    pub fn of(snapshot: &Snapshot) -> RankOrder {
        let blocks = snapshot.blocks();
        let mut ids: Vec<ItemId> = Vec::with_capacity(snapshot.len());
        let mut keyed: Vec<Keyed> = Vec::with_capacity(snapshot.len());
        for block in &blocks {
            for (id, item) in block.live() {
                keyed.push(Keyed::new(ids.len() as u32, item));
                ids.push(id);
            }
        }
        let compares = Cell::new(0);
        // Positions are in catalogue order, so they break ties as the ids would.
        sort_keyed(&mut keyed, &compares, |a, b| {
            compare_ids(snapshot, ids[a as usize], ids[b as usize])
        });
        let sorted = keyed.iter().map(|k| ids[k.at as usize]).collect();
        RankOrder {
            ids: sorted,
            extent: snapshot.extent(),
            made: RankUpdate::Sorted,
            compares: compares.get(),
        }
    }

    /// The order of `snapshot`, a later snapshot of the same catalogue, given every id
    /// removed, changed in place or superseded in between (`touched`, as
    /// [`crate::catalog::Catalogue::touched_since`] gives it for this order's
    /// [`RankOrder::extent`]): the resources appended since are sorted among themselves and
    /// each put in by binary search, the touched ones that are still there too, and one copy
    /// pass skips what went. `None` for `touched` (the catalogue's record does not reach
    /// back), or a snapshot that does not reach as far as this order's: everything sorted.
    /// The same `Arc` when nothing changed.
    pub fn advance(
        self: &Arc<Self>,
        snapshot: &Snapshot,
        touched: Option<&[ItemId]>,
    ) -> Arc<RankOrder> {
        let later = snapshot.extent();
        if touched.is_some_and(<[ItemId]>::is_empty) && later == self.extent {
            return Arc::clone(self);
        }
        let compares = Cell::new(0);
        let cmp = |a: ItemId, b: ItemId| {
            compares.set(compares.get() + 1);
            compare_ids(snapshot, a, b)
        };
        match kept::advance(&self.ids, &self.extent, snapshot, touched, cmp) {
            None => Arc::new(RankOrder::of(snapshot)),
            Some(merged) => Arc::new(RankOrder {
                ids: merged.ids,
                extent: later,
                made: RankUpdate::Merged {
                    inserted: merged.inserted,
                    taken_out: merged.taken_out,
                },
                compares: compares.get(),
            }),
        }
    }

    /// The resources, best first (pins aside).
    pub fn ids(&self) -> &[ItemId] {
        &self.ids
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id at a position.
    pub fn get(&self, position: usize) -> Option<ItemId> {
        self.ids.get(position).copied()
    }

    /// How far the snapshot it orders reached.
    pub fn extent(&self) -> &Extent {
        &self.extent
    }

    pub fn made(&self) -> RankUpdate {
        self.made
    }

    /// Comparisons of two resources it took to make.
    pub fn compares(&self) -> usize {
        self.compares
    }
}

/// The whole rank key of two live resources of a snapshot, the ids breaking the last ties.
fn compare_ids(snapshot: &Snapshot, a: ItemId, b: ItemId) -> Ordering {
    match (snapshot.get(a), snapshot.get(b)) {
        (Some(ia), Some(ib)) => compare(
            (snapshot.server_name(a.server), ia),
            (snapshot.server_name(b.server), ib),
        )
        .then_with(|| a.cmp(&b)),
        _ => a.cmp(&b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalogue, ServerId};
    use crate::context::mark::{Mark, Marks, Target};
    use crate::context::policy::Audience;
    use crate::context::resolve::{Measure, Measures, Preview, Reason};
    use crate::context::{Sources, candidates_in};
    use crate::mcp::ListingEdit;
    use proptest::prelude::*;
    use rmcp::model::{Annotations, Resource, Role};

    /// The fields a resource is ranked and filtered by, few values each so ties happen.
    #[derive(Debug, Clone)]
    struct Attrs {
        priority: Option<u8>,
        modified: Option<u8>,
        name: u8,
        titled: bool,
        size: u16,
        audience: Option<u8>,
    }

    fn attrs() -> impl Strategy<Value = Attrs> {
        (
            prop::option::of(0u8..3),
            prop::option::of(0u8..3),
            0u8..3,
            any::<bool>(),
            0u16..400,
            prop::option::of(0u8..3),
        )
            .prop_map(|(priority, modified, name, titled, size, audience)| Attrs {
                priority,
                modified,
                name,
                titled,
                size,
                audience,
            })
    }

    fn resource(uri: &str, a: &Attrs) -> Resource {
        let mut r = Resource::new(uri, format!("n{}", a.name)).with_size(u64::from(a.size));
        if a.titled {
            r = r.with_title(format!("n{}", (a.name + 1) % 3));
        }
        let mut ann = Annotations::default();
        // 0.5 is the default priority: a tie with the unannotated.
        ann.priority = a.priority.map(|p| [0.2, 0.5, 0.8][p as usize]);
        ann.last_modified = a.modified.map(|d| format!("2024-01-0{}T00:00:00Z", d + 1));
        ann.audience = a.audience.map(|bits| match bits {
            0 => vec![Role::User],
            1 => vec![Role::Assistant],
            _ => vec![],
        });
        r.with_annotations(ann)
    }

    /// A position in a list of any length.
    #[derive(Debug, Clone, Copy)]
    struct Pick(u32);

    impl Pick {
        fn index(&self, len: usize) -> usize {
            self.0 as usize % len
        }
    }

    /// One change of a catalogue of two servers, as a front end makes it.
    #[derive(Debug, Clone)]
    enum Op {
        /// A page appended.
        Append(u8, Vec<Attrs>),
        /// A list change: these listing positions gone, these changed in place, these added.
        Edit {
            server: u8,
            removed: Vec<Pick>,
            changed: Vec<(Pick, Attrs)>,
            added: Vec<Attrs>,
        },
        /// The listing replaced: some of it kept, some new.
        Replace(u8, Vec<Pick>, Vec<Attrs>),
        /// A resource the server does not list (a pinned expansion).
        Unlisted(u8, Attrs),
        /// The server lists an unlisted resource's URI now.
        Supersede(u8, Pick, Attrs),
    }

    fn op() -> impl Strategy<Value = Op> {
        let server = 0u8..2;
        let index = any::<u32>().prop_map(Pick);
        prop_oneof![
            (server.clone(), prop::collection::vec(attrs(), 0..6))
                .prop_map(|(s, a)| Op::Append(s, a)),
            (
                server.clone(),
                prop::collection::vec(index.clone(), 0..4),
                prop::collection::vec((index.clone(), attrs()), 0..4),
                prop::collection::vec(attrs(), 0..3)
            )
                .prop_map(|(server, removed, changed, added)| Op::Edit {
                    server,
                    removed,
                    changed,
                    added
                }),
            (
                server.clone(),
                prop::collection::vec(index.clone(), 0..6),
                prop::collection::vec(attrs(), 0..4)
            )
                .prop_map(|(s, k, a)| Op::Replace(s, k, a)),
            (server.clone(), attrs()).prop_map(|(s, a)| Op::Unlisted(s, a)),
            (server, index, attrs()).prop_map(|(s, i, a)| Op::Supersede(s, i, a)),
        ]
    }

    /// A catalogue and what its servers list now, to make edits from.
    struct Model {
        cat: Catalogue,
        listings: [Vec<Resource>; 2],
        unlisted: [Vec<String>; 2],
        next: [u32; 2],
    }

    impl Model {
        fn new() -> Self {
            let mut cat = Catalogue::new();
            cat.server("a");
            cat.server("b");
            Model {
                cat,
                listings: Default::default(),
                unlisted: Default::default(),
                next: [0; 2],
            }
        }

        /// A URI the server has not used yet (both servers count alike, so the same URI is
        /// on both: the server breaks the tie).
        fn uri(&mut self, server: u8) -> String {
            let next = &mut self.next[server as usize];
            *next += 1;
            format!("x://{next}")
        }

        fn fresh(&mut self, server: u8, a: &[Attrs]) -> Vec<Resource> {
            a.iter()
                .map(|a| {
                    let uri = self.uri(server);
                    resource(&uri, a)
                })
                .collect()
        }

        fn run(&mut self, op: &Op) {
            match op {
                Op::Append(s, a) => {
                    let page = self.fresh(*s, a);
                    self.cat.append(*s as ServerId, &page);
                    self.listings[*s as usize].extend(page);
                }
                Op::Edit {
                    server,
                    removed,
                    changed,
                    added,
                } => {
                    let s = *server as usize;
                    let listing = &self.listings[s];
                    let mut gone: Vec<u32> = if listing.is_empty() {
                        Vec::new()
                    } else {
                        removed
                            .iter()
                            .map(|i| i.index(listing.len()) as u32)
                            .collect()
                    };
                    gone.sort_unstable();
                    gone.dedup();
                    let mut edit = ListingEdit {
                        removed: gone.clone(),
                        ..ListingEdit::default()
                    };
                    let mut kept: Vec<Resource> = listing
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| gone.binary_search(&(*i as u32)).is_err())
                        .map(|(_, r)| r.clone())
                        .collect();
                    if !kept.is_empty() {
                        let mut at: Vec<(usize, &Attrs)> = changed
                            .iter()
                            .map(|(i, a)| (i.index(kept.len()), a))
                            .collect();
                        at.sort_by_key(|(i, _)| *i);
                        at.dedup_by_key(|(i, _)| *i);
                        for (i, a) in at {
                            kept[i] = resource(&kept[i].uri.clone(), a);
                            edit.changed.push(kept[i].clone());
                        }
                    }
                    edit.added = self.fresh(*server, added);
                    kept.extend(edit.added.iter().cloned());
                    self.cat.apply(s as ServerId, &edit);
                    self.listings[s] = kept;
                }
                Op::Replace(s, keep, a) => {
                    let listing = &self.listings[*s as usize];
                    let mut new: Vec<Resource> = Vec::new();
                    if !listing.is_empty() {
                        let mut at: Vec<usize> =
                            keep.iter().map(|i| i.index(listing.len())).collect();
                        at.sort_unstable();
                        at.dedup();
                        new.extend(at.into_iter().map(|i| listing[i].clone()));
                    }
                    new.extend(self.fresh(*s, a));
                    self.cat.replace(*s as ServerId, &new);
                    self.listings[*s as usize] = new;
                }
                Op::Unlisted(s, a) => {
                    let uri = self.uri(*s);
                    self.cat.add_unlisted(*s as ServerId, &resource(&uri, a));
                    self.unlisted[*s as usize].push(uri);
                }
                Op::Supersede(s, i, a) => {
                    let unlisted = &mut self.unlisted[*s as usize];
                    if unlisted.is_empty() {
                        return;
                    }
                    let uri = unlisted.remove(i.index(unlisted.len()));
                    let edit = ListingEdit {
                        added: vec![resource(&uri, a)],
                        ..ListingEdit::default()
                    };
                    self.cat.apply(*s as ServerId, &edit);
                    self.listings[*s as usize].push(edit.added[0].clone());
                }
            }
        }
    }

    /// What resolution is asked at one step: marks, policy, measures.
    #[derive(Debug, Clone)]
    struct Ask {
        /// (server: 0, 1 or unavailable, URI number, a prefix, pin or exclude).
        marks: Vec<(u8, u8, bool, bool)>,
        budget: Option<u16>,
        min_priority: Option<u8>,
        audience: u8,
        /// (URI number, counted or failed, count) on server 0 or 1.
        measures: Vec<(u8, u8, bool, u16)>,
    }

    fn ask() -> impl Strategy<Value = Ask> {
        (
            prop::collection::vec((0u8..3, 0u8..12, any::<bool>(), any::<bool>()), 0..5),
            prop::option::of(0u16..800),
            prop::option::of(0u8..3),
            0u8..3,
            prop::collection::vec((0u8..2, 0u8..12, any::<bool>(), 0u16..200), 0..6),
        )
            .prop_map(|(marks, budget, min_priority, audience, measures)| Ask {
                marks,
                budget,
                min_priority,
                audience,
                measures,
            })
    }

    const SERVERS: [&str; 3] = ["a", "b", "down"];

    fn marks_of(ask: &Ask) -> Marks {
        Marks::from_list(ask.marks.iter().map(|&(s, n, prefix, pin)| {
            let server = SERVERS[s as usize];
            let target = if prefix {
                Target::prefix(server, format!("x://{n}"))
            } else {
                Target::exact(server, format!("x://{n}"))
            };
            (target, if pin { Mark::Pin } else { Mark::Exclude })
        }))
    }

    fn policy_of(ask: &Ask) -> Policy {
        Policy {
            budget: ask.budget.map_or(crate::context::Budget::All, |b| {
                crate::context::Budget::Tokens(b.into())
            }),
            min_priority: ask.min_priority.map(|m| [0.3, 0.5, 0.7][m as usize]),
            audience: [Audience::Assistant, Audience::User, Audience::Any][ask.audience as usize],
            ..Policy::default()
        }
    }

    fn measures_of(ask: &Ask) -> Measures {
        let mut m = Measures::new();
        for &(s, n, counted, count) in &ask.measures {
            let measure = if counted {
                Measure::Counted(u64::from(count))
            } else {
                Measure::Failed(format!("boom {n}"))
            };
            m.insert(SERVERS[s as usize], &format!("x://{n}"), measure);
        }
        m
    }

    /// A preview with every candidate index replaced by its resource's id.
    #[derive(Debug, PartialEq)]
    struct ById {
        included: Vec<(ItemId, u64, bool, u64, bool, u32, bool)>,
        left_out: Vec<(ItemId, Reason, Option<u64>, bool)>,
        rest: Preview,
    }

    fn by_id(mut p: Preview, id: impl Fn(usize) -> ItemId) -> ById {
        let included = std::mem::take(&mut p.included)
            .into_iter()
            .map(|i| {
                let at = id(i.index);
                (
                    at,
                    i.tokens,
                    i.estimated,
                    i.running_total,
                    i.pinned,
                    i.priority.to_bits(),
                    i.priority_defaulted,
                )
            })
            .collect();
        let left_out = std::mem::take(&mut p.left_out)
            .into_iter()
            .map(|l| (id(l.index as usize), l.reason, l.tokens, l.estimated))
            .collect();
        ById {
            included,
            left_out,
            rest: p,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever the catalogue goes through (pages, list changes, replaced listings,
        /// expansions and their supersession), the order kept across the changes is the
        /// order a whole sort gives, and the preview resolved over it is the one resolved
        /// over the candidates in catalogue order (sorted first), index for index once
        /// mapped to ids: included order, running totals, left-out reasons and order,
        /// missing, unavailable. So is the preview resolved keeping the last step's
        /// verdicts for what did not change (they hold when the step asks the same).
        #[test]
        fn a_kept_order_is_a_fresh_sort_and_resolves_the_same(
            steps in prop::collection::vec((op(), ask()), 1..14),
        ) {
            let mut model = Model::new();
            let mut order = Arc::new(RankOrder::of(&model.cat.snapshot()));
            let mut judged: Option<crate::context::Judged> = None;
            let listed = vec!["a".to_string(), "b".to_string()];
            let unavailable = vec![("down".to_string(), "connection refused".to_string())];
            for (op, ask) in &steps {
                model.run(op);
                let snapshot = model.cat.snapshot();
                let touched = model.cat.touched_since(order.extent());
                order = order.advance(&snapshot, touched.as_deref());
                let fresh = RankOrder::of(&snapshot);
                prop_assert_eq!(order.ids(), fresh.ids(), "after {:?}", op);
                prop_assert_eq!(order.extent(), &snapshot.extent());

                let (marks, policy, measures) = (marks_of(ask), policy_of(ask), measures_of(ask));
                let sources = Sources::ranked(&order, &snapshot, &listed, &unavailable);
                let ranked = sources.resolve(&marks, &policy, &measures);
                let keep = match (&judged, &touched) {
                    (Some(judged), Some(touched)) => Some(crate::context::Keep { judged, touched }),
                    _ => None,
                };
                let (kept, next) = sources.resolve_keeping(&marks, &policy, &measures, keep);
                prop_assert_eq!(&kept, &ranked, "kept verdicts after {:?} with {:?}", op, ask);
                judged = next;
                let names: Vec<Arc<str>> = SERVERS[..2].iter().map(|&s| s.into()).collect();
                let cands = candidates_in(&snapshot, &names);
                let ids: Vec<ItemId> = cands.iter().map(|c| c.id).collect();
                let sorted = Sources::from_lists(cands, &listed, &unavailable)
                    .resolve(&marks, &policy, &measures);
                prop_assert_eq!(
                    by_id(ranked, |i| order.ids()[i]),
                    by_id(sorted, |i| ids[i]),
                    "after {:?} with {:?}", op, ask
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// With the same marks, policy and measures from one change to the next (as `serve`
        /// refreshes after a list change), the verdicts kept from the last resolution for
        /// what did not change give the preview a fresh resolution gives.
        #[test]
        fn verdicts_kept_across_changes_resolve_as_fresh_ones(
            ask in ask(),
            ops in prop::collection::vec(op(), 1..14),
        ) {
            let mut model = Model::new();
            let mut order = Arc::new(RankOrder::of(&model.cat.snapshot()));
            let (listed, unavailable) = (vec!["a".to_string(), "b".to_string()], vec![]);
            let (marks, policy, measures) = (marks_of(&ask), policy_of(&ask), measures_of(&ask));
            let mut judged = None;
            for op in &ops {
                model.run(op);
                let snapshot = model.cat.snapshot();
                let touched = model.cat.touched_since(order.extent());
                order = order.advance(&snapshot, touched.as_deref());
                let sources = Sources::ranked(&order, &snapshot, &listed, &unavailable);
                let keep = match (&judged, &touched) {
                    (Some(judged), Some(touched)) => Some(crate::context::Keep { judged, touched }),
                    _ => None,
                };
                let (kept, next) = sources.resolve_keeping(&marks, &policy, &measures, keep);
                let fresh = sources.resolve(&marks, &policy, &measures);
                prop_assert_eq!(&kept, &fresh, "after {:?}", op);
                judged = Some(next.expect("a ranked resolution gives its verdicts"));
            }
        }
    }

    /// A catalogue of `n` resources whose keys mostly tie on the numeric head (few
    /// priorities and dates), so comparisons often go on to the names.
    fn big(n: usize) -> Model {
        let mut model = Model::new();
        let a: Vec<Attrs> = (0..n)
            .map(|i| Attrs {
                priority: Some((i % 3) as u8),
                modified: None,
                name: (i % 3) as u8,
                titled: false,
                size: 40,
                audience: None,
            })
            .collect();
        model.run(&Op::Append(0, a));
        model
    }

    fn one() -> Attrs {
        Attrs {
            priority: Some(1),
            modified: Some(1),
            name: 1,
            titled: true,
            size: 8,
            audience: None,
        }
    }

    /// A sort of a million holds one of these each, and a kept order one id each.
    #[test]
    fn what_a_million_cost_to_rank_stays_small() {
        assert_eq!(std::mem::size_of::<Keyed>(), 16);
        assert_eq!(std::mem::size_of::<ItemId>(), 8);
    }

    /// The proportional path cannot silently become a whole sort: one resource appended,
    /// removed or changed costs about log₂n comparisons, where the sort of the same
    /// catalogue costs n·log₂n.
    #[test]
    fn one_change_is_merged_in_with_a_binary_search_not_a_sort() {
        let n = 20_000;
        let mut model = big(n);
        let first = Arc::new(RankOrder::of(&model.cat.snapshot()));
        assert_eq!(first.made(), RankUpdate::Sorted);
        assert!(first.compares() > 4 * n, "{}", first.compares());
        let log = (usize::BITS - n.leading_zeros()) as usize;

        let mut order = first;
        let steps = [
            (Op::Append(0, vec![one()]), 1, 0),
            (
                Op::Edit {
                    server: 0,
                    removed: vec![Pick(10_000)],
                    changed: Vec::new(),
                    added: Vec::new(),
                },
                0,
                1,
            ),
            (
                Op::Edit {
                    server: 0,
                    removed: Vec::new(),
                    changed: vec![(Pick(5_000), one())],
                    added: Vec::new(),
                },
                1,
                1,
            ),
        ];
        for (op, inserted, taken_out) in steps {
            model.run(&op);
            let snapshot = model.cat.snapshot();
            let touched = model.cat.touched_since(order.extent());
            assert_eq!(touched.as_ref().map(Vec::len), Some(taken_out), "{op:?}");
            order = order.advance(&snapshot, touched.as_deref());
            assert_eq!(
                order.made(),
                RankUpdate::Merged {
                    inserted,
                    taken_out
                },
                "{op:?}"
            );
            assert!(order.compares() <= log + 2, "{op:?}: {}", order.compares());
            assert_eq!(order.ids(), RankOrder::of(&snapshot).ids(), "{op:?}");
        }
        // Nothing changed (a mark, a count): the same order, not a copy.
        let snapshot = model.cat.snapshot();
        let same = order.advance(&snapshot, Some(&[]));
        assert!(Arc::ptr_eq(&same, &order));
    }

    /// Where the catalogue's record does not reach back, the advance sorts whole (and is
    /// still right): a listing replaced since, or more touched than the record holds.
    #[test]
    fn an_order_older_than_the_record_is_sorted_again() {
        let mut model = big(50);
        let order = Arc::new(RankOrder::of(&model.cat.snapshot()));
        model.run(&Op::Replace(0, vec![Pick(15)], vec![one()]));
        assert_eq!(model.cat.touched_since(order.extent()), None);
        let snapshot = model.cat.snapshot();
        let again = order.advance(&snapshot, None);
        assert_eq!(again.made(), RankUpdate::Sorted);
        assert_eq!(again.ids(), RankOrder::of(&snapshot).ids());

        let mut model = big(crate::catalog::store::TOUCHED_MAX + 10);
        let order = Arc::new(RankOrder::of(&model.cat.snapshot()));
        let changed = (0..crate::catalog::store::TOUCHED_MAX + 1)
            .map(|i| (Pick(i as u32), one()))
            .collect();
        model.run(&Op::Edit {
            server: 0,
            removed: Vec::new(),
            changed,
            added: Vec::new(),
        });
        assert_eq!(model.cat.touched_since(order.extent()), None);
        // A later order is within the record again.
        let later = model.cat.snapshot();
        let order = Arc::new(RankOrder::of(&later));
        assert_eq!(model.cat.touched_since(order.extent()), Some(Vec::new()));
    }
}
