//! The servers `serve` publishes from: each followed by its own [`Supervisor`] (connected,
//! listed, held open for reads, listed again when it says its list changed; an HTTP upstream
//! that went away is connected to again, and its new connection serves the reads). One
//! failing upstream costs only its own resources, and only while it is gone.

use crate::sync::Locked;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::{Resource, ResourceTemplate};
use tokio::sync::mpsc;

use crate::catalog::item::MimeTable;
use crate::catalog::{Catalogue, ItemId, ServerId, Snapshot};

use super::exposed::{Inputs, Listed};
use super::listing::{Builder, ListedResources, Origin, Relisted};
use crate::context::{Candidate, Expansion, Marks, expansion};
use crate::mcp::log::ServerLog;
use crate::mcp::supervisor::{Event, Supervisor};
use crate::mcp::{CacheHints, ConnectOptions, Connection, ListOptions, ReadOutcome, ServerSpec};

/// One upstream as chosen: a definition, or why the definition cannot be used.
#[derive(Debug, Clone)]
pub struct UpstreamDef {
    pub spec: ServerSpec,
    pub error: Option<String>,
}

/// One upstream's latest listing, or why there is none.
#[derive(Debug, Clone, Default)]
struct Listing {
    resources: ListedResources,
    /// Its templates, for the set's expansions: listed only when a mark needs them
    /// ([`Upstreams::list_templates`]), again after each re-list; empty when they cannot be.
    templates: Option<Arc<Vec<ResourceTemplate>>>,
    error: Option<String>,
    cache: CacheHints,
}

/// One connected (or failed) upstream.
pub struct Upstream {
    pub name: String,
    /// Its supervisor's latest connection while it lasts: replaced when it reconnects, gone
    /// when it ended (reads and subscriptions go to the connection of now).
    connection: Mutex<Option<Arc<Connection>>>,
    listing: Mutex<Listing>,
    /// The pages of the current connection's first listing so far, made items as they come
    /// (the resources themselves are not kept).
    pages: Mutex<Option<Builder>>,
}

impl Upstream {
    /// Its connection now, if it is connected.
    pub fn connection(&self) -> Option<Arc<Connection>> {
        self.connection.locked().clone()
    }
}

/// Says a warning about an upstream (`serve`'s diagnostics).
pub type WarningSink = Arc<dyn Fn(&str) + Send + Sync>;

/// What an upstream's supervisor told, and which upstream it is.
pub type Told = (usize, Event);

/// Every upstream of one `serve`.
pub struct Upstreams {
    list: Vec<Upstream>,
    cap: usize,
    warn: WarningSink,
    /// The MIME table every listing numbers types with (see [`Catalogue::append_sharing`]).
    mimes: Mutex<MimeTable>,
    /// What the supervisors tell after the first listings, for the upkeep to take once.
    told: Mutex<Option<mpsc::UnboundedReceiver<Told>>>,
    /// The supervisors, ended with `serve`.
    _tasks: Vec<AbortOnDrop>,
}

/// A task that ends when this is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What applying a told event changed.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// Nothing published can have changed.
    Nothing,
    /// The upstream's listing is new (re-listed, or gone with a reason).
    Listing,
    /// This resource of the upstream changed.
    Updated(String),
    /// The upstream went away, or is still away for another reason than was said: its
    /// listing is this reason now.
    Unavailable(String),
    /// The upstream, unavailable, is listed again on a new connection.
    Back,
}

/// What is said of an upstream before the first set is published, as soon as it is known
/// (a client may end `serve` right after its first answer).
#[derive(Debug, PartialEq, Eq)]
pub enum Notice<'a> {
    /// It cannot be used now (it never connected or listed, or it went away since), and why;
    /// said again only when the reason changes.
    Unavailable(&'a str),
    /// It went away and is listed again, on a new connection.
    Back,
}

/// A moment's view of every listing, to resolve against.
pub struct Listings {
    pub catalogue: Catalogue,
    /// Servers whose listing completed (marks on the others are not "missing").
    pub complete: Vec<String>,
    /// Servers without a listing, and why.
    pub unavailable: Vec<(String, String)>,
    /// The listings' cache hints, merged (the shortest `ttlMs`, `private` if any is).
    pub cache: CacheHints,
    /// Each upstream's listed resources (the catalogue shares their items).
    resources: Vec<(String, ListedResources)>,
    /// The set's expansions, as they are published, by server and URI.
    expanded: HashMap<(String, String), Arc<Resource>>,
    /// Listed servers whose templates are not listed yet.
    untemplated: Vec<String>,
}

