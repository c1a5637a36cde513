//! Skills: a folder with a `SKILL.md` (frontmatter `name`, `description`, then instructions)
//! and supporting files, which servers publish as `skill://NAME/PATH` resources with a
//! `skill://NAME/_manifest` naming every file's path, size and SHA-256 (FastMCP ≥ 3,
//! SkillsDotNet; the MCP Skills extension returns the same manifest). A host that reads a
//! skills folder keeps only each skill's name and description in the model's context and
//! loads the rest when the model needs it, so a skill is handed on as a unit, verified.
//!
//! Here: what is a skill's URI ([`split`]), what names and paths may be written
//! ([`check_name`], [`check_path`]), the manifest and its limits ([`Manifest::parse`]), the
//! frontmatter ([`Frontmatter::parse`]) and a skill read whole and checked byte for byte
//! against its manifest ([`Skill::verified`]). [`fetch`] reads one from a server. Nothing here
//! writes a file or runs one: a skill's scripts are data to mcpick.

pub mod fetch;

use sha2::{Digest, Sha256};

/// The scheme skills are published under.
pub const SCHEME: &str = "skill://";
/// The file every skill has.
pub const MAIN: &str = "SKILL.md";
/// The manifest's last path segment.
pub const MANIFEST: &str = "_manifest";
/// The most files a skill may have (the Skills extension's limit).
pub const MAX_FILES: usize = 512;
/// The most bytes a skill's files may hold together (the Skills extension's limit).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// The longest skill name the skills format allows.
pub const MAX_NAME: usize = 64;
/// The longest file path mcpick writes inside a skill folder.
const MAX_PATH: usize = 1024;

/// `skill://NAME/PATH` as (NAME, PATH) when NAME is a valid skill name and PATH is not
/// empty; anything else is not a skill's resource.
pub fn split(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix(SCHEME)?;
    let (name, path) = rest.split_once('/')?;
    (check_name(name).is_ok() && !path.is_empty()).then_some((name, path))
}

/// The URI prefix that holds every file of skill `name`: a mark on it marks the skill whole.
pub fn prefix(name: &str) -> String {
    format!("{SCHEME}{name}/")
}

/// The skill a mark's URI names, as its prefix: `skill://NAME`, `skill://NAME/` or any file
/// of it (`skill://NAME/SKILL.md`) all mean the whole skill.
pub fn unit_of(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix(SCHEME)?;
    let name = rest.split('/').next()?;
    check_name(name).ok()?;
    Some(prefix(name))
}

/// A skill name as the skills format allows it: 1 to 64 lowercase ASCII letters, digits and
/// hyphens, not starting or ending with a hyphen, no two in a row. It becomes a folder name.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{}` is not a skill name (1 to {MAX_NAME} lowercase letters, digits and single hyphens)",
            crate::sanitize::line(name, 80)
        ))
    }
}

/// A file path inside a skill folder, as mcpick will write it: relative, `/`-separated, every
/// segment a plain name (no `..`, `.`, empty segment, backslash, NUL or control character),
/// at most 1,024 bytes. A path that passes cannot leave the folder by its text; links are
/// the writer's to refuse.
pub fn check_path(path: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "the file path `{}` {why}",
            crate::sanitize::line(path, 200)
        ))
    };
    if path.is_empty() {
        return bad("is empty");
    }
    if path.len() > MAX_PATH {
        return bad("is longer than 1,024 bytes");
    }
    if path.starts_with('/') {
        return bad("is absolute");
    }
    if path.chars().any(|c| c == '\\' || c.is_control()) {
        return bad("holds a backslash or a control character");
    }
    for segment in path.split('/') {
        match segment {
            "" => return bad("has an empty segment"),
            "." | ".." => return bad("leaves its folder (`.` or `..`)"),
            s if s.len() > 255 => return bad("has a segment longer than 255 bytes"),
            _ => {}
        }
    }
    if path == MANIFEST {
        return bad("is the manifest's own name");
    }
    Ok(())
}

/// One file the manifest lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub path: String,
    pub size: u64,
    pub sha256: [u8; 32],
}

/// A skill's manifest, checked: its name, every path ([`check_path`]) once, `SKILL.md` among
/// them, at most [`MAX_FILES`] files and [`MAX_BYTES`] together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub skill: String,
    pub files: Vec<Listed>,
}

