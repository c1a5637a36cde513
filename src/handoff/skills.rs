//! Skills handed to a host as skills: a pinned skill's files, read whole and verified against
//! the server's manifest ([`crate::skills`]), written byte for byte into the skills folder the
//! host's profile names ([`SkillsFolder`]), where the host keeps only the skill's name and
//! description in the model's context and loads the rest on demand. Such a skill is not also
//! inlined in the session-start text ([`partition`]).
//!
//! Safe by construction: the folder is derived from the profile, scope and places alone and
//! checked to stay inside the project (or home) through no link ([`fsio::inside`]); a skill
//! folder mcpick did not write is never replaced; a skill is staged whole and swapped in;
//! what was written (each file's SHA-256) is recorded, so `uninstall` takes back exactly that.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::profile::{MidSession, SkillsFolder};
use super::profiles;
use crate::context::{Candidate, Preview};
use crate::fsio;
use crate::hosts::{Host, Places, Scope};
use crate::skills::{self, Fetched, Skill};

impl SkillsFolder {
    /// Said where the host's skills are shown, when it lists them by name only.
    pub fn names_only_note(&self) -> Option<String> {
        self.names_only.then(|| {
            format!(
                "{} lists skills by name only: a skill's description does not reach its model, which reads the skill when it asks for it by name (measured)",
                self.host.dialect().host_name
            )
        })
    }

    /// What a running session does with a skill written since it started, in a few words.
    pub fn mid_session_note(&self) -> String {
        let host = self.host.dialect().host_name;
        match self.mid_session {
            MidSession::NextTurn => {
                format!(
                    "a skill written while a {host} session runs is listed on its next turn (measured)"
                )
            }
            MidSession::Command(command) => format!(
                "a running {host} session lists the skills it found when it started: run `{command}` in it to list a skill written since (measured)"
            ),
            MidSession::NewSession => format!(
                "a running {host} session lists the skills it found when it started: a new session lists a skill written since (measured)"
            ),
        }
    }
}

impl SkillsFolder {
    /// The folder for `scope`, and the folder it must stay inside: the project; for a user
    /// install the home folder, or the host's own folder when it lives elsewhere
    /// (`$CODEX_HOME`, `$XDG_CONFIG_HOME`).
    pub fn root(
        &self,
        scope: Scope,
        project: &Path,
        places: &Places,
    ) -> Result<(PathBuf, PathBuf), String> {
        match scope {
            Scope::Project => Ok((project.join(self.project), project.to_path_buf())),
            Scope::User => {
                let folder = (self.user)(places)
                    .ok_or_else(|| "cannot tell where the home directory is".to_string())?;
                let inside = match &places.home {
                    Some(home) if folder.starts_with(home) => home.clone(),
                    _ => folder.parent().unwrap_or(&folder).to_path_buf(),
                };
                Ok((folder, inside))
            }
        }
    }
}

/// One file mcpick wrote into a skill folder.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PlacedFile {
    pub path: String,
    /// Its SHA-256, lowercase hex: `uninstall` removes it only while it still has it.
    pub sha256: String,
}

/// One skill mcpick wrote into a host's skills folder.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Placed {
    pub server: String,
    pub name: String,
    pub folder: PathBuf,
    pub files: Vec<PlacedFile>,
    /// In a project that is a git repository: the line in `.git/info/exclude` that keeps the
    /// folder out of git (the server's files are not the project's to commit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<super::lines::Added>,
}

/// The `.git/info/exclude` line for skill folder `folder` of `project`, when the project is a
/// git repository and the folder is in it.
pub fn exclude_line(project: &Path, folder: &Path) -> Option<(PathBuf, String)> {
    if !project.join(".git").is_dir() {
        return None;
    }
    let rel = folder.strip_prefix(project).ok()?;
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some((
        project.join(".git").join("info").join("exclude"),
        format!("/{}/\n", rel.join("/")),
    ))
}

