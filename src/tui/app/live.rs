//! A live catalogue: a server's list change is applied in place, as the entries it removed,
//! changed and appended when most of its listing stayed, else by replacing its listing (the
//! tree keeps its open folders, the cursor its node, the search its matches, marks stay),
//! and an update of the resource the contents pane shows reads it again where it is scrolled
//! to.

use rmcp::model::Resource;

use super::{App, Effect, Selection};
use crate::catalog::store::ReplaceReport;
use crate::catalog::{ItemId, ServerId, UriTree};
use crate::mcp::log::LogSource;
use crate::mcp::{FailureKind, ListingEdit};
use crate::sanitize;

/// URIs named in the log entry of one list change, at most.
const LOGGED_URIS: usize = 10;

impl App {
    /// `l` (or Enter) on the row of a server that needs a sign-in: the OAuth flow runs in the
    /// background; the server connects when it is done.
    pub(super) fn sign_in_selected(&mut self) -> Option<Vec<Effect>> {
        let Selection::Folder {
            label,
            server: true,
            ..
        } = self.selection()
        else {
            return None;
        };
        let index = self.servers.iter().position(|s| s.name == label)?;
        let needs = matches!(&self.servers[index].status,
            super::Status::Failed(f) if f.kind == FailureKind::NeedsLogin);
        if !needs {
            return None;
        }
        self.info = Some(sanitize::line(
            &format!("signing in to {label}: a browser opens (the URL is in the log, L)…"),
            300,
        ));
        Some(vec![Effect::SignIn {
            server: index as ServerId,
        }])
    }

    /// A line from the sign-in: shown, and kept in the server's log (the URL to open).
    pub(super) fn on_sign_in_note(&mut self, server: ServerId, line: &str) {
        if let Some(log) = self.logs.get_mut(server as usize) {
            log.push(LogSource::Note, line);
        }
        self.info = Some(sanitize::line(line, 500));
    }

    /// The sign-in ended: connect again, or say why not.
    pub(super) fn on_signed_in(
        &mut self,
        server: ServerId,
        result: Result<(), String>,
    ) -> Vec<Effect> {
        let Some(state) = self.servers.get_mut(server as usize) else {
            return Vec::new();
        };
        let name = state.name.clone();
        match result {
            Err(why) => {
                self.info = Some(sanitize::line(
                    &format!("sign-in to {name} failed: {why}"),
                    500,
                ));
                Vec::new()
            }
            Ok(()) => {
                self.replace_listing(server, &[]);
                let state = &mut self.servers[server as usize];
                state.generation += 1;
                state.status = super::Status::Connecting;
                state.changes = None;
                self.info = Some(sanitize::line(
                    &format!("signed in to {name}; connecting…"),
                    300,
                ));
                vec![Effect::Connect {
                    server,
                    generation: self.servers[server as usize].generation,
                    relist: false,
                }]
            }
        }
    }

    /// `R` on a server row: connect again (a failed or crashed server comes back; a working
    /// one gets a new process and is listed afresh). The listing shown stays, folders open
    /// and cursor where they are, until the new listing replaces it in place; the resource
    /// in the contents pane is read again (and subscribed to) on the new connection.
    pub(super) fn reconnect_selected(&mut self) -> Vec<Effect> {
        let Selection::Folder {
            label,
            server: true,
            ..
        } = self.selection()
        else {
            self.info = Some("R reconnects a server: move to its row".into());
            return Vec::new();
        };
        let Some(index) = self.servers.iter().position(|s| s.name == label) else {
            return Vec::new();
        };
        let server = index as ServerId;
        // Held back for approval: ask, never start it unasked.
        if self.is_held(server) {
            self.ask_approval();
            return Vec::new();
        }
        let state = &mut self.servers[index];
        state.generation += 1;
        state.status = super::Status::Connecting;
        state.changes = None;
        state.detail = None;
        state.reconnecting = true;
        self.info = Some(sanitize::line(&format!("reconnecting to {label}…"), 200));
        let generation = state.generation;
        self.info_holds(super::InfoHolds::Reconnecting(server));
        vec![Effect::Connect {
            server,
            generation,
            relist: true,
        }]
    }

    /// A reconnected server is listed: what was read from the old connection is read again
    /// when shown, and the resource in the contents pane, if it is one of that server's, at
    /// once (the new connection subscribes to it again).
    pub(super) fn after_reconnect(&mut self, server: ServerId) -> Vec<Effect> {
        let name = self.catalogue.server_name(server).to_string();
        let count = self.catalogue.server_len(server);
        self.info = Some(sanitize::line(
            &format!(
                "reconnected to {name} · {} resource{}",
                crate::tui::text::thousands(count),
                if count == 1 { "" } else { "s" }
            ),
            200,
        ));
        self.contents.forget_server(server);
        if self.contents.item.is_some_and(|id| id.server == server) {
            self.contents.item = None;
            return self.sync_contents();
        }
        Vec::new()
    }