impl Manifest {
    /// The manifest `text` of the skill published as `name`.
    pub fn parse(name: &str, text: &str) -> Result<Manifest, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("its manifest is not JSON: {e}"))?;
        if let Some(skill) = value.get("skill").and_then(|s| s.as_str())
            && skill != name
        {
            return Err(format!(
                "its manifest names another skill, `{}`",
                crate::sanitize::line(skill, 80)
            ));
        }
        let files = value
            .get("files")
            .and_then(|f| f.as_array())
            .ok_or("its manifest has no `files` list")?;
        if files.len() > MAX_FILES {
            return Err(format!(
                "its manifest lists {} files, over the {MAX_FILES} a skill may have",
                files.len()
            ));
        }
        let mut listed: Vec<Listed> = Vec::with_capacity(files.len());
        let mut total: u64 = 0;
        for (n, file) in files.iter().enumerate() {
            let path = file
                .get("path")
                .and_then(|p| p.as_str())
                .ok_or_else(|| format!("its manifest's file {n} has no path"))?;
            check_path(path)?;
            let size = file
                .get("size")
                .and_then(|s| s.as_u64())
                .ok_or_else(|| format!("its manifest's file {n} has no size"))?;
            let hash = file
                .get("hash")
                .and_then(|h| h.as_str())
                .and_then(|h| h.strip_prefix("sha256:"))
                .and_then(hex32)
                .ok_or_else(|| format!("its manifest's file {n} has no `sha256:` hash"))?;
            if listed.iter().any(|l| l.path == path) {
                return Err(format!(
                    "its manifest lists `{}` twice",
                    crate::sanitize::line(path, 200)
                ));
            }
            total = total.saturating_add(size);
            if total > MAX_BYTES {
                return Err(format!(
                    "its files hold over {} MiB, the most a skill may",
                    MAX_BYTES >> 20
                ));
            }
            listed.push(Listed {
                path: path.to_string(),
                size,
                sha256: hash,
            });
        }
        // One path may not be both a file and a folder (`a` and `a/b`): it could not be written.
        for l in &listed {
            if listed
                .iter()
                .any(|o| o.path.starts_with(&format!("{}/", l.path)))
            {
                return Err(format!(
                    "its manifest lists `{}` as a file and as a folder",
                    crate::sanitize::line(&l.path, 200)
                ));
            }
        }
        if !listed.iter().any(|l| l.path == MAIN) {
            return Err(format!("its manifest does not list {MAIN}"));
        }
        Ok(Manifest {
            skill: name.to_string(),
            files: listed,
        })
    }

    /// The bytes its files hold together.
    pub fn total(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

fn hex32(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// Lowercase hex of a SHA-256.
pub fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `SKILL.md`'s frontmatter: what a host keeps in the model's context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter {
    pub name: Option<String>,
    pub description: String,
    /// The block itself, `---` lines included: what the budget counts for a skill a host reads.
    pub text: String,
}

impl Frontmatter {
    /// The frontmatter of `skill_md` (a `---` line, `key: value` lines, a `---` line), or
    /// `None` when it has none or no description.
    pub fn parse(skill_md: &str) -> Option<Frontmatter> {
        let rest = skill_md
            .strip_prefix("---\n")
            .or_else(|| skill_md.strip_prefix("---\r\n"))?;
        let mut end = None;
        let mut at = 0;
        for line in rest.split_inclusive('\n') {
            if line.trim_end() == "---" {
                end = Some(at + line.len());
                break;
            }
            at += line.len();
        }
        let end = end?;
        let body = &rest[..at];
        let field = |key: &str| {
            body.lines().find_map(|l| {
                let value = l.strip_prefix(key)?.strip_prefix(':')?.trim();
                let value = value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                    .unwrap_or(value);
                Some(value.to_string())
            })
        };
        let description = field("description").filter(|d| !d.is_empty())?;
        Some(Frontmatter {
            name: field("name"),
            description,
            text: skill_md[..skill_md.len() - rest.len() + end].to_string(),
        })
    }
}

/// Front-matter keys no host acts on: the Agent Skills standard's descriptive fields (`name`,
/// `description`, `license`, `compatibility`, `metadata`), and text the model reads like a
/// description (Claude Code's `argument-hint`, Qwen Code's `when_to_use`). Every other key may
/// change what a host does with the skill: Claude Code runs its `hooks`' commands, lets
/// `allowed-tools` run without asking, and honours `model`, `context`, `agent`,
/// `disable-model-invocation` and `user-invocable`; Copilot CLI 1.0.102 reads `allowed-tools`,
/// `disable-model-invocation` and `user-invocable`; Qwen Code 0.24 reads `hooks`,
/// `allowed-tools`, `tools`, `disallowedTools`, `mcpServers`, `model`, `permissionMode`,
/// `approvalMode`, `maxTurns`, `runConfig` (found in their bundles). A list of what is known
/// to be inert, not of what is known to act, so a key a host adds next month is held back
/// until someone looks at it.
pub const INERT_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "argument-hint",
    "when_to_use",
];

/// Files of a skill a host reads as settings, not as text: Codex's `agents/openai.yaml`
/// (the skill's tool dependencies and invocation policy).
pub const SETTINGS_FILES: &[&str] = &["agents/openai.yaml"];

impl Frontmatter {
    /// What in the frontmatter may carry behaviour into a host: each top-level key not in
    /// [`INERT_KEYS`] (as written, cleaned), and `line N` for a line that is not a plain
    /// `key: value`, a comment or an indented or `- ` continuation (YAML's other forms, such
    /// as `? key`, `<<: *anchor` or a flow mapping, can name any key).
    pub fn behaviour(&self) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        let body = self.text.lines().skip(1);
        for (n, line) in body.enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim_end() == "---" {
                break;
            }
            let continuation = line.starts_with([' ', '\t', '-', '#']) || line.trim().is_empty();
            if continuation {
                continue;
            }
            let key = line.split_once(':').map(|(k, _)| k.trim_end());
            let key = key.map(|k| {
                k.strip_prefix('"')
                    .and_then(|k| k.strip_suffix('"'))
                    .or_else(|| k.strip_prefix('\'').and_then(|k| k.strip_suffix('\'')))
                    .unwrap_or(k)
            });
            let plain = key.filter(|k| {
                !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            });
            let what = match plain {
                Some(k) if INERT_KEYS.contains(&k) => continue,
                Some(k) => format!("`{k}`"),
                None => format!("line {} (`{}`)", n + 2, crate::sanitize::line(line, 60)),
            };
            if !found.contains(&what) {
                found.push(what);
            }
        }
        found
    }
}

