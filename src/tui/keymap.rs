//! Keys as data: every binding is a row of one table (mode, key, action), and the help overlay
//! and the status-line hints are generated from that table, so they cannot drift from what the
//! keys really do. A `[keys.<mode>]` table in mcpick's TOML config overrides single bindings:
//!
//! ```toml
//! [keys.browse]
//! "ctrl-n" = "down"
//! "x" = "quit"
//! "t" = "none"      # unbind
//! ```

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where keys are read: each mode has its own bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The tree or list has the focus.
    Browse,
    /// Typing a search query (printable keys go into the query).
    Search,
    /// The contents pane has the focus (keys scroll it; config name `preview`).
    Contents,
    /// The log view is open.
    Log,
    /// The help overlay is open.
    Help,
    /// The agent view is open.
    Agent,
    /// The resource templates overlay (`T`) is open.
    Templates,
    /// The template form is open (printable keys go into the focused field).
    Form,
    /// The hand-off overlay (`I`) is open.
    Handoff,
    /// The browser asks whether to start the project's servers it held back.
    Approve,
}

impl Mode {
    pub const ALL: [Mode; 10] = [
        Mode::Browse,
        Mode::Search,
        Mode::Contents,
        Mode::Agent,
        Mode::Log,
        Mode::Templates,
        Mode::Form,
        Mode::Handoff,
        Mode::Approve,
        Mode::Help,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Browse => "browse",
            Mode::Search => "search",
            Mode::Contents => "preview",
            Mode::Log => "log",
            Mode::Help => "help",
            Mode::Agent => "agent",
            Mode::Templates => "templates",
            Mode::Form => "template_form",
            Mode::Handoff => "handoff",
            Mode::Approve => "approve",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Mode::Browse => "Tree and list",
            Mode::Search => "Search line",
            Mode::Contents => "Contents pane (config name: preview)",
            Mode::Log => "Log view",
            Mode::Help => "Help",
            Mode::Agent => "Agent view",
            Mode::Templates => "Templates list (config name: templates)",
            Mode::Form => "Template form (config name: template_form)",
            Mode::Handoff => "Hand-off overlay (config name: handoff)",
            Mode::Approve => "Approving the project's servers (config name: approve)",
        }
    }
}

macro_rules! actions {
    ($($variant:ident = $name:literal : $desc:literal,)*) => {
        /// Everything a key can do. Names are what the config file and the help use.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Action { $($variant,)* }

        impl Action {
            pub const ALL: &'static [Action] = &[$(Action::$variant,)*];

            pub fn name(self) -> &'static str {
                match self { $(Action::$variant => $name,)* }
            }

            pub fn description(self) -> &'static str {
                match self { $(Action::$variant => $desc,)* }
            }

            /// The action a config names; the names of earlier releases still work.
            pub fn from_name(name: &str) -> Option<Action> {
                let name = match name {
                    "focus_preview" => "focus_contents",
                    "preview_down" => "contents_down",
                    "preview_up" => "contents_up",
                    other => other,
                };
                match name { $($name => Some(Action::$variant),)* _ => None }
            }
        }
    };
}

