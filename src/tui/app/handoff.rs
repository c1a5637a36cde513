//! Hand-off from the browser: `y` copies the selected resource's URI, `Y` the whole bundle the
//! agent would be handed (as `mcpick export` renders it), both through the terminal's
//! clipboard (OSC 52); `I` installs the set into a host from here (choose the host and scope,
//! see the change `install --dry-run` shows, confirm) and lists the commands that serve,
//! install or export it, for copying.

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

/// An install planned off the UI thread ([`crate::handoff::plan`]): nothing is written until
/// it is confirmed.
pub type InstallPlan = crate::handoff::Plan;

/// Where the hand-off overlay's install is.
#[derive(Debug, Default)]
pub enum Stage {
    /// Choosing the host and scope.
    #[default]
    Choose,
    /// The change is being planned.
    Planning,
    /// The change is shown; Enter makes it.
    Planned(Box<InstallPlan>),
    /// Being written (the delivery reads the included resources first).
    Installing,
    /// Written: what was done, or why it was not.
    Done(Result<Vec<String>, String>),
}

/// The hand-off overlay's install: the host and scope chosen, and how far it is.
#[derive(Debug, Default)]
pub struct Installer {
    /// Index into [`Host::ALL`].
    pub host: usize,
    /// `None`: the host's default (project where it has a project file).
    pub scope: Option<Scope>,
    pub stage: Stage,
}

impl Installer {
    pub fn host(&self) -> Host {
        Host::ALL[self.host % Host::ALL.len()]
    }

    /// The scope an install would use now.
    pub fn scope(&self) -> Scope {
        let d = self.host().dialect();
        match self.scope {
            Some(Scope::Project) if d.project_file.is_some() => Scope::Project,
            Some(Scope::User) => Scope::User,
            _ if d.project_file.is_some() => Scope::Project,
            _ => Scope::User,
        }
    }
}

impl App {
    /// An action in the hand-off overlay: choose, show, confirm, scroll, close.
    pub(super) fn on_handoff_action(
        &mut self,
        action: crate::tui::keymap::Action,
        page: usize,
    ) -> Vec<Effect> {
        use crate::tui::keymap::Action;
        let choosing = matches!(self.installer.stage, Stage::Choose | Stage::Done(_));
        match action {
            Action::Back if !choosing => self.installer.stage = Stage::Choose,
            Action::Back | Action::Close => self.overlay = None,
            Action::PreviousHost | Action::NextHost if choosing => {
                let n = Host::ALL.len();
                let step = if action == Action::PreviousHost {
                    n - 1
                } else {
                    1
                };
                self.installer.host = (self.installer.host + step) % n;
                self.installer.scope = None;
                self.installer.stage = Stage::Choose;
            }
            Action::ToggleScope if choosing => {
                let other = match self.installer.scope() {
                    Scope::Project => Scope::User,
                    Scope::User => Scope::Project,
                };
                self.installer.scope = Some(other);
                self.installer.stage = Stage::Choose;
            }
            Action::Install => return self.handoff_enter(),
            _ => self.scroll_overlay(action, page),
        }
        Vec::new()
    }

    /// Enter: plan the chosen install, or make the one shown.
    fn handoff_enter(&mut self) -> Vec<Effect> {
        match std::mem::take(&mut self.installer.stage) {
            Stage::Choose | Stage::Done(_) => {
                let Some(set) = self.context.saving.file.clone() else {
                    self.installer.stage =
                        Stage::Done(Err("the browser has no set file to install".into()));
                    return Vec::new();
                };
                self.installer.stage = Stage::Planning;
                vec![Effect::PlanInstall {
                    host: self.installer.host(),
                    scope: self.installer.scope(),
                    set,
                    name: DEFAULT_NAME.to_string(),
                }]
            }
            Stage::Planned(plan) => {
                self.installer.stage = Stage::Installing;
                self.info = Some(format!(
                    "installing into {}…",
                    plan.host.dialect().host_name
                ));
                vec![Effect::Install {
                    plan,
                    request: Box::new(self.resolve_request(0)),
                }]
            }
            busy => {
                self.installer.stage = busy;
                Vec::new()
            }
        }
    }

    /// The planned change is ready to show (or could not be planned).
    pub(super) fn on_install_planned(&mut self, plan: Result<Box<InstallPlan>, String>) {
        if !matches!(self.installer.stage, Stage::Planning) {
            return;
        }
        self.installer.stage = match plan {
            Ok(plan) => Stage::Planned(plan),
            Err(why) => Stage::Done(Err(why)),
        };
        if let Some(Overlay::Handoff { scroll }) = self.overlay.as_mut().map(Overlay::under_help) {
            *scroll = 0;
        }
    }