/// A skill read whole and every file checked against its manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub server: String,
    pub name: String,
    pub frontmatter: Frontmatter,
    /// Every file in the manifest's order, with its bytes exactly as served.
    pub files: Vec<(String, Vec<u8>)>,
}

impl Skill {
    /// The skill `name` of `server` from its manifest and the bytes read for each file it
    /// lists: refused whole when a file is missing, or its size or SHA-256 is not the
    /// manifest's, or `SKILL.md` has no frontmatter naming this skill with a description.
    pub fn verified(
        server: &str,
        manifest: &Manifest,
        read: Vec<(String, Vec<u8>)>,
    ) -> Result<Skill, String> {
        let mut files = Vec::with_capacity(manifest.files.len());
        for listed in &manifest.files {
            let bytes = read
                .iter()
                .find(|(p, _)| *p == listed.path)
                .map(|(_, b)| b)
                .ok_or_else(|| {
                    format!(
                        "`{}` was not read",
                        crate::sanitize::line(&listed.path, 200)
                    )
                })?;
            mismatch(listed, bytes)?;
            files.push((listed.path.clone(), bytes.clone()));
        }
        let main = files
            .iter()
            .find(|(p, _)| p == MAIN)
            .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        let frontmatter = Frontmatter::parse(&main)
            .ok_or_else(|| format!("its {MAIN} has no frontmatter with a description"))?;
        if let Some(n) = &frontmatter.name
            && n != &manifest.skill
        {
            return Err(format!(
                "its {MAIN} names another skill, `{}`",
                crate::sanitize::line(n, 80)
            ));
        }
        Ok(Skill {
            server: server.to_string(),
            name: manifest.skill.clone(),
            frontmatter,
            files,
        })
    }