actions! {
    Quit = "quit": "Quit mcpick",
    Suspend = "suspend": "Suspend to the shell (fg to resume)",
    Help = "help": "Show or hide this help",
    Up = "up": "Move up",
    Down = "down": "Move down",
    PageUp = "page_up": "Move up one page",
    PageDown = "page_down": "Move down one page",
    Top = "top": "Go to the top",
    Bottom = "bottom": "Go to the bottom",
    Expand = "expand": "Open the folder (on a resource: focus the contents pane)",
    Collapse = "collapse": "Close the folder, or go to the parent",
    Toggle = "toggle": "Open or close the folder (on a resource: focus the contents pane)",
    ExpandAll = "expand_all": "Open every folder",
    CollapseAll = "collapse_all": "Close every folder",
    Parent = "parent": "Jump to the parent folder",
    ToggleView = "toggle_view": "Switch between tree and list",
    CycleOrder = "cycle_order": "List: next order (priority, lastModified, name, uri, size, server)",
    Search = "search": "Search (fuzzy; fzf syntax: 'exact ^prefix suffix$ !not)",
    ClearSearch = "clear_search": "Clear the search",
    AcceptSearch = "accept_search": "Keep the results and go back to the list",
    DeleteChar = "delete_char": "Delete the character before the cursor",
    ClearQuery = "clear_query": "Delete the whole query",
    DeleteForward = "delete_forward": "Delete the character under the cursor",
    DeleteWord = "delete_word": "Delete the word before the cursor",
    CursorLeft = "cursor_left": "Move the cursor one character left",
    CursorRight = "cursor_right": "Move the cursor one character right",
    CursorHome = "cursor_home": "Move the cursor to the start of the query",
    CursorEnd = "cursor_end": "Move the cursor to the end of the query",
    FocusContents = "focus_contents": "Focus the contents pane",
    FocusList = "focus_list": "Back to the tree or list",
    ContentsDown = "contents_down": "Scroll the contents pane down",
    ContentsUp = "contents_up": "Scroll the contents pane up",
    Reload = "reload": "Read the resource again (drops the cached contents)",
    Templates = "templates": "The servers' resource templates: Enter fills one in (with the server's completions) and reads the expansion, which can be pinned",
    Reconnect = "reconnect": "On a server row: connect to the server again and list it (a failed or crashed server comes back)",
    Log = "log": "Show or hide the server log",
    LogFilter = "log_filter": "Log: next server filter (all, then each server)",
    Close = "close": "Close this view",
    Pin = "pin": "Pin: always hand to the agent (a folder: its URI prefix, later resources too; a • row: the resource); again: unpin",
    Exclude = "exclude": "Exclude: never hand to the agent (a folder: its URI prefix; a • row: the resource); again: clear",
    PinFolder = "pin_folder": "Pin the folder's URI prefix, also on a • row (+ there pins the resource); again: unpin",
    ExcludeFolder = "exclude_folder": "Exclude the folder's URI prefix, also on a • row (x there excludes the resource); again: clear",
    Unmark = "unmark": "Remove the mark of the resource or folder",
    PinResults = "pin_results": "Pin every current search result: says how many, again pins them (one undo step)",
    ExcludeResults = "exclude_results": "Exclude every current search result: says how many, again excludes them (one undo step)",
    Undo = "undo": "Undo the last mark change",
    AgentView = "agent_view": "Show or hide the agent view (what the agent is handed, the cut line, what is left out)",
    BudgetUp = "budget_up": "Raise the token budget one step (from none set: 500 tokens; past the top: all)",
    BudgetDown = "budget_down": "Lower the token budget one step (below the bottom: none set, pinned only)",
    CycleAudience = "cycle_audience": "Next audience filter (assistant, user, any)",
    CycleHost = "cycle_host": "Agent view: what one host's model receives at session start (Claude Code, Gemini CLI, Codex: its channel, its cut at whole resources, its warnings), then the set as resolved again",
    CopyUri = "copy_uri": "Copy the resource's URI to the clipboard (OSC 52)",
    CopyBundle = "copy_bundle": "Copy the bundle the agent is handed (contents, in order, under the budget) to the clipboard",
    Handoff = "handoff": "Install this set into a host (see the change, confirm); the commands to copy",
    FillTemplate = "fill_template": "Templates: fill in the template under the cursor (a field per variable)",
    ReadExpansion = "read_expansion": "Template form: read the expansion (it joins the catalogue only if the read succeeds)",
    NextSuggestion = "next_suggestion": "Template form: the next suggestion (none shown: the next field)",
    PreviousSuggestion = "previous_suggestion": "Template form: the previous suggestion (none shown: the previous field)",
    TakeSuggestion = "take_suggestion": "Template form: fill the field with the chosen suggestion (it holds it already: the next field)",
    PreviousField = "previous_field": "Template form: the previous field",
    NextHost = "next_host": "Hand-off: install into the next host",
    PreviousHost = "previous_host": "Hand-off: install into the previous host",
    ToggleScope = "toggle_scope": "Hand-off: project or user scope",
    Install = "install": "Hand-off: show the change the install makes; again: make it",
    Back = "back": "Hand-off: back to choosing the host and scope (while choosing: close)",
    Approve = "approve": "Start the project's servers shown, remembering your approval (as `mcpick trust`; a changed command asks again)",
    KeepStopped = "keep_stopped": "Leave the project's servers shown stopped (R on one asks again)",
}