/// A skill the host gets as a skill, for the preview and messages.
#[derive(Debug, Clone, PartialEq)]
pub struct AsSkill {
    pub server: String,
    pub name: String,
    pub description: String,
    /// What the model's context holds of it: its frontmatter, counted.
    pub tokens: u64,
    pub files: usize,
    pub bytes: usize,
    /// What in it may carry behaviour into a host ([`Skill::behaviour`]): handed on only
    /// because the user accepted it at this version ([`gate`]).
    pub behaviour: Vec<String>,
}

/// The skills `preview` hands on whole: each skill it includes a file of and excludes none
/// of (a skill with a file excluded by hand travels as resources), as (the index of one of
/// its included candidates, its name), once each.
pub fn wanted<'c>(preview: &Preview, candidates: &[Candidate<'c>]) -> Vec<(usize, &'c str)> {
    let mut excluded: Vec<(&str, &str)> = Vec::new();
    for l in &preview.left_out {
        let c = &candidates[l.index as usize];
        if l.reason == crate::context::Reason::Excluded
            && let Some((name, _)) = skills::split(c.uri())
        {
            excluded.push((c.server, name));
        }
    }
    let mut wanted: Vec<(usize, &'c str)> = Vec::new();
    for i in &preview.included {
        let c = &candidates[i.index];
        if let Some((name, _)) = skills::split(c.uri())
            && !excluded.contains(&(c.server, name))
            && !wanted
                .iter()
                .any(|&(w, n)| n == name && candidates[w].server == c.server)
        {
            wanted.push((i.index, name));
        }
    }
    wanted
}

/// `preview` without the files of the skills that go to the host as skills (verified, or
/// refused: a refused skill reaches the model neither way), what goes as a skill, and why a
/// skill was refused (a warning each).
pub fn partition(
    preview: &Preview,
    candidates: &[Candidate],
    fetched: &[Fetched],
) -> (Preview, Vec<AsSkill>, Vec<String>) {
    let handled = |c: &Candidate| {
        skills::split(c.uri()).and_then(|(name, _)| {
            fetched
                .iter()
                .find(|f| f.server == c.server && f.name == name)
        })
    };
    let mut inline = preview.clone();
    inline
        .included
        .retain(|i| handled(&candidates[i.index]).is_none());
    let included: Vec<&Fetched> = fetched
        .iter()
        .filter(|f| {
            preview
                .included
                .iter()
                .any(|i| handled(&candidates[i.index]).is_some_and(|h| std::ptr::eq(h, *f)))
        })
        .collect();
    let (as_skills, refused) = hand_on(&included, |text| preview.tokenizer.count(text));
    inline.total_tokens = inline.included.iter().map(|i| i.tokens).sum::<u64>()
        + as_skills.iter().map(|s| s.tokens).sum::<u64>();
    (inline, as_skills, refused)
}

/// What goes on as a skill of the skills a preview includes (`count` counts a frontmatter's
/// tokens), and why the others do not, a line each: a refusal, or a second skill of a name
/// (a host lists one skill per name, so only the first server's goes on).
fn hand_on(included: &[&Fetched], count: impl Fn(&str) -> u64) -> (Vec<AsSkill>, Vec<String>) {
    let mut as_skills: Vec<AsSkill> = Vec::new();
    let mut refused = Vec::new();
    for f in included {
        if let Ok(skill) = &f.outcome
            && let Some(first) = as_skills.iter().find(|s| s.name == skill.name)
        {
            refused.push(format!(
                "skill `{}` of `{}` not delivered: `{}` publishes a skill of the same name, and a host lists one skill per name (exclude one of them)",
                f.name,
                crate::sanitize::line(&f.server, 200),
                crate::sanitize::line(&first.server, 200)
            ));
            continue;
        }
        match &f.outcome {
            Ok(skill) => as_skills.push(AsSkill {
                server: skill.server.clone(),
                name: skill.name.clone(),
                description: crate::sanitize::line(&skill.frontmatter.description, 1024),
                tokens: count(&skill.frontmatter.text),
                files: skill.files.len(),
                bytes: skill.total(),
                behaviour: skill.behaviour(),
            }),
            Err(why) => refused.push(format!(
                "skill `{}` of `{}` refused, not delivered: {why}",
                f.name,
                crate::sanitize::line(&f.server, 200)
            )),
        }
    }
    (as_skills, refused)
}

/// The project a set's skills are accepted for: the set's folder (links resolved), else the
/// working directory.
pub fn project_of(set_folder: Option<&Path>) -> PathBuf {
    let folder = set_folder
        .map(Path::to_path_buf)
        .unwrap_or_else(|| Places::system().project);
    std::fs::canonicalize(&folder).unwrap_or(folder)
}

/// What the user's yes ([`crate::config::skill_trust`]) says of one verified skill.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Accepted at this digest: handed on.
    Accepted,
    /// Never seen here and nothing in it carries behaviour: handed on, and accepted as it is
    /// (pinning it was the yes).
    FirstSight,
    /// Waits for the user: why, in words.
    Held(String),
}