impl Listing {
    fn failed(reason: String) -> Listing {
        Listing {
            error: Some(reason),
            ..Listing::default()
        }
    }
}

impl Listings {
    /// The listed servers whose templates `marks` needs and that are not listed yet
    /// ([`Upstreams::list_templates`] them, then take the listings again).
    pub fn templates_needed(&self, marks: &Marks) -> Vec<String> {
        expansion::servers_needing_templates(&self.catalogue, marks, &self.untemplated)
    }

    /// Adds the exact marks of `marks` that a template of their server produces as that
    /// server's resources ([`expansion`]), to resolve and to read like listed ones.
    pub fn add_expansions(&mut self, marks: &Marks) -> Vec<Expansion> {
        let found = expansion::expansions(&self.catalogue, marks);
        expansion::add(&mut self.catalogue, &found);
        for e in &found {
            self.expanded
                .entry((e.server.clone(), e.resource.uri.clone()))
                .or_insert_with(|| Arc::new(e.resource.clone()));
        }
        found
    }

    /// Each upstream's listing as shown, by server id: what a rank order of this merged
    /// catalogue is made from (`None` for an upstream not shown).
    pub fn origins(&self) -> Vec<Option<Origin>> {
        self.resources.iter().map(|(_, l)| l.origin()).collect()
    }

    /// The ids of this merged catalogue touched since a rank order was made from `origins`
    /// (from each upstream's own record: the merged catalogue is new each refresh); `None`
    /// when an upstream's listing is another one now, was or is no longer shown, or its
    /// record does not reach back that far.
    pub fn touched_since(&self, origins: &[Option<Origin>]) -> Option<Vec<ItemId>> {
        if origins.len() != self.resources.len() {
            return None;
        }
        let mut touched = Vec::new();
        for (server, ((_, listed), origin)) in self.resources.iter().zip(origins).enumerate() {
            match (origin, listed.origin().is_some()) {
                (None, false) => {}
                (Some(origin), true) => {
                    let server = server as ServerId;
                    let ids = listed.touched_since(origin)?.into_iter();
                    touched.extend(ids.map(|index| ItemId { server, index }));
                }
                _ => return None,
            }
        }
        Some(touched)
    }

    /// What a publication of `candidates` (of this merged catalogue, whose listed items
    /// `items` holds) is made from ([`super::exposed::publish`]).
    pub fn publishing<'a>(
        &'a self,
        candidates: &'a [Candidate<'a>],
        items: Snapshot,
    ) -> Inputs<'a, impl Fn(&Candidate) -> Option<Listed> + 'a, impl Fn(&Candidate) -> bool + 'a>
    {
        Inputs {
            candidates,
            raw: move |c: &Candidate| self.listed(c),
            shared: move |c: &Candidate| self.listed_elsewhere(c),
            items,
            mimes: self.mimes(),
        }
    }

    /// The MIME table every listing's items number their types with: the newest (they are
    /// all the one shared table, taken as it was at each listing's last change).
    fn mimes(&self) -> Arc<MimeTable> {
        self.resources
            .iter()
            .map(|(_, listed)| listed.mimes())
            .max_by_key(|mimes| mimes.len())
            .cloned()
            .unwrap_or_default()
    }

    /// Whether a server other than the candidate's lists its URI too (or has it as an
    /// expansion).
    pub fn listed_elsewhere(&self, c: &Candidate) -> bool {
        (0..self.catalogue.server_count() as ServerId)
            .any(|s| s != c.id.server && self.catalogue.find(s, c.uri()).is_some())
    }

    /// A candidate's resource as its server listed it (the first one, if a server lists a
    /// URI twice): the catalogue shares each listing's ids, so it is where the candidate's
    /// id says, checked by URI; an expansion is published as it was made.
    pub fn listed(&self, c: &Candidate) -> Option<Listed> {
        // Server ids are the upstreams' places ([`Upstreams::listings`]).
        let (_, listed) = self
            .resources
            .get(c.id.server as usize)
            .filter(|(server, _)| server == c.server)?;
        if let Some(found) = listed.listed_as(c.id.index, c.item) {
            return Some(found);
        }
        let resource = self
            .expanded
            .get(&(c.server.to_string(), c.uri().to_string()))?;
        let item = self.catalogue.item_ref(c.id)?;
        (item.get().uri() == c.uri()).then(|| Listed::original(item, resource.clone()))
    }
}