    /// What in it may carry behaviour into a host ([`Frontmatter::behaviour`], and each
    /// of [`SETTINGS_FILES`] it holds): handed on only with the user's yes at its digest.
    pub fn behaviour(&self) -> Vec<String> {
        let mut found = self.frontmatter.behaviour();
        for (path, _) in &self.files {
            if SETTINGS_FILES.contains(&path.as_str()) {
                found.push(format!("the file `{path}`"));
            }
        }
        found
    }

    /// One SHA-256 for the skill as served: every file's path and bytes, in the manifest's
    /// order. What the user's yes is for: any change of any file is another digest.
    pub fn digest(&self) -> String {
        let mut all = Sha256::new();
        for (path, bytes) in &self.files {
            all.update(path.as_bytes());
            all.update([0]);
            all.update(Sha256::digest(bytes));
        }
        hex(&all.finalize())
    }

    /// The bytes its files hold together.
    pub fn total(&self) -> usize {
        self.files.iter().map(|(_, b)| b.len()).sum()
    }
}

/// Why `bytes` are not the file `listed` names, if they are not.
pub fn mismatch(listed: &Listed, bytes: &[u8]) -> Result<(), String> {
    let path = crate::sanitize::line(&listed.path, 200);
    if bytes.len() as u64 != listed.size {
        return Err(format!(
            "`{path}` is {} bytes, its manifest says {}",
            bytes.len(),
            listed.size
        ));
    }
    let digest = Sha256::digest(bytes);
    if digest.as_slice() != listed.sha256 {
        return Err(format!(
            "`{path}` has SHA-256 {}, its manifest says {}",
            hex(&digest),
            hex(&listed.sha256)
        ));
    }
    Ok(())
}

