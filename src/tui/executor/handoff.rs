//! The browser's hand-off effects: the agent view's host delivery, the install overlay's
//! plan and install, and the redelivery after a mark. All of them read through the
//! browser's own connections ([`crate::tui::reader`]), so none starts a server again.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Executor, off_the_loop};
use crate::handoff::make;
use crate::hosts::{Host, Places, Scope};
use crate::tui::agent::ResolveRequest;
use crate::tui::app::{InstallPlan, Msg};
use crate::tui::reader::{Live, fetch_skills, read_resolution};

impl Executor {
    /// Reads what the request's resolution includes and makes `host`'s session-start delivery
    /// of it ([`crate::tui::agent::host_preview`], as `mcpick preview --host` does).
    pub(super) fn host_preview(&mut self, host: Host, set: PathBuf, request: ResolveRequest) {
        let connections = self.connections.clone();
        let tx = self.tx.clone();
        let task = tokio::spawn(async move {
            // One list of candidates (a row per resource) for the reads and the delivery.
            let (preview, texts, cands, order) = read_resolution(&request, &connections).await;
            // Its skills as `install` hands them on (as skills, where the host reads a skills
            // folder), so the view shows what `preview --host` does.
            let skills = match crate::handoff::profiles::of(host).skills {
                Some(_) => Some(fetch_skills(&request, &preview, &cands, &connections, &set).await),
                None => None,
            };
            let result = off_the_loop(|| {
                crate::tui::agent::host_preview(
                    host,
                    &set,
                    &request,
                    order,
                    crate::handoff::Contents {
                        preview: &preview,
                        candidates: &cands,
                        texts: &texts,
                        skills: skills.as_deref(),
                    },
                )
            });
            let _ = tx.send(Msg::HostPreviewed { host, result });
        });
        self.host_preview.start(task);
    }

    /// Writes the set's recorded deliveries again through the browser's own connections and
    /// catalogue ([`crate::tui::reader::redeliver`]): no second mcpick, no server listed again.
    pub(super) fn redeliver(&mut self, set: PathBuf, request: ResolveRequest) {
        let connections = self.connections.clone();
        let one_at_a_time = self.redelivering.clone();
        let task = tokio::spawn(async move {
            let _turn = one_at_a_time.lock().await;
            crate::tui::reader::redeliver(&request, &connections, &set).await;
        });
        self.tasks.push(task.abort_handle());
    }

    /// Plans an install for the hand-off overlay ([`crate::handoff::plan`], as
    /// `install --dry-run`).
    pub(super) fn plan_install(&mut self, host: Host, scope: Scope, set: PathBuf, name: String) {
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let planned = crate::handoff::plan(
                host,
                Some(scope),
                &Places::system(),
                &set,
                &name,
                false,
                crate::handoff::Deliver::Live,
            )
            .map(Box::new)
            .map_err(|refused| refused.why);
            let _ = tx.send(Msg::InstallPlanned(planned));
        });
    }

    /// Makes a confirmed install ([`crate::handoff::Plan`]): the entry and the per-turn
    /// hooks, then the delivery of
    /// what the request's resolution includes, read through the browser's connections.
    pub(super) fn install(&mut self, plan: Box<InstallPlan>, request: ResolveRequest) {
        let connections = self.connections.clone();
        let tx = self.tx.clone();
        let task = tokio::spawn(async move {
            // The skills are gated for the set's folder.
            let folder = plan.set.parent().map(std::path::Path::to_path_buf);
            let mut lines = Vec::new();
            let told = |step: make::Step<'_>| match step {
                make::Step::Entry { written, .. } | make::Step::Hooks { written, .. } => {
                    lines.extend(said(written))
                }
            };
            let connect = move |own| async move {
                let request = ResolveRequest { own, ..request };
                Ok::<_, std::convert::Infallible>(Live {
                    request: std::borrow::Cow::Owned(request),
                    connections,
                    folder,
                })
            };
            match make::make(&plan, &Places::system(), told, connect).await {
                Ok(Some(delivered)) => lines.extend(said(&delivered.written)),
                Ok(None) => {}
                Err(make::Refused::Entry(why) | make::Refused::Hooks(why)) => {
                    return tx.send(Msg::Installed(Err(why)));
                }
                Err(make::Refused::Delivery(why)) => {
                    lines.push(why);
                    return tx.send(Msg::Installed(Err(lines.join("; "))));
                }
                Err(make::Refused::Reading(never)) => match never {},
            }
            lines.extend(plan.notes.iter().map(|n| format!("note: {n}")));
            // The delivery is recorded now: its files are mcpick's own from here on.
            let own = crate::handoff::own_outputs(&plan.set, None);
            let _ = tx.send(Msg::OwnOutputs(Arc::new(own)));
            tx.send(Msg::Installed(Ok(lines)))
        });
        self.tasks.push(task.abort_handle());
    }
}

/// A hand-off step's lines for the overlay: what was done, then warnings and notes.
fn said(written: &crate::handoff::Written) -> Vec<String> {
    let mut lines = written.lines.clone();
    lines.extend(written.warnings.iter().map(|w| format!("warning: {w}")));
    lines.extend(written.notes.iter().map(|n| format!("note: {n}")));
    lines
}