    /// The server was listed again after announcing a change.
    pub(super) fn on_relisted(&mut self, server: ServerId, resources: &[Resource]) -> Vec<Effect> {
        let report = self.replace_listing(server, resources);
        if report.appeared.is_empty() && report.disappeared.is_empty() {
            return Vec::new();
        }
        let mut fx = self.after_relist(server, &report);
        fx.extend(self.add_pinned_expansions(server));
        fx
    }

    /// Replaces a server's listing, keeping the browser where it was: the tree's open folders
    /// and cursor node, the list's order, the search's matches, the contents cache, all by
    /// URI (a server's ids change with its listing).
    fn replace_listing(&mut self, server: ServerId, resources: &[Resource]) -> ReplaceReport {
        // Where everything is, by URI and path, before the server's ids change.
        let old_uris: Vec<Option<String>> = (0..self.catalogue.server_end(server))
            .map(|index| {
                let id = ItemId { server, index };
                self.catalogue.get(id).map(|item| item.uri().to_string())
            })
            .collect();
        let expanded = self.browse.tree.expanded_paths();
        let cursor_path = self.browse.tree.row_path(self.browse.tree_cursor.index);

        let report = self.catalogue.replace(server, resources);
        let remap = |id: ItemId| -> Option<ItemId> {
            if id.server != server {
                return Some(id);
            }
            let uri = old_uris.get(id.index as usize)?.as_ref()?;
            self.catalogue.find(server, uri)
        };

        // The tree, rebuilt with its folders open as they were.
        let mut tree = UriTree::build(&self.catalogue);
        tree.restore_expanded(&expanded);
        // The list: the old order where it still holds, newcomers at the end until re-sorted.
        let mut list: Vec<ItemId> = self
            .browse
            .list
            .iter()
            .filter_map(|&id| remap(id))
            .collect();
        let appeared_ids: Vec<ItemId> = report
            .appeared
            .iter()
            .filter_map(|uri| self.catalogue.find(server, uri))
            .collect();
        list.extend(&appeared_ids);
        // The search's matches so far, then a new search that sees the newcomers.
        let matched = self
            .search
            .matched
            .as_ref()
            .map(|ids| ids.iter().filter_map(|&id| remap(id)).collect::<Vec<_>>());
        let contents_item = self.contents.item.and_then(remap);
        self.contents.remap(&remap);
        tree.set_filter(matched.as_deref());
        self.browse.tree = tree;
        self.browse.list = list;
        self.browse.list_holds_removed = false;
        self.browse.list_stale = true;
        self.browse.sort.cancel(); // a sort in flight has the old ids
        self.browse.tree_anchor = cursor_path.and_then(|p| self.browse.tree.node_of_path(&p));
        self.contents.item = contents_item;
        self.search.matched = matched;
        self.reanchor();
        report
    }

    /// The server was listed again and most of its listing stayed: applied in proportion to
    /// what changed. Removed resources leave the catalogue (their ids stay taken, so no other
    /// id moves), the tree (with the folders they leave empty), the list, the search's
    /// matches and the contents pane; changed ones are replaced at their ids; appended ones go
    /// in as a page does. Open folders, the cursor's node and every other id stay; marks are
    /// the set's and stay too (a mark on a removed resource is shown as missing).
    pub(super) fn on_edited(&mut self, server: ServerId, edit: &ListingEdit) -> Vec<Effect> {
        let report = self.catalogue.apply(server, edit);
        self.take_out(server, &report.removed);
        // Pinned expansions the server lists now: its entries take their place.
        let superseded: Vec<(ItemId, String)> = report
            .superseded
            .iter()
            .map(|&id| (id, String::new()))
            .collect();
        self.take_out(server, &superseded);
        let mut fx = Vec::new();
        let mimes = self.catalogue.mimes();
        let end = self.catalogue.server_end(server);
        for index in report.added_from..end {
            let id = ItemId { server, index };
            if let Some(item) = self.catalogue.get(id) {
                let directory = mimes.get(item.mime_id()) == Some("inode/directory");
                self.browse.tree.insert(id, item.uri(), directory);
            }
            self.browse.list.push(id);
        }
        if let Some(log) = self.logs.get_mut(server as usize) {
            for d in report.duplicates.iter().take(LOGGED_URIS) {
                log.warn(&format!(
                    "re-listing: {} was already listed by this server (the first entry is kept)",
                    d.uri
                ));
            }
        }
        let appeared: Vec<String> = (report.added_from..end)
            .filter_map(|index| self.catalogue.get(ItemId { server, index }))
            .map(|item| item.uri().to_string())
            .collect();
        let disappeared: Vec<String> = report.removed.iter().map(|(_, uri)| uri.clone()).collect();
        let updated = report.changed.len();
        if appeared.is_empty() && disappeared.is_empty() && updated == 0 {
            return fx; // only URIs listed already
        }
        self.note_list_change(server, &appeared, &disappeared, updated);
        // Names, sizes or annotations changed, or resources came or went: the list's order is
        // out of date (the removed are out of it already), and a search sees what changed (a
        // removal or change gives the catalogue a new epoch, so it looks at every item; appends
        // only, at the new ones).
        self.browse.list_stale = true;
        if !self.search.query.is_empty()
            && let Some(generation) = self.search.job.request()
        {
            fx.push(self.search_request(generation));
        }
        self.reanchor();
        self.clamp();
        fx.extend(self.ensure_sorted());
        fx.extend(self.request_resolve());
        if !disappeared.is_empty() {
            // A pinned URI the server stopped listing may be a template's expansion now.
            fx.extend(self.add_pinned_expansions(server));
        }
        fx
    }