/// The verdict on `skill` (its `behaviour` and `digest` given) from its record.
pub fn verdict(
    behaviour: &[String],
    digest: &str,
    record: Option<&crate::config::skill_trust::SkillRecord>,
) -> Verdict {
    use crate::config::skill_trust::HOW_TO_ACCEPT;
    match record.and_then(|r| r.accepted.as_ref()) {
        Some(accepted) if accepted.digest == digest => Verdict::Accepted,
        Some(_) => Verdict::Held(format!(
            "its files changed on the server since you accepted it{}: it waits for you (review and accept it with `{HOW_TO_ACCEPT}`); a copy written before is kept as it was",
            if behaviour.is_empty() {
                String::new()
            } else {
                format!(", and it now carries {}", behaviour.join(", "))
            }
        )),
        None if behaviour.is_empty() => Verdict::FirstSight,
        None => Verdict::Held(format!(
            "its SKILL.md carries {} (frontmatter that can make a host run commands or tools without asking): not handed on until you accept it at this version with `{HOW_TO_ACCEPT}`",
            behaviour.join(", ")
        )),
    }
}

/// The user's yes applied to `fetched` for the set's `project`: each verified skill not
/// accepted at its digest becomes a refusal saying why ([`verdict`]), so no front end hands
/// it on and a copy written before stays as it was ([`place`] keeps a refused skill's earlier
/// copy). A skill seen for the first time with nothing that carries behaviour is accepted as
/// it is; a held one is remembered for `mcpick trust --skills` to show. Without a user data
/// directory nothing can be accepted, so only what needs no yes passes.
pub fn gate(fetched: &mut [Fetched], project: &Path) {
    use crate::config::skill_trust::{SkillApprovals, Store, Version};
    let store = Store::system();
    let (approvals, unreadable) = match store.as_ref().map(Store::load) {
        Some(Ok(a)) => (a, None),
        Some(Err(why)) => (SkillApprovals::default(), Some(why)),
        None => (
            SkillApprovals::default(),
            Some("no user data directory to keep your yes in".to_string()),
        ),
    };
    let mut accept = Vec::new();
    let mut hold = Vec::new();
    for f in fetched.iter_mut() {
        let Ok(skill) = &f.outcome else { continue };
        let behaviour = skill.behaviour();
        let digest = skill.digest();
        let version = Version {
            digest: digest.clone(),
            behaviour: behaviour.clone(),
            frontmatter: skill.frontmatter.text.chars().take(8192).collect(),
            why: String::new(),
        };
        match verdict(
            &behaviour,
            &digest,
            approvals.get(project, &f.server, &f.name),
        ) {
            Verdict::Accepted => {}
            Verdict::FirstSight => accept.push((f.server.clone(), f.name.clone(), version)),
            Verdict::Held(why) => {
                let why = match &unreadable {
                    Some(store) => format!("{why} ({store})"),
                    None => why,
                };
                hold.push((
                    f.server.clone(),
                    f.name.clone(),
                    Version {
                        why: why.clone(),
                        ..version
                    },
                ));
                f.outcome = Err(why);
            }
        }
    }
    if unreadable.is_some() || (accept.is_empty() && hold.is_empty()) {
        return;
    }
    if let Some(store) = store {
        let _ = store.change_with(|a| {
            let mut changed = false;
            for (server, name, version) in accept.drain(..) {
                changed |= a.accept(project, &server, &name, version);
            }
            for (server, name, version) in hold.drain(..) {
                changed |= a.hold(project, &server, &name, version);
            }
            ((), changed)
        });
    }
}

