//! Where mcpick looks for files: the project (the working directory) and the user's
//! directories. One value, made from the real process by [`Places::system`] or by hand in
//! tests, answers for mcpick's own config ([`crate::config`]) and for every host's files
//! ([`crate::hosts`]), so neither of them needs the other to know where a file is.

use std::path::PathBuf;

/// The directories config and host files are found in.
#[derive(Debug, Clone, PartialEq)]
pub struct Places {
    /// The working directory: the project, and `${workspaceFolder}`.
    pub project: PathBuf,
    /// The home directory (`~/.claude.json`, `~/.cursor/mcp.json`, `${userHome}`).
    pub home: Option<PathBuf>,
    /// The OS's per-user config directory: `$XDG_CONFIG_HOME` or `~/.config` on Linux,
    /// `~/Library/Application Support` on macOS, `%APPDATA%` on Windows. Claude Desktop's
    /// file is in its `Claude` folder.
    pub config_dir: Option<PathBuf>,
    /// mcpick's own user config directory (`directories::ProjectDirs`).
    pub mcpick_dir: Option<PathBuf>,
    /// `$CODEX_HOME` when set (Codex's files live there instead of `~/.codex`).
    pub codex_home: Option<PathBuf>,
}

impl Places {
    /// The real working directory and the user's directories, as the `directories` crate sees
    /// them (it honours `HOME` and, on Linux, `XDG_CONFIG_HOME`), and the hosts' own
    /// environment variables.
    pub fn system() -> Self {
        let project = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let base = directories::BaseDirs::new();
        let dirs = directories::ProjectDirs::from("", "", "mcpick");
        Places {
            project,
            home: base.as_ref().map(|b| b.home_dir().to_path_buf()),
            config_dir: base.as_ref().map(|b| b.config_dir().to_path_buf()),
            mcpick_dir: dirs.map(|p| p.config_dir().to_path_buf()),
            codex_home: std::env::var_os("CODEX_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        }
    }

    /// Places for a home directory laid out as on Linux: `home/.config` is the config
    /// directory; no `$CODEX_HOME`. Used by tests.
    pub fn linux_like(project: impl Into<PathBuf>, home: impl Into<PathBuf>) -> Self {
        let home = home.into();
        let config_dir = home.join(".config");
        Places {
            project: project.into(),
            mcpick_dir: Some(config_dir.join("mcpick")),
            config_dir: Some(config_dir),
            home: Some(home),
            codex_home: None,
        }
    }
}

/// Overrides the user data directory (tests use it).
pub const DATA_DIR_ENV: &str = "MCPICK_DATA_DIR";

/// mcpick's per-user data directory: `$MCPICK_DATA_DIR`, else the OS's (`$XDG_DATA_HOME/mcpick`
/// on Linux). What only this user on this machine decided lives here (sign-ins, deliveries,
/// approvals), never in a project a repository could plant files in.
pub fn data_dir() -> Option<PathBuf> {
    match std::env::var_os(DATA_DIR_ENV) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => directories::ProjectDirs::from("", "", "mcpick").map(|d| d.data_dir().to_path_buf()),
    }
}