/// One key with its modifiers. Shift is folded into the character (`J`, not `shift-j`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chord {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Chord {
    pub fn new(code: KeyCode, mods: KeyModifiers) -> Self {
        let mut mods = mods & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match code {
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        Chord { code, mods }
    }

    pub fn from_event(key: &KeyEvent) -> Self {
        Self::new(key.code, key.modifiers)
    }

    /// Parses `j`, `J`, `ctrl-c`, `alt-x`, `pgdown`, `home`, `enter`, `space`, `f1`, ….
    pub fn parse(s: &str) -> Result<Chord, String> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            let (prefix, m) = if lower.starts_with("ctrl-") {
                ("ctrl-", KeyModifiers::CONTROL)
            } else if lower.starts_with("alt-") {
                ("alt-", KeyModifiers::ALT)
            } else if lower.starts_with("shift-") && rest.len() > 6 {
                ("shift-", KeyModifiers::SHIFT)
            } else {
                break;
            };
            mods |= m;
            rest = &rest[prefix.len()..];
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(if mods.contains(KeyModifiers::SHIFT) {
                c.to_ascii_uppercase()
            } else {
                c
            }),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                "space" => KeyCode::Char(' '),
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pgup" | "pageup" => KeyCode::PageUp,
                "pgdown" | "pagedown" | "pgdn" => KeyCode::PageDown,
                "insert" => KeyCode::Insert,
                f if f.starts_with('f')
                    && f[1..].parse::<u8>().is_ok_and(|n| (1..=24).contains(&n)) =>
                {
                    KeyCode::F(f[1..].parse().unwrap_or(1))
                }
                _ => return Err(format!("unknown key `{s}`")),
            },
        };
        Ok(Chord::new(code, mods))
    }
}