/// The skills of `as_skills` that `host` would not list because a folder of the same name
/// that is not this skill is already where it reads skills: the user's own skill in its
/// project or user folder (one this delivery did not write, `placed`, and whose `SKILL.md`
/// is not the one served). They are taken out of `as_skills` and said as refusals, so the
/// preview never promises what the host lists from another folder.
pub fn shadowed(
    host: Host,
    project: &Path,
    places: &Places,
    placed: &[Placed],
    as_skills: &mut Vec<AsSkill>,
    fetched: &[Fetched],
) -> Vec<String> {
    let Some(folder) = profiles::of(host).skills else {
        return Vec::new();
    };
    let roots: Vec<PathBuf> = [Scope::Project, Scope::User]
        .into_iter()
        .filter_map(|scope| folder.root(scope, project, places).ok().map(|(r, _)| r))
        .collect();
    let mut said = Vec::new();
    as_skills.retain(|s| {
        let served = fetched
            .iter()
            .filter(|f| f.server == s.server && f.name == s.name)
            .find_map(|f| f.outcome.as_ref().ok())
            .and_then(|skill| skill.files.iter().find(|(p, _)| p == skills::MAIN))
            .map(|(_, bytes)| bytes.as_slice());
        let theirs = roots.iter().map(|r| r.join(&s.name)).find(|dir| {
            let main = dir.join(skills::MAIN);
            std::fs::symlink_metadata(&main).is_ok()
                && !placed.iter().any(|p| p.folder == *dir)
                && std::fs::read(&main).ok().as_deref() != served
        });
        match theirs {
            Some(dir) => {
                said.push(format!(
                    "skill `{}` of `{}` not delivered: {} holds a skill of the same name that mcpick did not write, and {} lists that one (rename or remove one of them)",
                    s.name,
                    crate::sanitize::line(&s.server, 200),
                    dir.display(),
                    host.dialect().host_name
                ));
                false
            }
            None => true,
        }
    });
    said
}

/// One line per skill a host gets as a skill (`preview --host`, `install`).
pub fn line(s: &AsSkill) -> String {
    format!(
        "as a skill: {} ({}): {} ({} file{}, {} bytes, verified against the server's manifest; {} tokens of frontmatter in context){}",
        s.name,
        crate::sanitize::line(&s.server, 200),
        s.description,
        crate::units::thousands(s.files as u64),
        if s.files == 1 { "" } else { "s" },
        crate::units::thousands(s.bytes as u64),
        crate::units::thousands(s.tokens),
        if s.behaviour.is_empty() {
            String::new()
        } else {
            format!(
                "; carries {} (the host may act on these: accepted by you at this version)",
                crate::sanitize::line(&s.behaviour.join(", "), 1000)
            )
        }
    )
}

/// Puts `wanted` into `root` (which must stay inside `inside`), given what an earlier write
/// `earlier` left there: a skill written before and unchanged stays, a changed one is
/// replaced whole, one no longer wanted is taken back, and one `refused` this time (its
/// server's files no longer match its manifest, or it could not be read) keeps its earlier
/// verified copy; in a `project` that is a git repository each skill folder gets a line in
/// `.git/info/exclude`. What is there now, and what to say (each a warning).
pub fn place(
    root: &Path,
    inside: &Path,
    wanted: &[&Skill],
    refused: &[(&str, &str)],
    earlier: &[Placed],
    project: bool,
) -> (Vec<Placed>, Vec<String>) {
    let (mut now, mut said) = place_files(root, inside, wanted, refused, earlier);
    // Kept out of git where the project is a repository (a user install's home is not).
    for placed in &mut now {
        if !project || placed.exclude.is_some() {
            continue;
        }
        let Some((path, line)) = exclude_line(inside, &placed.folder) else {
            continue;
        };
        let added = fsio::inside(&path, inside)
            .map_err(|e| e.to_string())
            .and_then(|real| {
                let added = super::lines::addition(&path, &real, &line)?;
                super::lines::append(&added, &real).map_err(|e| e.to_string())?;
                Ok(added)
            });
        match added {
            Ok(added) => placed.exclude = Some(added),
            Err(why) => said.push(format!(
                "{} is not kept out of git: {why}",
                placed.folder.display()
            )),
        }
    }
    (now, said)
}