    /// The install ended: the overlay and the status line say how.
    pub(super) fn on_installed(&mut self, result: Result<Vec<String>, String>) {
        self.info = Some(sanitize::line(
            &match &result {
                Ok(lines) => lines.first().cloned().unwrap_or_default(),
                Err(why) => format!("not installed: {why}"),
            },
            300,
        ));
        self.installer.stage = Stage::Done(result);
    }

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

    /// `I`: install from here, and the hand-off commands for the current set.
    pub(super) fn show_handoff(&mut self) {
        if !matches!(self.installer.stage, Stage::Planning | Stage::Installing) {
            self.installer.stage = Stage::Choose;
        }
        self.overlay = Some(Overlay::Handoff { scroll: 0 });
    }

    /// The lines of the hand-off overlay: the install, then the commands. Lines indented by
    /// two spaces are text, the others headings.
    /// The lines of the hand-off overlay. A set not saved yet is said first: every command
    /// listed (and the install from here) refuses a missing set file.
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
        lines.extend(self.install_lines());
        lines.push(String::new());
        lines.extend(handoff_lines(Path::new(self.set_path())));
        lines
    }

    /// The set file exists: it was loaded, or this browser (or another process) saved it.
    fn set_saved(&self) -> bool {
        let c = &self.context;
        c.set.on_disk || c.saving.base.on_disk || c.saving.saved_seq > 0
    }

    fn install_lines(&self) -> Vec<String> {
        let host = self.installer.host();
        let scope = self.installer.scope();
        let file = match scope {
            Scope::Project => host.dialect().project_file.unwrap_or_default().to_string(),
            Scope::User => "user config".to_string(),
        };
        let mut lines = vec![
            "Install it from here: ←/→ host · tab scope · enter shows the change, enter again makes it"
                .to_string(),
            format!(
                "  ‹ {} › {} scope ({file})   mcpick install {}{} --set {}",
                host.dialect().host_name,
                scope.name(),
                host.name(),
                match (scope, host.dialect().project_file) {
                    (Scope::User, Some(_)) => " --scope user",
                    (Scope::Project, _) => " --scope project",
                    _ => "",
                },
                shell_word(self.set_path())
            ),
        ];
        match &self.installer.stage {
            Stage::Choose => {}
            Stage::Planning => lines.push("  reading the host's file…".into()),
            Stage::Installing => lines.push(
                "  installing: writing the entry, reading the included resources for the delivery…"
                    .into(),
            ),
            Stage::Planned(plan) => {
                let entry = plan.entry.as_ref().map(|e| &e.edit);
                let diff = entry.map(|e| e.diff()).unwrap_or_default();
                if let Some(edit) = entry.filter(|e| e.is_unchanged()) {
                    lines.push(format!(
                        "The entry is already there ({}): enter writes the delivery again · esc goes back",
                        edit.path.display()
                    ));
                } else if entry.is_none() {
                    lines.push(format!(
                        "{} takes no MCP servers: enter writes the delivery · esc goes back",
                        plan.host.dialect().host_name
                    ));
                } else {
                    lines.push(
                        "The change (as `mcpick install --dry-run` shows it) · enter makes it · esc goes back"
                            .into(),
                    );
                    lines.extend(diff.lines().map(|l| format!("  {l}")));
                }
                lines.extend(
                    plan.delivery_lines()
                        .into_iter()
                        .chain(plan.hook_lines())
                        .map(|l| format!("  {l}")),
                );
                lines.extend(plan.notes.iter().map(|n| format!("  note: {n}")));
            }
            Stage::Done(Ok(done)) => {
                lines.push("Done:".into());
                lines.extend(done.iter().map(|l| format!("  {}", l.trim_start())));
            }
            Stage::Done(Err(why)) => {
                lines.push("Not installed:".into());
                lines.push(format!("  {why}"));
            }
        }
        lines
    }

    /// The command that serves the current set (the agent view shows it).
    pub fn serve_command(&self) -> String {
        serve_command(&shell_word(self.set_path()))
    }

    fn set_path(&self) -> &str {
        self.context.saving.path.as_deref().unwrap_or(DEFAULT_SET)
    }
}

pub const DEFAULT_SET: &str = "mcpick.context.json";
/// The served entry's name an install from the browser writes (`install --as` on the
/// command line chooses another).
pub use crate::handoff::DEFAULT_NAME;

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
    for host in Host::ALL.into_iter().filter(|h| h.dialect().mcp) {
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
        // Every host that takes servers, project scope where it has one, user scope always.
        for host in Host::ALL.into_iter().filter(|h| h.dialect().mcp) {
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
