//! One upstream's resources as it listed them, kept compactly: as catalogue items (a
//! one-server [`Catalogue`], built page by page as the pages arrive, whose chunks every
//! refresh's merged catalogue shares), and, for the few resources an item does not give back
//! exactly (icons, `_meta`, an audience out of order, …), the resource itself beside them. At
//! a million resources the rmcp `Resource`s themselves were most of `serve`'s memory.
//!
//! A re-list comes diffed against the last listing (by the upstream's supervisor, page by
//! page: [`crate::mcp::Fingerprint`]) and is applied as what changed
//! ([`ListedResources::relist`]): the items kept stay where they are, in the chunks the
//! published list shares, so a re-list with one resource added costs the diff and that one
//! item, not a new listing.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use rmcp::model::Resource;

use super::exposed::Listed;
use crate::catalog::item::{Item, MimeTable};
use crate::catalog::{Catalogue, ItemId, ServerId};
use crate::mcp::ListingChange;

/// The one server of a listing's catalogue.
const SERVER: ServerId = 0;

/// An upstream's listed resources (a URI listed twice is kept once: the first).
#[derive(Debug, Clone, Default)]
pub struct ListedResources {
    items: Arc<Catalogue>,
    /// The table `items` numbers MIME types with, shared with what is published.
    mimes: Arc<MimeTable>,
    /// By item index: the listed form of each resource its item does not give back exactly.
    originals: Arc<HashMap<u32, Arc<Resource>>>,
    /// Which listing this is: a new one for each listing built whole, the same through its
    /// edits (0: nothing listed). An item's index means the same item only within one.
    lineage: u64,
}

/// How far a listing reached when a rank order was made of it ([`ListedResources::origin`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    lineage: u64,
    extent: crate::catalog::Extent,
}

/// How a re-list reached a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relisted {
    /// As what changed: this many entries removed, changed in place and added.
    Edited {
        removed: usize,
        changed: usize,
        added: usize,
    },
    /// Built again whole (most of it changed, or there was no listing to edit).
    Replaced,
}

impl Relisted {
    /// The same listing again.
    pub const NOTHING: Relisted = Relisted::Edited {
        removed: 0,
        changed: 0,
        added: 0,
    };
}

impl ListedResources {
    /// The listing as a one-server catalogue (none for an upstream that listed nothing), for
    /// a merged catalogue to [adopt](Catalogue::adopt).
    pub fn catalogue(&self) -> Option<&Catalogue> {
        (self.items.server_count() > 0).then_some(&*self.items)
    }

    /// The resource at `index` (its catalogue position) as listed, if its URI is `uri`.
    #[cfg(test)]
    pub fn listed(&self, index: u32, uri: &str) -> Option<Listed> {
        self.listed_if(index, |item| item.uri() == uri)
    }

    /// The resource at `index` as listed, if it is `item` (a merged catalogue's item, which
    /// shares this listing's chunks: the same item in memory, or else one with its URI).
    /// Comparing addresses first spares `serve`'s refresh decoding two URIs per resource.
    pub fn listed_as(&self, index: u32, item: &Item) -> Option<Listed> {
        self.listed_if(index, |ours| {
            std::ptr::eq(ours, item) || ours.uri() == item.uri()
        })
    }

    fn listed_if(&self, index: u32, is: impl Fn(&Item) -> bool) -> Option<Listed> {
        let item = self.items.item_ref(ItemId {
            server: SERVER,
            index,
        })?;
        if !is(item.get()) {
            return None;
        }
        Some(match self.originals.get(&index) {
            Some(original) => Listed::original(item, original.clone()),
            None => Listed::exact(item, self.mimes.clone()),
        })
    }

    /// The MIME table the items number their types with.
    pub fn mimes(&self) -> &Arc<MimeTable> {
        &self.mimes
    }

    /// Which listing this is and how far it reaches now; `None` when nothing was listed.
    pub fn origin(&self) -> Option<Origin> {
        self.catalogue().map(|items| Origin {
            lineage: self.lineage,
            extent: items.snapshot().extent(),
        })
    }

    /// The indices of the items removed, changed in place or superseded since `origin`
    /// ([`Catalogue::touched_since`]); every other item there is here at the same index,
    /// unchanged. `None` when `origin` was another listing's, or the record does not reach
    /// back that far.
    pub fn touched_since(&self, origin: &Origin) -> Option<Vec<u32>> {
        if origin.lineage != self.lineage {
            return None;
        }
        let touched = self.catalogue()?.touched_since(&origin.extent)?;
        Some(touched.into_iter().map(|id| id.index).collect())
    }