/// A skill of a server as it reached mcpick: verified, or refused with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub server: String,
    pub name: String,
    pub outcome: Result<Skill, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest_of(files: &[(&str, &[u8])]) -> String {
        let files: Vec<serde_json::Value> = files
            .iter()
            .map(|(p, b)| {
                serde_json::json!({
                    "path": p, "size": b.len(),
                    "hash": format!("sha256:{}", hex(&Sha256::digest(b)))
                })
            })
            .collect();
        serde_json::json!({"skill": "pdf-forms", "files": files}).to_string()
    }

    const MAIN_MD: &[u8] = b"---\nname: pdf-forms\ndescription: Fill PDF forms.\n---\n\nBody.\n";

    /// Only keys known to be inert pass; every other key, and any line that is not a plain
    /// `key: value` (YAML can name a key many ways), is said; continuations are not keys.
    #[test]
    fn frontmatter_keys_that_may_act_are_found() {
        let keys = |front: &str| {
            Frontmatter::parse(&format!("---\ndescription: d\n{front}---\nbody\n"))
                .unwrap()
                .behaviour()
        };
        assert!(keys("name: x\nlicense: MIT\nmetadata:\n  hooks: not top level\n  a: b\n# hooks: a comment\n\nargument-hint: '[file]'\n").is_empty());
        assert_eq!(keys("allowed-tools: Bash\n"), ["`allowed-tools`"]);
        assert_eq!(
            keys(
                "hooks:\n  PreToolUse:\n    - matcher: Bash\n- x\nmodel: opus\n\"context\": fork\n"
            ),
            ["`hooks`", "`model`", "`context`"]
        );
        // A key written another way is a line that may act.
        for odd in ["? hooks\n: x\n", "<<: *a\n", "{hooks: x}\n", "hooks\n"] {
            let found = keys(odd);
            assert!(
                !found.is_empty() && found.iter().all(|f| f.starts_with("line ")),
                "{odd:?}: {found:?}"
            );
        }
        // A settings file Codex reads is named too.
        let main = "---\nname: s\ndescription: d\n---\n";
        let skill = Skill {
            server: "x".into(),
            name: "s".into(),
            frontmatter: Frontmatter::parse(main).unwrap(),
            files: vec![
                ("SKILL.md".into(), main.into()),
                ("agents/openai.yaml".into(), b"x".to_vec()),
            ],
        };
        assert_eq!(skill.behaviour(), ["the file `agents/openai.yaml`"]);
        let mut other = skill.clone();
        other.files[1].1 = b"y".to_vec();
        assert_ne!(
            skill.digest(),
            other.digest(),
            "any byte is another version"
        );
    }

    #[test]
    fn skill_uris_names_and_units() {
        assert_eq!(
            split("skill://pdf-forms/SKILL.md"),
            Some(("pdf-forms", "SKILL.md"))
        );
        assert_eq!(
            split("skill://pdf-forms/a/b.py"),
            Some(("pdf-forms", "a/b.py"))
        );
        assert_eq!(split("skill://PDF/SKILL.md"), None);
        assert_eq!(split("skill://pdf-forms"), None);
        assert_eq!(split("file:///x/SKILL.md"), None);
        assert_eq!(
            unit_of("skill://pdf-forms").as_deref(),
            Some("skill://pdf-forms/")
        );
        assert_eq!(
            unit_of("skill://pdf-forms/SKILL.md").as_deref(),
            Some("skill://pdf-forms/")
        );
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "A",
            "a_b",
            "a.b",
            "..",
            &"a".repeat(65),
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_name(&"a".repeat(64)).is_ok());
    }

    #[test]
    fn paths_that_leave_the_folder_are_refused() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a/./b",
            "a//b",
            "a\\b",
            "a\0b",
            "a\nb",
            "_manifest",
        ] {
            assert!(check_path(bad).is_err(), "{bad:?}");
        }
        for good in ["SKILL.md", "scripts/fill.py", ".hidden", "a..b/c"] {
            assert!(check_path(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn a_manifest_is_checked_and_files_are_verified_byte_for_byte() {
        let files: [(&str, &[u8]); 2] = [("SKILL.md", MAIN_MD), ("scripts/fill.py", b"print(1)\n")];
        let m = Manifest::parse("pdf-forms", &manifest_of(&files)).unwrap();
        assert_eq!(m.files.len(), 2);
        let read = |tamper: bool| -> Vec<(String, Vec<u8>)> {
            files
                .iter()
                .map(|(p, b)| {
                    let mut b = b.to_vec();
                    if tamper && *p == "scripts/fill.py" {
                        b[0] = b'P';
                    }
                    (p.to_string(), b)
                })
                .collect()
        };
        let skill = Skill::verified("s", &m, read(false)).unwrap();
        assert_eq!(skill.frontmatter.description, "Fill PDF forms.");
        assert_eq!(skill.frontmatter.name.as_deref(), Some("pdf-forms"));
        assert!(skill.frontmatter.text.ends_with("---\n"));
        assert!(!skill.frontmatter.text.contains("Body"));
        let why = Skill::verified("s", &m, read(true)).unwrap_err();
        assert!(
            why.contains("scripts/fill.py") && why.contains("SHA-256"),
            "{why}"
        );
        let mut short = read(false);
        short[1].1.push(b'\n');
        assert!(
            Skill::verified("s", &m, short)
                .unwrap_err()
                .contains("bytes")
        );
        assert!(
            Skill::verified("s", &m, read(false)[..1].to_vec())
                .unwrap_err()
                .contains("not read")
        );
    }

    #[test]
    fn manifests_over_the_limits_or_with_bad_paths_are_refused() {
        assert!(Manifest::parse("pdf-forms", &manifest_of(&[("../x", b"x")])).is_err());
        assert!(
            Manifest::parse("pdf-forms", &manifest_of(&[("x.md", b"x")]))
                .unwrap_err()
                .contains("SKILL.md")
        );
        assert!(Manifest::parse("other", &manifest_of(&[("SKILL.md", MAIN_MD)])).is_err());
        let many: Vec<(String, &[u8])> = (0..=MAX_FILES)
            .map(|n| (format!("f{n}"), b"x" as &[u8]))
            .collect();
        let many: Vec<(&str, &[u8])> = many.iter().map(|(p, b)| (p.as_str(), *b)).collect();
        assert!(
            Manifest::parse("pdf-forms", &manifest_of(&many))
                .unwrap_err()
                .contains("512")
        );
        let big = serde_json::json!({"skill": "pdf-forms", "files": [
            {"path": "SKILL.md", "size": MAX_BYTES + 1, "hash": format!("sha256:{}", "0".repeat(64))}
        ]});
        assert!(
            Manifest::parse("pdf-forms", &big.to_string())
                .unwrap_err()
                .contains("MiB")
        );
        let both = manifest_of(&[("SKILL.md", MAIN_MD), ("a", b"x"), ("a/b", b"y")]);
        assert!(Manifest::parse("pdf-forms", &both).is_err());
    }
}
