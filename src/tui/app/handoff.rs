//! Hand-off from the browser: `y` copies the selected resource's URI, `Y` the whole bundle the
//! agent would be handed (as `mcpick export` renders it), both through the terminal's
//! clipboard (OSC 52); `I` shows the commands that serve, install or export the current set.

use std::path::Path;

use super::{App, Effect, Overlay, Selection};
use crate::hosts::{Host, Scope};
use crate::sanitize;
use crate::tui::text::thousands;
use crate::units::human_size;

/// A bundle rendered by the runtime, ready to copy.
#[derive(Debug)]
pub struct Bundled {
    pub text: String,
    pub resources: usize,
    pub tokens: u64,
    /// Some token counts are estimates (a read failed).
    pub estimated: bool,
}

impl App {
    /// `y`: the URI of the resource under the cursor.
    pub(super) fn copy_uri(&mut self) -> Vec<Effect> {
        let Selection::Item(id) = self.selection() else {
            self.info = Some("y copies a resource's URI: move to a resource".into());
            return Vec::new();
        };
        let Some(item) = self.catalogue.get(id) else {
            return Vec::new();
        };
        let uri = item.uri().to_string();
        vec![Effect::Copy {
            what: format!("URI {}", sanitize::line(&uri, 200)),
            text: uri,
        }]
    }

    /// `Y`: asks the runtime to read and render the bundle; [`App::on_bundle`] copies it.
    pub(super) fn copy_bundle(&mut self) -> Vec<Effect> {
        self.info = Some("reading the included resources for the bundle…".into());
        vec![Effect::Bundle(Box::new(self.resolve_request(0)))]
    }

    /// The bundle is read and rendered (or could not be).
    pub(super) fn on_bundle(&mut self, result: Result<Bundled, String>) -> Vec<Effect> {
        match result {
            Err(why) => {
                self.info = Some(sanitize::line(&format!("bundle not copied: {why}"), 300));
                Vec::new()
            }
            Ok(b) if b.resources == 0 => {
                self.info = Some("nothing to copy: the agent is handed no resources".into());
                Vec::new()
            }
            Ok(b) => vec![Effect::Copy {
                what: format!(
                    "the bundle: {} resource{} · {}{} tokens · {}",
                    thousands(b.resources),
                    if b.resources == 1 { "" } else { "s" },
                    if b.estimated { "~" } else { "" },
                    thousands(b.tokens as usize),
                    human_size(b.text.len() as u64)
                ),
                text: b.text,
            }],
        }
    }

    /// The runtime wrote the clipboard sequence; `note` says what else the person must know.
    pub(super) fn on_copied(&mut self, what: String, note: Option<&'static str>) -> Vec<Effect> {
        self.info = Some(match note {
            Some(note) => format!("copied {what} ({note})"),
            None => format!("copied {what}"),
        });
        Vec::new()
    }

    /// `I`: the hand-off commands for the current set.
    pub(super) fn show_handoff(&mut self) {
        self.overlay = Some(Overlay::Handoff { scroll: 0 });
    }

    /// The lines of the hand-off overlay. A set not saved yet is said first: every command
    /// listed refuses a missing set file.
    pub fn handoff_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.set_saved() {
            lines.extend([
                format!(
                    "Not saved yet: {} does not exist, and these commands refuse a missing set.",
                    sanitize::line(self.set_path(), 200)
                ),
                "Pin or exclude something (or change the policy) first: that saves it.".into(),
                String::new(),
            ]);
        }
        lines.extend(handoff_lines(Path::new(self.set_path())));
        lines
    }

    /// The set file exists: it was loaded, or this browser (or another process) saved it.
    fn set_saved(&self) -> bool {
        let c = &self.context;
        c.set.on_disk || c.base.on_disk || c.saved_seq > 0
    }

    /// The command that serves the current set (the agent view shows it).
    pub fn serve_command(&self) -> String {
        serve_command(&shell_word(self.set_path()))
    }

    fn set_path(&self) -> &str {
        self.context.path.as_deref().unwrap_or(DEFAULT_SET)
    }
}

const DEFAULT_SET: &str = "mcpick.context.json";

/// What to run to hand the set at `path` to a host: serve, install per host and scope,
/// export.
pub fn handoff_lines(path: &Path) -> Vec<String> {
    let set = shell_word(&path.to_string_lossy());
    let mut lines = vec![
        "Serve it: an MCP server that publishes only this set, ranked as the agent view shows"
            .to_string(),
        format!("  {}", serve_command(&set)),
        String::new(),
        "Write that server into a host's config (--dry-run shows the change first):".to_string(),
    ];
    for host in Host::ALL {
        for scope in [Scope::Project, Scope::User] {
            let d = host.dialect();
            let Some(file) = (match scope {
                Scope::Project => d.project_file.map(str::to_string),
                Scope::User => Some("user config".to_string()),
            }) else {
                continue;
            };
            let scope_flag = match (scope, d.project_file) {
                (Scope::User, Some(_)) => " --scope user",
                _ => "",
            };
            let command = format!("mcpick install {}{scope_flag} --set {set}", host.name());
            lines.push(format!("  {command:<64} {file}"));
        }
    }
    lines.extend([
        String::new(),
        "Paste it instead:".to_string(),
        format!("  mcpick export --set {set} --clipboard      the bundle (Y here)"),
        format!("  mcpick export --set {set} --mentions       @server:uri mentions"),
    ]);
    lines
}

fn serve_command(set: &str) -> String {
    format!("mcpick serve --set {set}")
}

/// `s` as one shell word: unchanged when it needs no quoting, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_quote_the_set_path() {
        assert_eq!(shell_word("./mcpick.context.json"), "./mcpick.context.json");
        assert_eq!(shell_word("my sets/a.json"), "'my sets/a.json'");
        assert_eq!(shell_word("it's.json"), r"'it'\''s.json'");
        let lines = handoff_lines(Path::new("sets/team.json"));
        assert!(lines.contains(&"  mcpick serve --set sets/team.json".to_string()));
        // Every host, project scope where it has one, user scope always.
        for host in Host::ALL {
            let user = format!("mcpick install {} ", host.name());
            assert!(lines.iter().any(|l| l.contains(&user)), "{}", host.name());
        }
        assert!(
            lines
                .iter()
                .any(|l| l.contains("mcpick install claude-code --scope user --set"))
        );
        assert!(
            !lines
                .iter()
                .any(|l| l.contains("mcpick install windsurf --scope user"))
        );
    }
}