    /// Takes removed resources out of everything that shows them, in proportion to them: the
    /// tree (a leaf and the folders it leaves empty), the list and the search's matches (one
    /// pass each, only when something went), the contents pane and its cache, the counts.
    pub(super) fn take_out(&mut self, server: ServerId, removed: &[(ItemId, String)]) {
        if removed.is_empty() {
            return;
        }
        for &(id, _) in removed {
            self.browse.tree.remove(id);
            self.contents.forget(id);
        }
        let gone: std::collections::HashSet<ItemId> = removed.iter().map(|&(id, _)| id).collect();
        if self.browse.view == super::View::List {
            self.browse.list.retain(|id| !gone.contains(id));
        } else {
            // Not shown: taken out when it is, in one pass for every removal until then.
            self.browse.list_holds_removed = true;
        }
        if let Some(matched) = &mut self.search.matched {
            matched.retain(|id| !gone.contains(id));
        }
        let name = self.catalogue.server_name(server).to_string();
        for (_, uri) in removed {
            self.context.counts.measures.remove(&name, uri);
        }
        if self.contents.item.is_some_and(|id| gone.contains(&id)) {
            // The pane follows the cursor to what is under it now.
            self.contents.item = None;
        }
    }

    /// What a list change does beyond the listing: the header's count, the log, and the
    /// search, the sort and the agent view asked for again (a running search has old ids).
    fn after_relist(&mut self, server: ServerId, report: &ReplaceReport) -> Vec<Effect> {
        self.note_list_change(server, &report.appeared, &report.disappeared, 0);
        let mut fx = Vec::new();
        if !self.search.query.is_empty() {
            fx.push(self.search_effect());
        }
        fx.extend(self.ensure_sorted());
        fx.extend(self.request_resolve());
        fx.extend(self.sync_contents());
        fx
    }

    /// A list change in the header (what appeared and disappeared, the count) and the log
    /// (the first few URIs, and how many entries changed in place).
    fn note_list_change(
        &mut self,
        server: ServerId,
        appeared: &[String],
        disappeared: &[String],
        changed: usize,
    ) {
        if let Some(state) = self.servers.get_mut(server as usize) {
            if !appeared.is_empty() || !disappeared.is_empty() {
                state.changes = Some((appeared.len(), disappeared.len()));
            }
            if let super::Status::Ready { count, .. } = &mut state.status {
                *count = self.catalogue.server_len(server);
            }
        }
        if let Some(log) = self.logs.get_mut(server as usize) {
            let named: Vec<String> = appeared
                .iter()
                .map(|u| format!("+{u}"))
                .chain(disappeared.iter().map(|u| format!("-{u}")))
                .take(LOGGED_URIS)
                .collect();
            let more = (appeared.len() + disappeared.len()).saturating_sub(named.len());
            log.push(
                LogSource::Notification,
                &format!(
                    "list changed: +{} -{}{}: {}{}",
                    appeared.len(),
                    disappeared.len(),
                    if changed > 0 {
                        format!(", {changed} changed in place")
                    } else {
                        String::new()
                    },
                    named.join(" "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ),
            );
        }
    }

    /// The server announced that `uri` changed: the contents pane reads it again if it shows
    /// it (keeping the scroll), and the agent view counts it again.
    pub(super) fn on_updated(&mut self, server: ServerId, uri: &str) -> Vec<Effect> {
        let Some(id) = self.catalogue.find(server, uri) else {
            return Vec::new();
        };
        let name = self.catalogue.server_name(server).to_string();
        self.context.counts.measures.remove(&name, uri);
        let mut fx = self.request_resolve();
        if self.contents.item == Some(id) {
            // The old document stays shown (and scrolled) until the new one replaces it.
            self.contents.updated = Some(id);
            fx.push(Effect::Read {
                generation: self.contents.start_read(),
                item: id,
                uri: uri.to_string(),
            });
            self.info = Some(sanitize::line(&format!("updated: {uri}"), 300));
            self.info_holds(super::InfoHolds::Shown(id));
        } else {
            self.contents.forget(id);
        }
        fx
    }
}
