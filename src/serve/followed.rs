//! Which published resources' updates `serve` asks each upstream for, kept from one published
//! list to the next. An upstream is asked again only when its set changed, and then only for
//! the difference where its era allows (legacy: a `resources/subscribe` for each resource
//! added, a `resources/unsubscribe` for each taken out; 2026-07-28: one new
//! `subscriptions/listen`). The upkeep follows up a burst of list changes once, and at most
//! once a second ([`Burst`](crate::mcp::follow::Burst)): a server adding a resource every few hundred milliseconds is
//! not sent a listen naming thousands of URIs each time.

use super::Diag;
use super::exposed::Served;
use super::upstream::Upstreams;
use crate::mcp::Watch;

/// The most published resources of one upstream whose updates are asked for. One
/// subscription request names them all, and a server asked for 150,000 at once did not
/// answer in 30 s.
pub const MAX_FOLLOWED: usize = 10_000;

/// What every upstream is asked to report updates of, by upstream position.
#[derive(Default)]
pub struct Followed {
    upstreams: Vec<Following>,
}

#[derive(Default)]
struct Following {
    /// The upstream URIs `watch` follows, in published order.
    uris: Vec<String>,
    /// `None` until asked (or after [`Followed::forget`]).
    watch: Option<Watch>,
    /// Told of the cap already (said once).
    capped: bool,
}

impl Followed {
    /// Asks every connected upstream for updates of its published resources in `served`, at
    /// most [`MAX_FOLLOWED`] of each in the published order (the budgeted set first), where
    /// that set is not what it follows already. Its supervisor asks for list changes.
    pub async fn update(&mut self, served: &Served, upstreams: &Upstreams, diag: &Diag) {
        let names: Vec<&str> = upstreams.iter().map(|u| u.name.as_str()).collect();
        self.upstreams.resize_with(names.len(), Following::default);
        let said: Vec<bool> = self.upstreams.iter().map(|f| f.capped).collect();
        let (wanted, published) = wanted(served, &names, &said);
        for (i, upstream) in upstreams.iter().enumerate() {
            let Some(connection) = upstream.connection() else {
                continue;
            };
            let following = &mut self.upstreams[i];
            if following.watch.is_some() && same_set(&following.uris, &wanted[i]) {
                continue;
            }
            let uris: Vec<String> = wanted[i].iter().map(|u| u.to_string()).collect();
            let asked = match &mut following.watch {
                Some(watch) => connection.rewatch_updates(watch, &uris).await,
                None => connection
                    .watch_updates(&uris)
                    .await
                    .map(|watch| following.watch = Some(watch)),
            };
            if let Err(e) = asked {
                diag.line(&format!(
                    "server `{}`: cannot watch for changes: {}",
                    upstream.name,
                    connection.explain(&e)
                ));
                continue;
            }
            following.uris = uris;
            let all = published[i];
            if all > MAX_FOLLOWED
                && !following.capped
                && connection.resource_capabilities().subscribe
            {
                following.capped = true;
                diag.line(&format!(
                    "server `{}`: following updates of the first {MAX_FOLLOWED} of its {all} \
                     published resources (the budgeted set first)",
                    upstream.name,
                ));
            }
        }
    }

    /// Forgets what upstream `i` follows (its connection is new): the next
    /// [`Followed::update`] asks it again.
    pub fn forget(&mut self, i: usize) {
        if let Some(following) = self.upstreams.get_mut(i) {
            following.watch = None;
            following.uris.clear();
        }
    }
}

/// For each upstream (by position in `names`), the upstream URIs of its first
/// [`MAX_FOLLOWED`] published resources and how many it publishes. One pass over the
/// published list, ended early once every upstream has its share and none still needs its
/// count for the word about the cap (`said`: told already).
fn wanted<'a>(
    served: &'a Served,
    names: &[&str],
    said: &[bool],
) -> (Vec<Vec<&'a str>>, Vec<usize>) {
    let mut wanted: Vec<Vec<&str>> = names.iter().map(|_| Vec::new()).collect();
    let mut published = vec![0; names.len()];
    let mut last: Option<(&str, usize)> = None;
    let mut full = 0;
    for resource in served.iter() {
        let server = resource.server();
        let i = match last {
            // Every resource of a server names it with the same string in memory.
            Some((name, i)) if std::ptr::eq(name, server) => i,
            _ => match names.iter().position(|n| *n == server) {
                Some(i) => {
                    last = Some((server, i));
                    i
                }
                None => continue,
            },
        };
        published[i] += 1;
        if wanted[i].len() < MAX_FOLLOWED {
            wanted[i].push(resource.upstream_uri());
            if wanted[i].len() == MAX_FOLLOWED && said[i] {
                full += 1;
                if full == names.len() {
                    break;
                }
            }
        }
    }
    (wanted, published)
}

/// Whether `now` names the URIs of `before` (in any order).
fn same_set(before: &[String], now: &[&str]) -> bool {
    if before.len() != now.len() {
        return false;
    }
    if before.iter().zip(now).all(|(a, b)| a == b) {
        return true;
    }
    let before: std::collections::HashSet<&str> = before.iter().map(String::as_str).collect();
    now.iter().all(|u| before.contains(u))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_is_the_same_in_any_order_and_not_with_one_more_or_other() {
        let before = vec!["a".to_string(), "b".to_string()];
        assert!(same_set(&before, &["a", "b"]));
        assert!(same_set(&before, &["b", "a"]));
        assert!(!same_set(&before, &["a", "b", "c"]));
        assert!(!same_set(&before, &["a", "c"]));
        assert!(!same_set(&before, &[]));
    }
}