impl fmt::Display for Chord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.mods.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("shift-tab"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("delete"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdown"),
            KeyCode::Insert => f.write_str("insert"),
            KeyCode::F(n) => write!(f, "f{n}"),
            _ => f.write_str("?"),
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub mode: Mode,
    pub chord: Chord,
    pub action: Action,
}

/// The key table.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

/// The built-in bindings: (modes, keys, action).
const DEFAULTS: &[(&[Mode], &[&str], Action)] = {
    use Action as A;
    use Mode::*;
    const NAV: &[Mode] = &[Browse, Contents, Log, Help, Agent, Handoff, Approve];
    // Quit, suspend and paging: every mode but the template list and form.
    const ALL_BUT_TEMPLATES: &[Mode] =
        &[Browse, Search, Contents, Log, Help, Agent, Handoff, Approve];
    &[
        (&[Browse, Contents], &["q"], A::Quit),
        (ALL_BUT_TEMPLATES, &["ctrl-c"], A::Quit),
        (ALL_BUT_TEMPLATES, &["ctrl-z"], A::Suspend),
        (
            &[Browse, Contents, Log, Agent, Templates, Handoff, Approve],
            &["?", "f1"],
            A::Help,
        ),
        // The template form types `?` into its field: f1 shows the help there.
        (&[Form], &["f1"], A::Help),
        (NAV, &["k", "up"], A::Up),
        (NAV, &["j", "down"], A::Down),
        (&[Search], &["up", "ctrl-p"], A::Up),
        (&[Search], &["down", "ctrl-n"], A::Down),
        (ALL_BUT_TEMPLATES, &["pgup", "ctrl-b"], A::PageUp),
        (ALL_BUT_TEMPLATES, &["pgdown", "ctrl-f"], A::PageDown),
        (NAV, &["g", "home"], A::Top),
        (NAV, &["G", "end"], A::Bottom),
        (&[Browse], &["l", "right"], A::Expand),
        (&[Browse], &["h", "left"], A::Collapse),
        (&[Browse], &["enter", "space"], A::Toggle),
        (&[Browse], &["E", "*"], A::ExpandAll),
        (&[Browse], &["C", "-"], A::CollapseAll),
        (&[Browse], &["p", "backspace"], A::Parent),
        (&[Browse], &["t"], A::ToggleView),
        (&[Browse], &["o"], A::CycleOrder),
        (&[Browse], &["/"], A::Search),
        (&[Browse], &["esc"], A::ClearSearch),
        (&[Search], &["esc"], A::ClearSearch),
        (&[Search], &["enter", "tab"], A::AcceptSearch),
        (&[Search], &["backspace"], A::DeleteChar),
        (&[Search], &["ctrl-u"], A::ClearQuery),
        (&[Search], &["delete"], A::DeleteForward),
        (&[Search], &["ctrl-w", "alt-backspace"], A::DeleteWord),
        (&[Search], &["left"], A::CursorLeft),
        (&[Search], &["right"], A::CursorRight),
        (&[Search], &["home", "ctrl-a"], A::CursorHome),
        (&[Search], &["end", "ctrl-e"], A::CursorEnd),
        (&[Browse], &["tab"], A::FocusContents),
        (&[Contents], &["tab", "esc", "h", "left"], A::FocusList),
        (&[Browse], &["J", "ctrl-e"], A::ContentsDown),
        (&[Browse], &["K", "ctrl-y"], A::ContentsUp),
        (&[Browse, Contents], &["r"], A::Reload),
        (&[Browse], &["R"], A::Reconnect),
        (&[Browse, Contents], &["T"], A::Templates),
        (&[Browse, Contents], &["L"], A::Log),
        (&[Log], &["s"], A::LogFilter),
        (&[Log], &["L", "esc", "q"], A::Close),
        (&[Help], &["?", "esc", "q", "f1"], A::Close),
        (&[Browse, Contents], &["+", "="], A::Pin),
        (&[Browse, Contents], &["x"], A::Exclude),
        (&[Browse, Contents], &["F"], A::PinFolder),
        (&[Browse, Contents], &["ctrl-x"], A::ExcludeFolder),
        (&[Browse, Contents], &["0", "delete"], A::Unmark),
        (&[Browse], &["P"], A::PinResults),
        (&[Browse], &["X"], A::ExcludeResults),
        (&[Browse, Contents, Agent], &["u"], A::Undo),
        (&[Browse, Contents], &["a"], A::AgentView),
        (&[Agent], &["a", "esc", "q"], A::Close),
        (&[Browse, Contents, Agent], &["]"], A::BudgetUp),
        (&[Browse, Contents, Agent], &["["], A::BudgetDown),
        (&[Browse, Contents, Agent], &["A"], A::CycleAudience),
        (&[Agent], &["H"], A::CycleHost),
        (&[Browse, Contents], &["y"], A::CopyUri),
        (&[Browse, Contents, Agent], &["Y"], A::CopyBundle),
        (&[Browse, Contents, Agent], &["I"], A::Handoff),
        // The templates list (`T`).
        (&[Templates], &["k", "up"], A::Up),
        (&[Templates], &["j", "down"], A::Down),
        (&[Templates], &["enter"], A::FillTemplate),
        (&[Templates], &["esc", "q", "T"], A::Close),
        // The template form: printable keys are typed into the field, so none is bound here.
        (&[Form], &["enter"], A::ReadExpansion),
        (&[Form], &["down"], A::NextSuggestion),
        (&[Form], &["up"], A::PreviousSuggestion),
        (&[Form], &["tab"], A::TakeSuggestion),
        (&[Form], &["backtab"], A::PreviousField),
        (&[Form], &["backspace"], A::DeleteChar),
        (&[Form], &["esc"], A::Close),
        // The hand-off overlay (`I`); it scrolls as the help does.
        (&[Handoff], &["left", "h"], A::PreviousHost),
        (&[Handoff], &["right", "l"], A::NextHost),
        (&[Handoff], &["tab", "s"], A::ToggleScope),
        (&[Handoff], &["enter"], A::Install),
        (&[Handoff], &["esc"], A::Back),
        (&[Handoff], &["q", "I"], A::Close),
        // Asking to start the project's servers held back; it scrolls as the help does.
        (&[Approve], &["y"], A::Approve),
        (&[Approve], &["n", "esc", "q"], A::KeepStopped),
    ]
};

impl Default for Keymap {
    fn default() -> Self {
        let mut bindings = Vec::new();
        for (modes, keys, action) in DEFAULTS {
            for &mode in *modes {
                for key in *keys {
                    let chord = Chord::parse(key).expect("built-in keys parse");
                    bindings.push(Binding {
                        mode,
                        chord,
                        action: *action,
                    });
                }
            }
        }
        Keymap { bindings }
    }
}

impl Keymap {
    /// The action bound to a key in a mode, if any.
    pub fn resolve(&self, mode: Mode, chord: Chord) -> Option<Action> {
        self.bindings
            .iter()
            .find(|b| b.mode == mode && b.chord == chord)
            .map(|b| b.action)
    }

    /// Every binding, in table order.
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The keys bound to `action` in `mode`, in table order.
    pub fn keys_for(&self, mode: Mode, action: Action) -> Vec<Chord> {
        self.bindings
            .iter()
            .filter(|b| b.mode == mode && b.action == action)
            .map(|b| b.chord)
            .collect()
    }

    /// The first key for `action` in `mode`, as text (for status-line hints).
    pub fn hint(&self, mode: Mode, action: Action) -> Option<String> {
        self.keys_for(mode, action).first().map(|c| c.to_string())
    }

    /// Binds `chord` to `action` in `mode` (replacing what it did), or unbinds it (`None`).
    pub fn bind(&mut self, mode: Mode, chord: Chord, action: Option<Action>) {
        self.bindings
            .retain(|b| !(b.mode == mode && b.chord == chord));
        if let Some(action) = action {
            self.bindings.push(Binding {
                mode,
                chord,
                action,
            });
        }
    }

    /// Applies a `[keys]` table (`{ mode: { key: action } }`); returns one message per entry
    /// that could not be used (the others still apply).
    pub fn apply_table(&mut self, table: &toml::Table, origin: &str) -> Vec<String> {
        let mut errors = Vec::new();
        for (mode_name, keys) in table {
            // `contents` names the contents pane as the help does; `preview` stays for configs.
            let wanted = if mode_name == "contents" {
                "preview"
            } else {
                mode_name
            };
            let Some(mode) = Mode::ALL.into_iter().find(|m| m.name() == wanted) else {
                errors.push(format!(
                    "{origin}: keys.{mode_name}: unknown mode (use one of browse, search, preview (the contents pane; `contents` works too), agent, log, templates, template_form, handoff, help)"
                ));
                continue;
            };
            let Some(keys) = keys.as_table() else {
                errors.push(format!(
                    "{origin}: keys.{mode_name}: expected a table of key = \"action\""
                ));
                continue;
            };
            for (key, action) in keys {
                let chord = match Chord::parse(key) {
                    Ok(chord) => chord,
                    Err(e) => {
                        errors.push(format!("{origin}: keys.{mode_name}: {e}"));
                        continue;
                    }
                };
                let Some(name) = action.as_str() else {
                    errors.push(format!(
                        "{origin}: keys.{mode_name}.{key}: expected an action name"
                    ));
                    continue;
                };
                if name == "none" {
                    self.bind(mode, chord, None);
                } else if let Some(action) = Action::from_name(name) {
                    self.bind(mode, chord, Some(action));
                } else {
                    errors.push(format!(
                        "{origin}: keys.{mode_name}.{key}: unknown action `{name}` (see `?` in mcpick for the list)"
                    ));
                }
            }
        }
        errors
    }

    /// The built-in keys with the `[keys]` tables of mcpick's TOML config files applied, the
    /// lowest-precedence file first: the user's `config.toml`, then `./mcpick.toml`, then
    /// `--config FILE` (when it is TOML). The tables come from the run's one loaded
    /// [`Config`](crate::config::Config), whose file errors the caller reports. Returns
    /// warnings for entries that were ignored.
    pub fn load(config: &crate::config::Config) -> (Keymap, Vec<String>) {
        let mut keymap = Keymap::default();
        let mut warnings = Vec::new();
        for keys in config.keys.iter().rev() {
            let origin = &keys.origin;
            match keys.value.as_table() {
                Some(table) => warnings.extend(keymap.apply_table(table, origin)),
                None => warnings.push(format!("{origin}: `keys` is not a table")),
            }
        }
        (keymap, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_chords() {
        for (text, shown) in [
            ("j", "j"),
            ("J", "J"),
            ("shift-j", "J"),
            ("ctrl-c", "ctrl-c"),
            ("pgdown", "pgdown"),
            ("space", "space"),
            ("f1", "f1"),
            ("alt-x", "alt-x"),
        ] {
            assert_eq!(Chord::parse(text).unwrap().to_string(), shown, "{text}");
        }
        assert!(Chord::parse("nope").is_err());
        let ev = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(Chord::from_event(&ev), Chord::parse("G").unwrap());
    }

    #[test]
    fn resolves_defaults_and_overrides() {
        let mut keymap = Keymap::default();
        let j = Chord::parse("j").unwrap();
        assert_eq!(keymap.resolve(Mode::Browse, j), Some(Action::Down));
        assert_eq!(keymap.resolve(Mode::Search, j), None);
        let table: toml::Table = toml::from_str(
            "[browse]\nj = \"up\"\nx = \"quit\"\nt = \"none\"\nbad = \"down\"\ny = \"fly\"\n[nomode]\na = \"up\"",
        )
        .unwrap();
        let errors = keymap.apply_table(&table, "test");
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert_eq!(keymap.resolve(Mode::Browse, j), Some(Action::Up));
        assert_eq!(
            keymap.resolve(Mode::Browse, Chord::parse("x").unwrap()),
            Some(Action::Quit)
        );
        assert_eq!(
            keymap.resolve(Mode::Browse, Chord::parse("t").unwrap()),
            None
        );
    }

    #[test]
    fn every_action_has_a_unique_name() {
        let mut names: Vec<_> = Action::ALL.iter().map(|a| a.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Action::ALL.len());
        for a in Action::ALL {
            assert_eq!(Action::from_name(a.name()), Some(*a));
        }
    }
}
