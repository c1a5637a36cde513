//! A planned install made in its one order, for both front ends (`install` and the browser's
//! hand-off overlay): the entry, then the per-turn hooks (planned on the text the entry
//! leaves), then the session-start delivery with its skills, read through the caller's
//! [`Reader`]. The front ends differ only in how they say each step.

use std::future::Future;
use std::sync::Arc;

use super::service::{self, Asked, Reader, Skills};
use super::{Plan, Written};
use crate::context::OwnOutputs;
use crate::hosts::Places;

/// A [`Reader`] made for one set: the marks and policy it is read under, and how its skills
/// are read and gated.
pub trait ForSet: Reader {
    fn asked(&self) -> (Asked<'_>, Skills<'_>);
}

/// A step of an install, told as soon as it is made.
pub enum Step<'w> {
    /// The entry written (or already as planned: `unchanged`) and approved for the project.
    Entry {
        written: &'w Written,
        unchanged: bool,
    },
    /// The per-turn hooks written (none planned: nothing written).
    Hooks {
        written: &'w Written,
        unchanged: bool,
    },
}

/// Why an install stopped, and at which step (the steps before it were made).
#[derive(Debug)]
pub enum Refused<E> {
    Entry(String),
    Hooks(String),
    /// The set could not be read for the delivery (the caller's own error, said by it).
    Reading(E),
    /// The delivery could not be written.
    Delivery(String),
}

/// The delivery an install made: what was written, what was read, and the reader it was
/// read through (its connections, for the caller to close).
pub struct Delivered<R> {
    pub written: Written,
    pub read: service::Read,
    pub reader: R,
}

/// Makes `plan`: the entry, then the hooks (each told through `told`), then, when a delivery
/// is planned, the set read through the reader `connect` gives (told what mcpick will own
/// once this is made, to leave out at once) under the marks and policy it was made for
/// ([`ForSet`]), its skills fetched and gated as it says, and the delivery written. `None`:
/// no delivery planned.
pub async fn make<R, E, Fut>(
    plan: &Plan,
    places: &Places,
    mut told: impl FnMut(Step<'_>),
    connect: impl FnOnce(Arc<OwnOutputs>) -> Fut,
) -> Result<Option<Delivered<R>>, Refused<E>>
where
    R: ForSet,
    Fut: Future<Output = Result<R, E>>,
{
    let entry = plan.write_entry(places).map_err(Refused::Entry)?;
    told(Step::Entry {
        written: &entry,
        unchanged: plan.entry.as_ref().is_none_or(|e| e.edit.is_unchanged()),
    });
    let hooks = plan.write_hooks().map_err(Refused::Hooks)?;
    told(Step::Hooks {
        written: &hooks,
        unchanged: plan.hooks.as_ref().is_some_and(|h| h.edit.is_unchanged()),
    });
    if plan.delivery.is_none() {
        return Ok(None);
    }
    // The host files just written and this delivery's own file are left out at once.
    let own = Arc::new(plan.own_outputs());
    let reader = connect(Arc::clone(&own)).await.map_err(Refused::Reading)?;
    let (written, read) = {
        let sources = reader.sources().leaving_out(own);
        let (asked, skills) = reader.asked();
        let read = service::read(&reader, &sources, asked, skills).await;
        let written = plan
            .deliver(read.contents(&sources.candidates))
            .map_err(Refused::Delivery)?;
        (written, read)
    };
    Ok(Some(Delivered {
        written,
        read,
        reader,
    }))
}
