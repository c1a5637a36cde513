//! Relative paths in a set's server definitions. `mcpick pin -- ./server.sh` means "the
//! script here"; a set is used from other folders (it is committed, shared), so the set
//! stores such paths relative to *its own folder*, and they are resolved against that folder
//! when connecting.
//!
//! What counts as a path (stdio definitions only; HTTP definitions have none):
//!
//! - `cwd`, when it is relative;
//! - without `cwd`: the command when it starts with `./` or `../` (a bare name is looked up on
//!   `PATH` and left alone); an argument when it starts with `./` or `../`, or when it names
//!   an existing file relative to the working directory (`node srv.js`). Options (`-x`,
//!   `--flag=./value`), absolute paths, URLs and text with a placeholder are left alone;
//! - with `cwd`: the command and arguments are relative to that folder (the server runs
//!   there) and are left alone; only `cwd` moves.
//!
//! In the file, such a path is written `./…` or `../…` from the set's folder; when loading,
//! every `./…`/`../…` command, argument and relative `cwd` is resolved against that folder.
//!
//! A set's stdio server that names no `cwd` runs in the set's folder, not in whatever folder
//! the command using the set was started in: its approval is kept for that folder, and the
//! files its command line reaches without a `./` (`python3 -m srvmod`, `node srv.js`) must be
//! the ones of the project that was approved, not another clone's (issue 42, item 6).

use std::path::{Component, Path, PathBuf};

use crate::mcp::TransportSpec;

/// The form a set stores for a definition given relative to `cwd`: its paths relative to
/// `folder` (the set's folder). Both folders are absolute.
pub fn to_set_relative(spec: &TransportSpec, cwd: &Path, folder: &Path) -> TransportSpec {
    let TransportSpec::Stdio {
        command,
        args,
        env,
        cwd: server_cwd,
    } = spec
    else {
        return spec.clone();
    };
    let rebase = |p: &str| rebased(&cwd.join(p), folder);
    let (command, args) = if server_cwd.is_some() {
        (command.clone(), args.clone())
    } else {
        let command = if dotted(command) {
            rebase(command)
        } else {
            command.clone()
        };
        let args = args
            .iter()
            .map(|a| {
                if dotted(a) || (plain(a) && cwd.join(a).is_file()) {
                    rebase(a)
                } else {
                    a.clone()
                }
            })
            .collect();
        (command, args)
    };
    let server_cwd = server_cwd.as_ref().map(|c| match c.to_str() {
        Some(s) if c.is_relative() && !s.contains("${") => PathBuf::from(rebase(s)),
        _ => c.clone(),
    });
    TransportSpec::Stdio {
        command,
        args,
        env: env.clone(),
        cwd: server_cwd,
    }
}

/// The definition to connect with: every `./…`/`../…` command and argument, and a relative
/// `cwd`, resolved against `folder` (the set's folder); without a `cwd`, it runs in `folder`.
pub fn from_set_relative(spec: &TransportSpec, folder: &Path) -> TransportSpec {
    let TransportSpec::Stdio {
        command,
        args,
        env,
        cwd,
    } = spec
    else {
        return spec.clone();
    };
    let resolve = |p: &str| normalise(&folder.join(p)).to_string_lossy().into_owned();
    let (command, args) = if cwd.is_some() {
        (command.clone(), args.clone())
    } else {
        (
            if dotted(command) {
                resolve(command)
            } else {
                command.clone()
            },
            args.iter()
                .map(|a| if dotted(a) { resolve(a) } else { a.clone() })
                .collect(),
        )
    };
    let cwd = Some(match cwd {
        Some(c) if c.is_relative() => normalise(&folder.join(c)),
        Some(c) => c.clone(),
        None => normalise(folder),
    });
    TransportSpec::Stdio {
        command,
        args,
        env: env.clone(),
        cwd,
    }
}

/// `./x` or `../x` (or `.`/`..` alone).
fn dotted(s: &str) -> bool {
    s == "." || s == ".." || s.starts_with("./") || s.starts_with("../")
}

/// Could be a file name: not an option, not absolute, no URL scheme, no placeholder.
fn plain(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.starts_with('/')
        && !s.contains("://")
        && !s.contains("${")
}

/// `path` (absolute) written relative to `folder` (absolute), as `./…` or `../…`.
fn rebased(path: &Path, folder: &Path) -> String {
    let path = normalise(path);
    let folder = normalise(folder);
    let a: Vec<Component> = path.components().collect();
    let b: Vec<Component> = folder.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &a[common..] {
        out.push(c.as_os_str());
    }
    let text = out.to_string_lossy().into_owned();
    if text.is_empty() {
        ".".to_string()
    } else if text.starts_with("..") {
        text
    } else {
        format!("./{text}")
    }
}

/// Removes `.` and resolves `..` lexically.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str, args: &[&str], cwd: Option<&str>) -> TransportSpec {
        TransportSpec::Stdio {
            command: command.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            env: Default::default(),
            cwd: cwd.map(PathBuf::from),
        }
    }

    #[test]
    fn stored_relative_to_the_set_and_resolved_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("work/sets")).unwrap();
        std::fs::write(root.join("work/srv.js"), "").unwrap();
        let cwd = root.join("work");
        let folder = root.join("work/sets");
        let given = stdio(
            "./server.sh",
            &["srv.js", "--flag", "./data", "-x=./y", "plain-name", "/abs"],
            None,
        );
        let stored = to_set_relative(&given, &cwd, &folder);
        assert_eq!(
            stored,
            stdio(
                "../server.sh",
                &[
                    "../srv.js",
                    "--flag",
                    "../data",
                    "-x=./y",
                    "plain-name",
                    "/abs"
                ],
                None
            )
        );
        let back = from_set_relative(&stored, &folder);
        let w = cwd.to_string_lossy();
        assert_eq!(
            back,
            stdio(
                &format!("{w}/server.sh"),
                &[
                    &format!("{w}/srv.js"),
                    "--flag",
                    &format!("{w}/data"),
                    "-x=./y",
                    "plain-name",
                    "/abs"
                ],
                Some(&folder.to_string_lossy())
            ),
            "without a cwd, it runs in the set's folder"
        );
        // The set in the working directory: `./x` stays `./x`.
        let here = to_set_relative(&stdio("./s.sh", &[], None), &cwd, &cwd);
        assert_eq!(here, stdio("./s.sh", &[], None));
        // A bare command on PATH is not a path.
        let node = to_set_relative(&stdio("node", &["-e", "1"], None), &cwd, &folder);
        assert_eq!(node, stdio("node", &["-e", "1"], None));
        // With a cwd, only the cwd moves.
        let with_cwd = to_set_relative(&stdio("./s.sh", &["./a"], Some("srv")), &cwd, &folder);
        assert_eq!(with_cwd, stdio("./s.sh", &["./a"], Some("../srv")));
        assert_eq!(
            from_set_relative(&with_cwd, &folder),
            stdio("./s.sh", &["./a"], Some(&format!("{w}/srv")))
        );
    }
}
