//! Every file of a throwaway project and home, by path, to hold "uninstall leaves the files as
//! they were" against: the hosts' own state (sessions, caches, logs) is theirs, not mcpick's,
//! and is left out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub type Files = BTreeMap<PathBuf, Vec<u8>>;

/// Every file under `roots` (a project, a home), the hosts' own state in a home left out.
pub fn files(roots: &[PathBuf]) -> Files {
    let mut out = BTreeMap::new();
    for root in roots {
        walk(root, &mut out, true);
    }
    out
}

/// The files of folder `dir`, all of them, by path relative to it.
pub fn tree(dir: &Path) -> Files {
    let mut all = BTreeMap::new();
    walk(dir, &mut all, false);
    all.into_iter()
        .map(|(p, b)| (p.strip_prefix(dir).unwrap().to_path_buf(), b))
        .collect()
}

fn walk(dir: &Path, out: &mut Files, skip_host_state: bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if skip_host_state
            && dir.ends_with("home")
            && matches!(
                name.as_str(),
                ".claude"
                    | ".claude.json"
                    | ".gemini"
                    | ".codex"
                    | ".cache"
                    | ".config"
                    | ".npm"
                    | ".local"
            )
        {
            continue;
        }
        // Copilot CLI and Qwen Code keep their state beside their settings: only the files
        // mcpick may write there are compared.
        if skip_host_state
            && (dir.ends_with("home/.copilot") || dir.ends_with("home/.qwen"))
            && !matches!(
                name.as_str(),
                "mcp-config.json"
                    | "copilot-instructions.md"
                    | "hooks"
                    | "settings.json"
                    | "QWEN.md"
                    | "mcpick"
                    | "skills"
            )
        {
            continue;
        }
        // pi keeps its sign-in, models and sessions beside the folders mcpick may write.
        if skip_host_state
            && dir.ends_with("home/.pi/agent")
            && !matches!(name.as_str(), "extensions" | "skills")
        {
            continue;
        }
        // Cline CLI keeps its state in `~/.cline/data`: only its servers' file is mcpick's.
        if skip_host_state
            && (dir.ends_with("home/.cline") && name != "data"
                || dir.ends_with("home/.cline/data") && name != "settings"
                || dir.ends_with("home/.cline/data/settings") && name != "cline_mcp_settings.json")
        {
            continue;
        }
        // opencode writes its own `.gitignore` (for its plugin packages) into a project's
        // `.opencode` folder when it finds one there.
        if skip_host_state && dir.ends_with(".opencode") && name == ".gitignore" {
            continue;
        }
        if path.is_dir() {
            walk(&path, out, skip_host_state);
        } else {
            out.insert(path, std::fs::read(entry.path()).unwrap_or_default());
        }
    }
}

/// The files that differ between two snapshots, by path (not their bytes, for a readable
/// failure).
pub fn assert_same_files(before: &Files, after: &Files) {
    let differ: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .map(|p| {
            format!(
                "{} ({})",
                p.display(),
                match (before.get(p), after.get(p)) {
                    (None, _) => "left behind".to_string(),
                    (_, None) => "removed".to_string(),
                    (_, Some(now)) => format!("changed: now {:?}", String::from_utf8_lossy(now)),
                }
            )
        })
        .collect();
    assert!(
        differ.is_empty(),
        "uninstall did not leave the files as they were:\n{}",
        differ.join("\n")
    );
}