impl Upstreams {
    /// Connects to and lists every upstream at once, each through its own
    /// [`Supervisor`]; `early` hears of each upstream that cannot be connected or listed, or
    /// that goes away or comes back while others are still listing, as soon as that is
    /// known; `warn` of what reads drop later.
    pub async fn connect(
        defs: Vec<UpstreamDef>,
        options: &ConnectOptions,
        cap: usize,
        early: &(dyn Fn(&str, Notice<'_>) + Sync),
        warn: WarningSink,
    ) -> Self {
        // On a terminal, what each upstream is doing until all are listed.
        let progress = crate::progress::Servers::new(
            "serve: connecting",
            defs.iter().map(|d| d.spec.name.clone()),
        );
        let (tx, mut told) = mpsc::unbounded_channel();
        let mut list = Vec::new();
        let mut tasks = Vec::new();
        // Upstreams whose first listing (or failure) is still to come.
        let mut pending = Vec::new();
        for (i, def) in defs.into_iter().enumerate() {
            let mut listing = Listing::default();
            match def.error {
                Some(reason) => {
                    progress.set(i, "failed");
                    early(&def.spec.name, Notice::Unavailable(&reason));
                    listing.error = Some(reason);
                    pending.push(false);
                }
                None => {
                    progress.set(i, "connecting");
                    pending.push(true);
                    let supervisor = Supervisor {
                        spec: def.spec.clone(),
                        options: options.clone(),
                        log: ServerLog::new(options.log_lines),
                        list: ListOptions { cap },
                        templates: false,
                        // HTTP comes back after it went away; stdio stays failed.
                        retry: true,
                        shown: None,
                    };
                    let tx = tx.clone();
                    tasks.push(AbortOnDrop(tokio::spawn(supervisor.run(
                        move |_, event| {
                            let _ = tx.send((i, event));
                        },
                    ))));
                }
            }
            list.push(Upstream {
                name: def.spec.name,
                connection: Mutex::new(None),
                listing: Mutex::new(listing),
                pages: Mutex::new(None),
            });
        }
        drop(tx);
        let upstreams = Upstreams {
            list,
            cap,
            warn,
            mimes: Mutex::default(),
            told: Mutex::new(None),
            _tasks: tasks,
        };
        // The first listings, page by page; anything told meanwhile is applied as it comes
        // (nothing is published yet: an update has no client to tell), and an upstream
        // unavailable or back is said as it will be once published.
        while pending.contains(&true) {
            let Some((i, event)) = told.recv().await else {
                break;
            };
            if pending[i] {
                match &event {
                    // A server without resources is listed as it is: empty.
                    Event::Connected(c) if c.has_resources() => progress.set(i, "listing"),
                    Event::Connected(_) | Event::Listed(_) => {
                        progress.set(i, "listed");
                        pending[i] = false;
                    }
                    Event::Ended { .. } => {
                        progress.set(i, "failed");
                        pending[i] = false;
                    }
                    _ => {}
                }
            }
            match upstreams.apply(i, event) {
                Applied::Unavailable(reason) => {
                    early(&upstreams.list[i].name, Notice::Unavailable(&reason));
                }
                Applied::Back => early(&upstreams.list[i].name, Notice::Back),
                _ => {}
            }
        }
        *upstreams.told.locked() = Some(told);
        upstreams
    }

    /// Upstreams already listed, without connections (a read fails; nothing is followed):
    /// what `serve` does with listings and their changes, for tests and benches.
    #[doc(hidden)]
    pub fn already_listed(listings: Vec<(String, Vec<Resource>)>) -> Upstreams {
        let mut mimes = MimeTable::default();
        let list = listings
            .into_iter()
            .map(|(name, resources)| Upstream {
                listing: Mutex::new(Listing {
                    resources: Builder::build(&name, resources, &mut mimes),
                    ..Listing::default()
                }),
                name,
                connection: Mutex::new(None),
                pages: Mutex::new(None),
            })
            .collect();
        Upstreams {
            list,
            cap: usize::MAX,
            warn: Arc::new(|_| {}),
            mimes: Mutex::new(mimes),
            told: Mutex::new(None),
            _tasks: Vec::new(),
        }
    }

    /// Gives the upstream named `server` these templates as if it had listed them (with
    /// [`Upstreams::listed`], for tests and benches of expansions).
    #[doc(hidden)]
    pub fn set_templates(&self, server: &str, templates: Vec<ResourceTemplate>) {
        if let Some(i) = self.position(server) {
            let mut listing = self.list[i].listing.locked();
            listing.templates = Some(Arc::new(templates));
        }
    }

    /// What the supervisors tell from now on (`None` once taken).
    pub fn take_told(&self) -> Option<mpsc::UnboundedReceiver<Told>> {
        self.told.locked().take()
    }

    /// Applies what upstream `i`'s supervisor told: a connection's first listing (page by
    /// page) replaces its listing, a re-list's change is applied to it, and its connection is
    /// the one reads go to. A failed re-list makes its resources unavailable (not silently
    /// stale) until a re-list works; its end replaces the listing with the reason until a new
    /// connection lists it again.
    pub fn apply(&self, i: usize, event: Event) -> Applied {
        let upstream = &self.list[i];
        match event {
            Event::Connected(connection) => {
                let empty = !connection.has_resources();
                *upstream.connection.locked() = Some(connection);
                *upstream.pages.locked() = None;
                // Nothing to list: listed as it is, empty.
                match empty {
                    true => self.listed(i, Builder::new(&upstream.name), CacheHints::default()),
                    false => Applied::Nothing,
                }
            }
            Event::Page(page) => {
                upstream
                    .pages
                    .locked()
                    .get_or_insert_with(|| Builder::new(&upstream.name))
                    .page(page.items, &mut self.mimes());
                Applied::Nothing
            }
            Event::Listed(outcome) => {
                let pages = upstream.pages.locked().take();
                let pages = pages.unwrap_or_else(|| Builder::new(&upstream.name));
                self.listed(i, pages, outcome.cache)
            }
            Event::Relisted { change, outcome } => {
                let mut listing = upstream.listing.locked();
                // Applied as what changed, to the last listing (kept through a failed re-list).
                let relisted = listing
                    .resources
                    .relist(&upstream.name, change, &mut self.mimes());
                let same = listing.error.is_none()
                    && listing.cache == outcome.cache
                    && listing.templates.is_none()
                    && relisted == Relisted::NOTHING;
                listing.error = None;
                listing.cache = outcome.cache;
                // Listed again when a mark needs them (they may have changed too).
                listing.templates = None;
                if same {
                    Applied::Nothing
                } else {
                    Applied::Listing
                }
            }
            Event::RelistFailed(reason) => {
                // Unavailable until a re-list works; its resources stay for the next one's
                // change to be applied to (it is diffed against this listing).
                let mut listing = upstream.listing.locked();
                listing.error = Some(reason.why);
                listing.templates = None;
                Applied::Listing
            }
            Event::Ended { reason, .. } => {
                *upstream.connection.locked() = None;
                *upstream.pages.locked() = None;
                let mut listing = upstream.listing.locked();
                // A retry that fails as the last one did changes nothing published.
                if listing.error.as_ref() == Some(&reason.why) {
                    return Applied::Nothing;
                }
                *listing = Listing::failed(reason.why.clone());
                Applied::Unavailable(reason.why)
            }
            Event::Updated(uri) => Applied::Updated(uri),
            Event::Templates(_) => Applied::Nothing,
        }
    }

    /// A connection's first listing is complete: it replaces the upstream's listing.
    fn listed(&self, i: usize, pages: Builder, cache: CacheHints) -> Applied {
        let listing = Listing {
            resources: pages.finish(),
            cache,
            ..Listing::default()
        };
        let was = std::mem::replace(&mut *self.list[i].listing.locked(), listing);
        match was.error {
            Some(_) => Applied::Back,
            None => Applied::Listing,
        }
    }

    /// The shared MIME table (see [`Upstreams::mimes`](field@Upstreams::mimes)).
    fn mimes(&self) -> std::sync::MutexGuard<'_, MimeTable> {
        self.mimes.locked()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Upstream> {
        self.list.iter()
    }

    /// The name of upstream `i`.
    pub fn name(&self, i: usize) -> &str {
        &self.list[i].name
    }

    /// The position of the upstream named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.list.iter().position(|u| u.name == name)
    }

    /// Lists the templates of the upstream named `server` into its listing (none when they
    /// cannot be listed).
    pub async fn list_templates(&self, server: &str) {
        let Some(upstream) = self.position(server).map(|i| &self.list[i]) else {
            return;
        };
        let Some(connection) = upstream.connection() else {
            return;
        };
        let mut templates = Vec::new();
        let _ = connection
            .list_templates(&ListOptions { cap: self.cap }, |page| {
                templates.extend(page.items)
            })
            .await;
        let mut listing = upstream.listing.locked();
        listing.templates = Some(Arc::new(templates));
    }

    /// Every listing as it is now.
    pub fn listings(&self) -> Listings {
        let mut catalogue = Catalogue::new();
        let mut complete = Vec::new();
        let mut unavailable = Vec::new();
        let mut resources = Vec::new();
        let mut cache = CacheHints::default();
        let mut untemplated = Vec::new();
        for upstream in &self.list {
            let listing = upstream.listing.locked().clone();
            let id = catalogue.server(&upstream.name);
            // An unavailable upstream's last listing is kept for its next re-list, not shown.
            let shown = match listing.error {
                Some(_) => ListedResources::default(),
                None => listing.resources.clone(),
            };
            match listing.error {
                Some(error) => unavailable.push((upstream.name.clone(), error)),
                None => {
                    // Shared, not copied: each refresh's catalogue costs next to nothing.
                    if let Some(listed) = listing.resources.catalogue() {
                        catalogue.adopt(id, listed, 0);
                    }
                    match &listing.templates {
                        Some(templates) => catalogue.set_templates(id, templates.iter()),
                        None => untemplated.push(upstream.name.clone()),
                    }
                    complete.push(upstream.name.clone());
                    cache.merge(listing.cache);
                }
            }
            resources.push((upstream.name.clone(), shown));
        }
        Listings {
            catalogue,
            complete,
            unavailable,
            cache,
            resources,
            expanded: HashMap::new(),
            untemplated,
        }
    }

    /// Says `text` where `serve` says its diagnostics.
    pub fn warn(&self, text: &str) {
        (self.warn)(text)
    }

    /// Reads `uri` from the upstream named `server`.
    pub async fn read(&self, server: &str, uri: &str) -> Result<ReadOutcome, String> {
        let upstream = self
            .position(server)
            .map(|i| &self.list[i])
            .ok_or_else(|| format!("no upstream named `{server}`"))?;
        // The one read of `serve` (resources/read, the prompt, the tool, token counts): only
        // the resource's own contents parts are handed on; a dropped one is said.
        let connection = upstream.connection();
        let read = crate::mcp::read::for_agent(connection.as_deref(), uri).await?;
        for other in &read.dropped {
            (self.warn)(&format!(
                "server `{server}`: {}",
                crate::mcp::read::dropped_part(uri, other)
            ));
        }
        Ok(read.outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ItemId;
    use crate::mcp::{Fingerprint, ListOutcome, ListingChange};

    fn outcome() -> ListOutcome {
        ListOutcome {
            pages: 1,
            count: 0,
            capped: false,
            warnings: 0,
            cache: Default::default(),
        }
    }

    fn uris(upstreams: &Upstreams) -> Vec<String> {
        let mut listings = upstreams.listings();
        let up = listings.catalogue.server("up");
        (0..listings.catalogue.server_end(up))
            .filter_map(|index| listings.catalogue.get(ItemId { server: up, index }))
            .map(|item| item.uri().to_string())
            .collect()
    }

    /// A re-list that fails leaves the upstream unavailable; the next one's change (diffed by
    /// the supervisor against the last listing that worked) applies to that listing.
    #[test]
    fn a_failed_relist_is_unavailable_and_the_next_change_applies_to_the_last_listing() {
        let first: Vec<Resource> = ["x://a", "x://b"].map(|u| Resource::new(u, "r")).into();
        let upstreams = Upstreams::already_listed(vec![("up".into(), first.clone())]);
        let mut last = Fingerprint::default();
        last.reset(&first);
        upstreams.apply(
            0,
            Event::RelistFailed(crate::mcp::Failure::new(
                crate::mcp::FailureKind::Closed,
                "it broke",
            )),
        );
        let listings = upstreams.listings();
        assert_eq!(
            listings.unavailable,
            [("up".to_string(), "it broke".to_string())]
        );
        assert!(uris(&upstreams).is_empty(), "nothing of it shown meanwhile");
        let mut second = first;
        second.push(Resource::new("x://c", "r"));
        let change = last.diff(second);
        assert!(matches!(&change, ListingChange::Edited(e) if e.added.len() == 1));
        upstreams.apply(
            0,
            Event::Relisted {
                change,
                outcome: outcome(),
            },
        );
        assert!(upstreams.listings().unavailable.is_empty());
        assert_eq!(uris(&upstreams), ["x://a", "x://b", "x://c"]);
    }
}
