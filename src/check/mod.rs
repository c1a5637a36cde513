//! `mcpick check`: audits one server's resources against the MCP specification.
//!
//! [`audit`] gathers what the server really sends ([`observe`]: raw pages, raw reads,
//! through rmcp's peer) and hands it to one module per rule group, each rule with a stable
//! id and the level the specification gives it ([`rules::RULES`], documented in the README).
//! A verdict is pass, warn, fail, or skipped with why: a broken MUST fails, a broken SHOULD
//! warns ([`grade`]); evidence quotes the request and the offending part of the answer,
//! cleaned for a terminal. No rule is tuned to a particular server.

mod annotations;
mod caching;
mod capability;
pub mod credentials;
pub mod observe;
mod pagination;
mod reads;
pub mod rules;
mod skills;
mod stable;
mod templates;
mod traversal;

use serde::Serialize;
use serde_json::Value;

use crate::mcp::Connection;
use observe::Listing;

pub use rules::{Level, RULES};

/// How a rule came out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "verdict", content = "why")]
pub enum Verdict {
    Pass,
    Warn,
    Fail,
    /// Not applicable or not checkable here; the string says why.
    Skipped(String),
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
            Verdict::Skipped(_) => "skipped",
        }
    }
}

/// One rule's verdict on one server, with evidence (already cleaned).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    /// The specification's level for this rule in the server's era.
    pub level: Level,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub evidence: Vec<String>,
}

/// Most evidence lines kept per finding; the rest are counted.
const MAX_EVIDENCE: usize = 6;

impl Finding {
    pub fn skipped(rule: &'static str, why: impl Into<String>) -> Finding {
        Finding {
            rule,
            level: rules::rule(rule).modern,
            verdict: Verdict::Skipped(why.into()),
            evidence: Vec::new(),
        }
    }
}

/// Collects problems for one rule: the worst verdict wins, evidence is cleaned and capped.
#[derive(Debug)]
pub(crate) struct Judge {
    rule: &'static str,
    verdict: Verdict,
    evidence: Vec<String>,
    more: usize,
    notes: Vec<String>,
}

impl Judge {
    pub(crate) fn new(rule: &'static str) -> Judge {
        Judge {
            rule,
            verdict: Verdict::Pass,
            evidence: Vec::new(),
            more: 0,
            notes: Vec::new(),
        }
    }

    fn record(&mut self, line: String) {
        if self.evidence.len() < MAX_EVIDENCE {
            self.evidence.push(crate::sanitize::line(&line, 400));
        } else {
            self.more += 1;
        }
    }

    /// What the rule requires is broken: a `fail`, or a `warn` where the specification only
    /// says SHOULD ([`grade`]).
    pub(crate) fn fail(&mut self, evidence: impl Into<String>) {
        self.verdict = Verdict::Fail;
        self.record(evidence.into());
    }

    /// Something short of breaking the rule (the check's own limit, an answer it cannot
    /// judge): a `warn` whatever the level.
    pub(crate) fn warn(&mut self, evidence: impl Into<String>) {
        if self.verdict == Verdict::Pass {
            self.verdict = Verdict::Warn;
        }
        self.record(evidence.into());
    }

    /// A line said with a pass (what was checked), shown only when nothing went wrong.
    pub(crate) fn note(&mut self, line: impl Into<String>) {
        self.notes.push(crate::sanitize::line(&line.into(), 400));
    }

    pub(crate) fn finish(mut self) -> Finding {
        if self.more > 0 {
            self.evidence.push(format!("… and {} more", self.more));
        }
        if self.verdict == Verdict::Pass {
            let more = self.notes.len().saturating_sub(2);
            self.evidence = self.notes.into_iter().take(2).collect();
            if more > 0 {
                self.evidence.push(format!("… and {more} more like these"));
            }
        }
        Finding {
            rule: self.rule,
            level: rules::rule(self.rule).modern,
            verdict: self.verdict,
            evidence: self.evidence,
        }
    }
}

/// Gives each finding its rule's level in the server's era, and weighs a broken rule by it:
/// a broken SHOULD is a warning, not a failure.
pub fn grade(findings: &mut [Finding], modern: bool) {
    for f in findings {
        f.level = rules::rule(f.rule).level(modern);
        if f.level == Level::Should && f.verdict == Verdict::Fail {
            f.verdict = Verdict::Warn;
        }
    }
}

/// A short, cleaned rendering of a JSON value for evidence.
pub(crate) fn quote(value: &Value) -> String {
    let text = value.to_string();
    crate::sanitize::line(&text, 160)
}

/// What one audit needs: the server (twice, for the per-connection rule) and the sample size.
pub struct Target<'a> {
    pub first: &'a Connection,
    /// A second, fresh connection; `Err` says why there is none.
    pub second: Result<&'a Connection, String>,
    pub sample: usize,
    /// Told each step as it starts (`listing`, `reading 50 resources`…), for a progress line.
    pub step: &'a (dyn Fn(String) + Sync),
}

/// Runs every rule against one server. The order of requests matters: both listings are
/// taken before any read, and the first connection lists again after all reads.
pub async fn audit(target: Target<'_>) -> Vec<Finding> {
    let conn = target.first;
    let modern = conn.is_modern();
    let caps = conn.summary().capabilities;
    if !conn.has_resources() {
        let mut findings = vec![capability::undeclared(conn).await];
        let why = "the server declares no `resources` capability";
        findings.extend(RULES[1..].iter().map(|rule| Finding::skipped(rule.id, why)));
        grade(&mut findings, modern);
        return findings;
    }
    let step = target.step;
    step("listing".into());
    let (first, second) = match target.second {
        Ok(other) => {
            let (a, b) = futures::join!(observe::list(conn, false), observe::list(other, false));
            (a, Ok(b))
        }
        Err(why) => (observe::list(conn, false).await, Err(why)),
    };
    let templates = observe::list(conn, true).await;
    let mut findings = vec![
        capability::declared(),
        capability::subscribe(conn, &caps, &first, modern).await,
    ];
    findings.push(pagination::terminates(&first));
    step("trying a made-up cursor".into());
    findings.push(pagination::invalid_cursor(conn, &first).await);
    let valid = annotations::valid_uris(&first);
    step(format!(
        "reading {}",
        crate::units::count(
            valid.len().min(target.sample) as u64,
            "resource",
            "resources"
        )
    ));
    let reads = reads::sample_reads(conn, &valid, target.sample).await;
    step("reading URIs nobody listed".into());
    let probes = reads::not_found(conn, &valid, modern).await;
    let traversal = traversal::traversal(conn, &first, &templates).await;
    step("listing again".into());
    let again = observe::list(conn, false).await;
    findings.push(stable::connections(&first, &second));
    findings.push(stable::after_reads(&first, &again));
    findings.push(probes);
    findings.extend(reads::judge(&reads));
    findings.push(annotations::annotations(&first));
    findings.push(annotations::names_uris(&first));
    findings.push(templates::syntax(&templates));
    step("completing template variables".into());
    findings.push(templates::completion(conn, &caps, &templates).await);
    findings.push(traversal);
    findings.push(caching::caching(modern, &first, &reads));
    step("reading the skills whole".into());
    findings.push(skills::manifest(conn, &first).await);
    grade(&mut findings, modern);
    findings
}

/// The first listing's items, when it got any: rules that judge entries use what arrived
/// even when the listing stopped early (pagination says why).
pub(crate) fn items(listing: &Listing) -> &[Value] {
    &listing.items
}