    /// Resources given back from their own copy rather than from their item.
    pub fn originals(&self) -> usize {
        self.originals.len()
    }

    /// Resources listed (a URI listed twice counted once).
    pub fn len(&self) -> usize {
        self.catalogue().map_or(0, Catalogue::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes this the listing of `server` that a re-list reached: what changed since the last
    /// listing (`change`, diffed against the listing this was built from) is applied to its
    /// items (the others, and the chunks a published list shares, stay as they are); a
    /// listing of which most changed is built again whole. `mimes`: the table shared by every
    /// listing ([`Builder::page`]).
    pub fn relist(
        &mut self,
        server: &str,
        change: ListingChange,
        mimes: &mut MimeTable,
    ) -> Relisted {
        let edit = match change {
            ListingChange::Edited(edit) => edit,
            ListingChange::Replaced(resources) => {
                *self = Builder::build(server, resources, mimes);
                return Relisted::Replaced;
            }
        };
        if self.items.server_count() == 0 {
            // Nothing was listed: the edit can only add (what it adds is the listing).
            *self = Builder::build(server, edit.added, mimes);
            return Relisted::Replaced;
        }
        let items = Arc::make_mut(&mut self.items);
        let report = items.apply_sharing(SERVER, &edit, mimes);
        let originals = Arc::make_mut(&mut self.originals);
        for (id, _) in &report.removed {
            originals.remove(&id.index);
        }
        // Each item changed or added gets its listed form kept when it cannot give it back
        // (the first entry of a URI listed twice is the one kept, as in a listing).
        let changed: HashSet<u32> = report.changed.iter().map(|id| id.index).collect();
        let mut seen = HashSet::new();
        for resource in edit.changed.iter().chain(&edit.added) {
            let Some(id) = items.find(SERVER, &resource.uri) else {
                continue;
            };
            let fresh = changed.contains(&id.index) || id.index >= report.added_from;
            if !fresh || !seen.insert(id.index) {
                continue;
            }
            let exact = items
                .get(id)
                .is_some_and(|item| item.to_resource(items.mimes()) == *resource);
            if exact {
                originals.remove(&id.index);
            } else {
                originals.insert(id.index, Arc::new(resource.clone()));
            }
        }
        // Published entries compare their tables by pointer: a new one only for new types.
        if self.mimes.len() != items.mimes().len() {
            self.mimes = Arc::new(items.mimes().clone());
        }
        Relisted::Edited {
            removed: edit.removed.len(),
            changed: edit.changed.len(),
            added: edit.added.len(),
        }
    }
}

/// Builds a [`ListedResources`] from the pages of one listing, in order.
#[derive(Debug)]
pub struct Builder {
    items: Catalogue,
    originals: HashMap<u32, Arc<Resource>>,
}

impl Builder {
    pub fn new(server: &str) -> Builder {
        let mut items = Catalogue::new();
        items.server(server);
        Builder {
            items,
            originals: HashMap::new(),
        }
    }

    /// Adds one page. `mimes` is the MIME table shared by every upstream's listing (so the
    /// merged catalogue shares their items instead of renumbering copies).
    pub fn page(&mut self, page: Vec<Resource>, mimes: &mut MimeTable) {
        let mut index = self.items.server_end(SERVER);
        let report = self.items.append_sharing(SERVER, &page, mimes);
        let mut skipped = report.duplicates.iter().map(|d| d.index).peekable();
        for (position, resource) in page.into_iter().enumerate() {
            if skipped.next_if_eq(&position).is_some() {
                continue;
            }
            let id = ItemId {
                server: SERVER,
                index,
            };
            index += 1;
            let exact = self
                .items
                .get(id)
                .is_some_and(|item| item.to_resource(self.items.mimes()) == resource);
            if !exact {
                self.originals.insert(id.index, Arc::new(resource));
            }
        }
    }

    pub fn finish(self) -> ListedResources {
        static LINEAGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        ListedResources {
            mimes: Arc::new(self.items.mimes().clone()),
            items: Arc::new(self.items),
            originals: Arc::new(self.originals),
            lineage: LINEAGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// A whole listing at once.
    pub fn build(server: &str, resources: Vec<Resource>, mimes: &mut MimeTable) -> ListedResources {
        let mut builder = Builder::new(server);
        builder.page(resources, mimes);
        builder.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Fingerprint;
    use rmcp::model::{Annotations, Role};

    fn exact(uri: &str) -> Resource {
        Resource::new(uri, uri)
            .with_title("T")
            .with_mime_type("text/plain")
            .with_size(3)
            .with_annotations(
                Annotations::default()
                    .with_priority(0.25)
                    .with_audience(vec![Role::User, Role::Assistant]),
            )
    }

    #[test]
    fn only_what_an_item_cannot_give_back_is_kept_whole() {
        let mut odd_audience = exact("x://3");
        odd_audience.annotations.as_mut().unwrap().audience =
            Some(vec![Role::Assistant, Role::User, Role::User]);
        let mut meta = exact("x://4");
        meta.meta = Some(Default::default());
        let mut empty_annotations = exact("x://5");
        empty_annotations.annotations = Some(Annotations::default());
        let mut mimes = MimeTable::default();
        let listed = Builder::build(
            "s",
            vec![
                exact("x://1"),
                exact("x://2"),
                exact("x://1"), // listed twice: the first is kept
                odd_audience.clone(),
                meta.clone(),
                empty_annotations.clone(),
            ],
            &mut mimes,
        );
        assert_eq!(listed.len(), 5);
        assert_eq!(
            listed.originals(),
            2,
            "the audience out of order, and _meta"
        );
        for (index, want) in [
            exact("x://1"),
            exact("x://2"),
            odd_audience,
            meta,
            empty_annotations,
        ]
        .into_iter()
        .enumerate()
        {
            let got = listed.listed(index as u32, &want.uri).unwrap();
            assert_eq!(*got.resource(), want, "{}", want.uri);
        }
        assert!(listed.listed(0, "x://2").is_none(), "checked by URI");
        assert_eq!(mimes.len(), 1, "the shared table learned the page's type");
    }

    /// The items of a listing, by index, with their resources as given back.
    fn given_back(listed: &ListedResources, uris: &[&str]) -> Vec<Option<Resource>> {
        (0..uris.len() as u32)
            .map(|i| {
                let found = listed.listed(i, uris[i as usize])?;
                Some(found.resource().into_owned())
            })
            .collect()
    }

    #[test]
    fn a_relist_is_applied_as_what_changed_and_kept_items_stay_shared() {
        let mut mimes = MimeTable::default();
        let first: Vec<Resource> = (0..5).map(|i| exact(&format!("x://{i}"))).collect();
        let mut listed = Builder::build("s", first.clone(), &mut mimes);
        let kept = listed.listed(0, "x://0").unwrap();
        // What the upstream's supervisor diffs each re-list against.
        let mut print = Fingerprint::default();
        print.reset(&first);

        // One added, at the end, with `_meta` (kept as listed).
        let mut added = exact("x://new");
        added.meta = Some(Default::default());
        let mut second = first.clone();
        second.push(added.clone());
        assert_eq!(
            listed.relist("s", print.diff(second.clone()), &mut mimes),
            Relisted::Edited {
                removed: 0,
                changed: 0,
                added: 1
            }
        );
        assert_eq!(listed.len(), 6);
        assert_eq!(*listed.listed(5, "x://new").unwrap().resource(), added);
        assert_eq!(listed.originals(), 1);
        let again = listed.listed(0, "x://0").unwrap();
        assert_eq!(
            *again.resource(),
            *kept.resource(),
            "published before, the same after"
        );

        // One removed, one retitled in place; the same listing again is nothing.
        let mut third = second.clone();
        third.remove(2);
        third[0].title = Some("new title".into());
        assert_eq!(
            listed.relist("s", print.diff(third.clone()), &mut mimes),
            Relisted::Edited {
                removed: 1,
                changed: 1,
                added: 0
            }
        );
        assert_eq!(listed.len(), 5);
        assert!(listed.listed(2, "x://2").is_none(), "removed");
        let shown = given_back(&listed, &["x://0", "x://1", "x://2", "x://3", "x://4"]);
        assert_eq!(
            shown[0].as_ref().unwrap().title.as_deref(),
            Some("new title")
        );
        assert_eq!(shown[1].as_ref(), Some(&first[1]));
        assert_eq!(shown[4].as_ref(), Some(&first[4]));
        assert_eq!(
            listed.relist("s", print.diff(third), &mut mimes),
            Relisted::NOTHING
        );

        // Mostly new: built again whole, and the next re-list is diffed against it.
        let fourth: Vec<Resource> = (0..5).map(|i| exact(&format!("y://{i}"))).collect();
        assert_eq!(
            listed.relist("s", print.diff(fourth.clone()), &mut mimes),
            Relisted::Replaced
        );
        assert_eq!(listed.len(), 5);
        assert_eq!(listed.originals(), 0);
        assert_eq!(*listed.listed(0, "y://0").unwrap().resource(), fourth[0]);
        let mut fifth = fourth;
        fifth.push(exact("y://5"));
        assert!(matches!(
            listed.relist("s", print.diff(fifth), &mut mimes),
            Relisted::Edited { added: 1, .. }
        ));
    }
}