fn place_files(
    root: &Path,
    inside: &Path,
    wanted: &[&Skill],
    refused: &[(&str, &str)],
    earlier: &[Placed],
) -> (Vec<Placed>, Vec<String>) {
    let mut now = Vec::new();
    let mut said = Vec::new();
    for old in earlier {
        let still = wanted
            .iter()
            .any(|s| s.server == old.server && s.name == old.name)
            || refused.contains(&(old.server.as_str(), old.name.as_str()));
        if !still {
            said.extend(take_back(old, inside));
        }
    }
    for old in earlier {
        if refused.contains(&(old.server.as_str(), old.name.as_str())) {
            said.push(format!(
                "skill `{}`: the earlier verified copy in {} is kept",
                old.name,
                old.folder.display()
            ));
            now.push(old.clone());
        }
    }
    for skill in wanted {
        let old = earlier
            .iter()
            .find(|p| p.server == skill.server && p.name == skill.name);
        match write_one(root, inside, skill, old) {
            Ok(placed) => now.push(placed),
            Err(why) => {
                said.push(format!("skill `{}` not written: {why}", skill.name));
                if let Some(old) = old {
                    now.push(old.clone());
                }
            }
        }
    }
    (now, said)
}

fn digest_hex(bytes: &[u8]) -> String {
    skills::hex(&Sha256::digest(bytes))
}

/// Writes one skill whole into `root/NAME`: staged in `root/.NAME.mcpick-new`, then swapped in.
fn write_one(
    root: &Path,
    inside: &Path,
    skill: &Skill,
    old: Option<&Placed>,
) -> Result<Placed, String> {
    skills::check_name(&skill.name)?;
    let folder = root.join(&skill.name);
    let files: Vec<PlacedFile> = skill
        .files
        .iter()
        .map(|(path, bytes)| PlacedFile {
            path: path.clone(),
            sha256: digest_hex(bytes),
        })
        .collect();
    let placed = Placed {
        server: skill.server.clone(),
        name: skill.name.clone(),
        folder: folder.clone(),
        files,
        exclude: old.and_then(|o| o.exclude.clone()),
    };
    // The root and the skill folder are where they were derived, through no link.
    let io = |e: std::io::Error| e.to_string();
    fsio::inside(&folder.join(skills::MAIN), inside).map_err(io)?;
    let exists = std::fs::symlink_metadata(&folder).is_ok();
    match old {
        Some(old) if exists && old.files == placed.files && unchanged(old, inside).is_empty() => {
            return Ok(placed);
        }
        Some(_) => {}
        None if exists => {
            return Err(format!(
                "{} exists and mcpick did not write it: it is left as it is",
                folder.display()
            ));
        }
        None => {}
    }
    if let Some(old) = old
        && exists
    {
        let changed = unchanged(old, inside);
        if !changed.is_empty() {
            return Err(format!(
                "{} was changed since mcpick wrote it ({}): it is left as it is",
                folder.display(),
                changed.join(", ")
            ));
        }
    }
    std::fs::create_dir_all(root).map_err(io)?;
    let root_real = fsio::inside(&root.join(skills::MAIN), inside)
        .map_err(io)?
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let staged = root_real.join(format!(".{}.mcpick-new", skill.name));
    let _ = std::fs::remove_dir_all(&staged);
    if let Err(e) = stage(&staged, skill) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(format!("cannot write {}: {e}", folder.display()));
    }
    if let Err(e) = swap_in(&root_real, &staged, &skill.name, exists) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(format!("cannot put {} in place: {e}", folder.display()));
    }
    Ok(placed)
}

