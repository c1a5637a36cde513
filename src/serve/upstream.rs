//! The servers `serve` publishes from: connected once, listed, held open for reads, and
//! listed again when they say their list changed. One failing upstream costs only its own
//! resources.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::future::join_all;
use rmcp::model::{Resource, ResourceTemplate};

use crate::catalog::Catalogue;
use crate::context::{Expansion, Marks, expansion};
use crate::mcp::log::ServerLog;
use crate::mcp::{
    CacheHints, ConnectOptions, Connection, ListOptions, McpError, ReadOutcome, ServerSpec,
};

/// One upstream as chosen: a definition, or why the definition cannot be used.
#[derive(Debug, Clone)]
pub struct UpstreamDef {
    pub spec: ServerSpec,
    pub error: Option<String>,
}

/// One upstream's latest listing, or why there is none.
#[derive(Debug, Clone, Default)]
struct Listing {
    resources: Arc<Vec<Resource>>,
    /// Its templates, for the set's expansions: listed only when a mark needs them
    /// ([`Upstreams::list_templates`]), again after each re-list; empty when they cannot be.
    templates: Option<Arc<Vec<ResourceTemplate>>>,
    error: Option<String>,
    cache: CacheHints,
}

/// One connected (or failed) upstream.
pub struct Upstream {
    pub name: String,
    pub connection: Option<Connection>,
    pub log: ServerLog,
    listing: Mutex<Listing>,
}

/// Says a warning about an upstream (`serve`'s diagnostics).
pub type Warn = Arc<dyn Fn(&str) + Send + Sync>;

/// Every upstream of one `serve`.
pub struct Upstreams {
    list: Vec<Upstream>,
    cap: usize,
    warn: Warn,
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
    resources: Vec<(String, Arc<Vec<Resource>>)>,
    /// Listed servers whose templates are not listed yet.
    untemplated: Vec<String>,
}

/// A resource's listing and its place in it.
pub type ListedAt<'a> = (&'a Arc<Vec<Resource>>, usize);

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
            self.resources
                .push((e.server.clone(), Arc::new(vec![e.resource.clone()])));
        }
        found
    }

    /// A listed resource by server and URI (the first one, if a server lists a URI twice):
    /// its listing and its place there.
    pub fn index(&self) -> HashMap<(&str, &str), ListedAt<'_>> {
        let mut map = HashMap::new();
        for (server, resources) in &self.resources {
            for (i, r) in resources.iter().enumerate() {
                map.entry((server.as_str(), r.uri.as_str()))
                    .or_insert((resources, i));
            }
        }
        map
    }
}

impl Upstreams {
    /// Connects to and lists every upstream at once; `failed` hears of each upstream that
    /// cannot be connected as soon as that is known (before the others are done), `warn` of
    /// what reads drop later.
    pub async fn connect(
        defs: Vec<UpstreamDef>,
        options: &ConnectOptions,
        cap: usize,
        failed: &(dyn Fn(&str, &str) + Sync),
        warn: Warn,
    ) -> Self {
        // On a terminal, what each upstream is doing until all are listed.
        let progress = crate::progress::Servers::new(
            "serve: connecting",
            defs.iter().map(|d| d.spec.name.clone()),
        );
        let progress = &progress;
        let list = join_all(defs.into_iter().enumerate().map(|(i, def)| async move {
            let log = ServerLog::new(options.log_lines);
            progress.set(i, "connecting");
            let connection = match def.error {
                Some(reason) => Err(McpError::Config { reason }),
                None => Connection::connect(&def.spec, options, log.clone()).await,
            };
            let (connection, listing) = match connection {
                Ok(c) => {
                    progress.set(i, "listing");
                    (Some(c), Listing::default())
                }
                Err(e) => {
                    progress.set(i, "failed");
                    failed(&def.spec.name, &e.to_string());
                    (
                        None,
                        Listing {
                            error: Some(e.to_string()),
                            ..Listing::default()
                        },
                    )
                }
            };
            Upstream {
                name: def.spec.name,
                connection,
                log,
                listing: Mutex::new(listing),
            }
        }))
        .await;
        let upstreams = Upstreams { list, cap, warn };
        let shared = &upstreams;
        join_all((0..upstreams.list.len()).map(|i| async move {
            shared.relist(i).await;
            if shared.list[i].connection.is_some() {
                progress.set(i, "listed");
                let error = shared.list[i]
                    .listing
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .error
                    .clone();
                if let Some(error) = error {
                    failed(&shared.list[i].name, &error);
                }
            }
        }))
        .await;
        upstreams
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

    /// Lists upstream `i` again; a failure replaces its listing with the error.
    pub async fn relist(&self, i: usize) {
        let upstream = &self.list[i];
        let Some(connection) = &upstream.connection else {
            return;
        };
        let mut resources = Vec::new();
        let result = connection
            .list_resources(&ListOptions { cap: self.cap }, |page| {
                resources.extend(page.items)
            })
            .await;
        let listing = match result {
            Ok(outcome) => Listing {
                resources: Arc::new(resources),
                templates: None,
                error: None,
                cache: outcome.cache,
            },
            Err(e) => Listing {
                resources: Arc::default(),
                templates: None,
                error: Some(connection.explain(&e)),
                cache: CacheHints::default(),
            },
        };
        *upstream.listing.lock().unwrap_or_else(|e| e.into_inner()) = listing;
    }

    /// Lists the templates of the upstream named `server` into its listing (none when they
    /// cannot be listed).
    pub async fn list_templates(&self, server: &str) {
        let Some(upstream) = self.position(server).map(|i| &self.list[i]) else {
            return;
        };
        let Some(connection) = &upstream.connection else {
            return;
        };
        let mut templates = Vec::new();
        let _ = connection
            .list_templates(&ListOptions { cap: self.cap }, |page| {
                templates.extend(page.items)
            })
            .await;
        let mut listing = upstream.listing.lock().unwrap_or_else(|e| e.into_inner());
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
            let listing = upstream
                .listing
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            let id = catalogue.server(&upstream.name);
            match listing.error {
                Some(error) => unavailable.push((upstream.name.clone(), error)),
                None => {
                    catalogue.append(id, listing.resources.iter());
                    match &listing.templates {
                        Some(templates) => catalogue.set_templates(id, templates.iter()),
                        None => untemplated.push(upstream.name.clone()),
                    }
                    complete.push(upstream.name.clone());
                    cache.merge(listing.cache);
                }
            }
            resources.push((upstream.name.clone(), listing.resources));
        }
        Listings {
            catalogue,
            complete,
            unavailable,
            cache,
            resources,
            untemplated,
        }
    }

    /// Reads `uri` from the upstream named `server`.
    pub async fn read(&self, server: &str, uri: &str) -> Result<ReadOutcome, String> {
        let upstream = self
            .position(server)
            .map(|i| &self.list[i])
            .ok_or_else(|| format!("no upstream named `{server}`"))?;
        // The one read of `serve` (resources/read, the prompt, the tool, token counts): only
        // the resource's own contents parts are handed on; a dropped one is said.
        let (outcome, dropped) =
            crate::mcp::read::for_agent(upstream.connection.as_ref(), uri).await?;
        for other in &dropped {
            (self.warn)(&format!(
                "server `{server}`: {}",
                crate::mcp::read::dropped_part(uri, other)
            ));
        }
        Ok(outcome)
    }
}