/// Writes `skill`'s files into the new folder `staged`, each created afresh and synced.
fn stage(staged: &Path, skill: &Skill) -> std::io::Result<()> {
    std::fs::create_dir(staged)?;
    for (path, bytes) in &skill.files {
        skills::check_path(path).map_err(std::io::Error::other)?;
        let target = staged.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
        let mut file = options.open(&target)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    Ok(())
}

/// Puts `staged` in place as `root/name`; the folder it replaces (when it `exists`) is
/// moved aside first and removed after, so the skill is never half written.
fn swap_in(root: &Path, staged: &Path, name: &str, exists: bool) -> std::io::Result<()> {
    let real_folder = root.join(name);
    if exists {
        let gone = root.join(format!(".{name}.mcpick-old"));
        let _ = std::fs::remove_dir_all(&gone);
        std::fs::rename(&real_folder, &gone)?;
        std::fs::rename(staged, &real_folder)?;
        let _ = std::fs::remove_dir_all(&gone);
    } else {
        std::fs::rename(staged, &real_folder)?;
    }
    Ok(())
}

/// The files of `placed` that are no longer as mcpick wrote them (changed, gone, or a link).
fn unchanged(placed: &Placed, inside: &Path) -> Vec<String> {
    placed
        .files
        .iter()
        .filter(|f| {
            let path = placed.folder.join(&f.path);
            let same = skills::check_path(&f.path).is_ok()
                && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
                && fsio::inside(&path, inside).is_ok()
                && std::fs::read(&path).is_ok_and(|b| digest_hex(&b) == f.sha256);
            !same
        })
        .map(|f| crate::sanitize::line(&f.path, 200))
        .collect()
}

/// Takes back one skill as it was written: each file still as mcpick wrote it is removed, then
/// the folders left empty (the skills folder too when nothing else is in it). What is left,
/// and why (each a note).
pub fn take_back(placed: &Placed, inside: &Path) -> Vec<String> {
    let mut notes = Vec::new();
    if skills::check_name(&placed.name).is_err()
        || placed.folder.file_name().and_then(|n| n.to_str()) != Some(placed.name.as_str())
    {
        return vec![format!(
            "{}: not a skill folder mcpick records; left as it is",
            placed.folder.display()
        )];
    }
    let changed = unchanged(placed, inside);
    for f in &placed.files {
        if changed.contains(&crate::sanitize::line(&f.path, 200)) {
            continue;
        }
        let path = placed.folder.join(&f.path);
        if let Err(e) = std::fs::remove_file(&path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            notes.push(format!("cannot remove {}: {e}", path.display()));
        }
        // The folders on its way, deepest first, while empty.
        let mut dir = path.parent();
        while let Some(d) = dir {
            if !d.starts_with(&placed.folder) || std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }
    if let Some(root) = placed.folder.parent() {
        let _ = std::fs::remove_dir(root);
    }
    if let Some(added) = &placed.exclude {
        match fsio::inside(&added.path, inside).map_err(|e| e.to_string()) {
            Ok(real) => match super::lines::take_back(added, &real) {
                Ok(Some(note)) => notes.push(note),
                Ok(None) => {}
                Err(e) => notes.push(format!("{}: {e}", added.path.display())),
            },
            Err(why) => notes.push(why),
        }
    }
    if !changed.is_empty() {
        notes.push(format!(
            "{}: {} changed since mcpick wrote {}; left as {}",
            placed.folder.display(),
            changed.join(", "),
            if changed.len() == 1 { "it" } else { "them" },
            if changed.len() == 1 {
                "it is"
            } else {
                "they are"
            },
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::profiles::{
        codex::SKILLS as CODEX, copilot_cli::SKILLS as COPILOT, opencode::SKILLS as OPENCODE,
        qwen_code::SKILLS as QWEN,
    };
    use crate::skills::{Frontmatter, Skill};

    fn skill(body: &str) -> Skill {
        let main = format!("---\nname: pdf-forms\ndescription: d\n---\n{body}");
        Skill {
            server: "s".into(),
            name: "pdf-forms".into(),
            frontmatter: Frontmatter::parse(&main).unwrap(),
            files: vec![
                ("SKILL.md".into(), main.into_bytes()),
                ("scripts/fill.py".into(), b"\x00\xffbinary".to_vec()),
            ],
        }
    }

    /// The user's yes decides: accepted at this digest passes; another digest is held
    /// (saying what it now carries); never seen passes only when nothing in it acts.
    #[test]
    fn a_skill_passes_only_at_an_accepted_digest_or_inert_at_first_sight() {
        use crate::config::skill_trust::{SkillRecord, Version};
        let acting = vec!["`hooks`".to_string()];
        assert_eq!(verdict(&[], "d1", None), Verdict::FirstSight);
        let Verdict::Held(why) = verdict(&acting, "d1", None) else {
            panic!("a skill that acts is held at first sight")
        };
        assert!(
            why.contains("`hooks`") && why.contains("mcpick trust --skills"),
            "{why}"
        );
        let record = SkillRecord {
            accepted: Some(Version {
                digest: "d1".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(verdict(&acting, "d1", Some(&record)), Verdict::Accepted);
        for behaviour in [&[][..], &acting[..]] {
            let Verdict::Held(why) = verdict(behaviour, "d2", Some(&record)) else {
                panic!("a changed skill waits")
            };
            assert!(why.contains("changed on the server"), "{why}");
            assert_eq!(why.contains("now carries `hooks`"), !behaviour.is_empty());
        }
    }

    /// Two servers publishing one name: the first is handed on, the second said with why.
    #[test]
    fn two_servers_skills_of_one_name_hand_on_one_and_say_why() {
        let a = skill("a");
        let mut b = skill("b");
        b.server = "t".into();
        let fetched = [
            Fetched {
                server: "s".into(),
                name: "pdf-forms".into(),
                outcome: Ok(a),
            },
            Fetched {
                server: "t".into(),
                name: "pdf-forms".into(),
                outcome: Ok(b),
            },
        ];
        let included: Vec<&Fetched> = fetched.iter().collect();
        let (mut as_skills, refused) = hand_on(&included, |t| t.len() as u64);
        assert_eq!(as_skills.len(), 1);
        assert_eq!(as_skills.remove(0).server, "s");
        assert_eq!(refused.len(), 1);
        assert!(
            refused[0].contains("`s` publishes a skill of the same name"),
            "{refused:?}"
        );
    }

    #[test]
    fn a_user_folder_is_the_hosts_own_and_stays_inside_home_or_the_hosts_folder() {
        let mut places = Places::linux_like("/p", "/h");
        let root = |folder: &SkillsFolder, places: &Places| {
            let (folder, inside) = folder.root(Scope::User, Path::new("/p"), places).unwrap();
            (folder.display().to_string(), inside.display().to_string())
        };
        let at = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(root(&COPILOT, &places), at("/h/.copilot/skills", "/h"));
        assert_eq!(root(&QWEN, &places), at("/h/.qwen/skills", "/h"));
        assert_eq!(root(&CODEX, &places), at("/h/.codex/skills", "/h"));
        #[cfg(target_os = "linux")]
        {
            assert_eq!(
                root(&OPENCODE, &places),
                at("/h/.config/opencode/skills", "/h")
            );
            places.config_dir = Some("/x/config".into());
            assert_eq!(
                root(&OPENCODE, &places),
                at("/x/config/opencode/skills", "/x/config/opencode")
            );
        }
        places.codex_home = Some("/c".into());
        assert_eq!(root(&CODEX, &places), at("/c/skills", "/c"));
    }

    #[test]
    fn a_skill_is_written_byte_for_byte_kept_fresh_and_taken_back() {
        let dir = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(dir.path()).unwrap();
        let root = project.join(".claude/skills");
        let one = skill("one");
        let (placed, said) = place(&root, &project, &[&one], &[], &[], false);
        assert!(said.is_empty(), "{said:?}");
        let folder = root.join("pdf-forms");
        assert_eq!(
            std::fs::read(folder.join("scripts/fill.py")).unwrap(),
            b"\x00\xffbinary"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(folder.join("scripts/fill.py"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o111, 0, "never executable");
        }
        // A new version replaces it whole.
        let two = skill("two");
        let (placed, said) = place(&root, &project, &[&two], &[], &placed, false);
        assert!(said.is_empty(), "{said:?}");
        assert!(
            std::fs::read_to_string(folder.join("SKILL.md"))
                .unwrap()
                .ends_with("two")
        );
        assert_eq!(
            std::fs::read_dir(&root).unwrap().count(),
            1,
            "no staging left"
        );
        // Refused this time: the earlier copy stays.
        let (placed, said) = place(&root, &project, &[], &[("s", "pdf-forms")], &placed, false);
        assert_eq!(placed.len(), 1);
        assert!(said[0].contains("kept"), "{said:?}");
        // No longer wanted: taken back, folders and all.
        let (placed, said) = place(&root, &project, &[], &[], &placed, false);
        assert!(placed.is_empty() && said.is_empty(), "{said:?}");
        assert!(!project.join(".claude/skills").exists());
    }

    #[test]
    fn in_a_git_repository_a_skill_folder_is_kept_out_of_git_and_the_line_taken_back() {
        let dir = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(project.join(".git/info")).unwrap();
        let exclude = project.join(".git/info/exclude");
        std::fs::write(
            &exclude,
            "# git ls-files --others --exclude-from=.git/info/exclude\n",
        )
        .unwrap();
        let before = std::fs::read_to_string(&exclude).unwrap();
        let root = project.join(".claude/skills");
        let (placed, said) = place(&root, &project, &[&skill("x")], &[], &[], true);
        assert!(said.is_empty(), "{said:?}");
        let with = std::fs::read_to_string(&exclude).unwrap();
        assert!(with.ends_with("\n/.claude/skills/pdf-forms/\n"), "{with:?}");
        // Written again: no second line.
        let (placed, _) = place(&root, &project, &[&skill("y")], &[], &placed, true);
        assert_eq!(std::fs::read_to_string(&exclude).unwrap(), with);
        let (placed, said) = place(&root, &project, &[], &[], &placed, true);
        assert!(placed.is_empty() && said.is_empty(), "{said:?}");
        assert_eq!(std::fs::read_to_string(&exclude).unwrap(), before);
    }

    #[test]
    fn a_folder_mcpick_did_not_write_or_a_changed_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(dir.path()).unwrap();
        let root = project.join(".claude/skills");
        std::fs::create_dir_all(root.join("pdf-forms")).unwrap();
        std::fs::write(root.join("pdf-forms/SKILL.md"), "mine").unwrap();
        let (placed, said) = place(&root, &project, &[&skill("x")], &[], &[], false);
        assert!(placed.is_empty());
        assert!(said[0].contains("did not write"), "{said:?}");
        assert_eq!(
            std::fs::read_to_string(root.join("pdf-forms/SKILL.md")).unwrap(),
            "mine"
        );
        std::fs::remove_dir_all(&root).unwrap();
        let (placed, _) = place(&root, &project, &[&skill("x")], &[], &[], false);
        std::fs::write(root.join("pdf-forms/scripts/fill.py"), "edited").unwrap();
        let notes = take_back(&placed[0], &project);
        assert!(notes[0].contains("scripts/fill.py"), "{notes:?}");
        assert_eq!(
            std::fs::read_to_string(root.join("pdf-forms/scripts/fill.py")).unwrap(),
            "edited"
        );
        assert!(!root.join("pdf-forms/SKILL.md").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_project_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::os::unix::fs::symlink(outside.path(), project.join(".claude/skills")).unwrap();
        let (placed, said) = place(
            &project.join(".claude/skills"),
            &project,
            &[&skill("x")],
            &[],
            &[],
            false,
        );
        assert!(placed.is_empty(), "{said:?}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }
}
