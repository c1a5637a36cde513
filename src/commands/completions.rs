//! `mcpick completions SHELL` and `mcpick man`: both generated from the clap definitions
//! `--help` prints, so neither can drift from it.
//!
//! Completion uses clap_complete's dynamic engine: the script registers `mcpick` with the
//! shell and asks `COMPLETE=SHELL mcpick -- WORDS…` at each Tab (answered in `main` before
//! anything else runs). A static script could not know the servers defined in the current
//! folder's config files; this one completes them, and stays true after an upgrade.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::env::Shells;

use super::Exit;
use crate::cli::Cli;

/// The environment variable that turns a run of mcpick into a completion request.
pub const COMPLETE_VAR: &str = "COMPLETE";

/// Prints the registration script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> Exit {
    let shells = Shells::builtins();
    let Some(completer) = shells.completer(&shell.to_string()) else {
        return super::usage_error(&format!("no completion support for {shell}"));
    };
    let mut script = Vec::new();
    let written = completer
        .write_registration(
            COMPLETE_VAR,
            "mcpick",
            "mcpick",
            &this_program(),
            &mut script,
        )
        .and_then(|()| std::io::stdout().lock().write_all(&script));
    finish(written)
}

/// How the shell should call this program back: as it was called (`mcpick` from PATH),
/// or by its absolute path when it was called by a relative one (`./target/debug/mcpick`).
fn this_program() -> String {
    let called = std::env::args_os()
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "mcpick".into());
    let path = if called.components().count() > 1 && called.is_relative() {
        std::env::current_dir()
            .map(|d| d.join(&called))
            .unwrap_or(called)
    } else {
        called
    };
    path.to_string_lossy().into_owned()
}

/// Prints the manual page: mcpick's own sections, then one section per command with its
/// synopsis, description, options and notes.
pub fn man() -> Exit {
    let mut cmd = Cli::command();
    cmd.build();
    let mut page = Vec::new();
    let written = render(&cmd, &mut page).and_then(|()| std::io::stdout().lock().write_all(&page));
    finish(written)
}

fn render(cmd: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    let top = clap_mangen::Man::new(cmd.clone());
    top.render_title(out)?;
    top.render_name_section(out)?;
    top.render_synopsis_section(out)?;
    top.render_description_section(out)?;
    top.render_options_section(out)?;
    // The commands, each pointing to its section below (clap_mangen's own list names one
    // page per command, which this single page replaces).
    writeln!(out, ".SH COMMANDS")?;
    for sub in commands(cmd) {
        writeln!(out, ".TP\n\\fB{}\\fR", roff_text(&bin_name(sub)))?;
        if let Some(about) = sub.get_about() {
            writeln!(out, "{}", roff_text(&about.to_string()))?;
        }
    }
    top.render_extra_section(out)?;
    top.render_version_section(out)?;
    for sub in commands(cmd) {
        writeln!(out, ".SH \"{}\"", roff_text(&bin_name(sub).to_uppercase()))?;
        let man = clap_mangen::Man::new(sub.clone());
        let mut part = Vec::new();
        man.render_synopsis_section(&mut part)?;
        man.render_description_section(&mut part)?;
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut part)?;
        }
        if sub.get_after_help().is_some() || sub.get_after_long_help().is_some() {
            man.render_extra_section(&mut part)?;
        }
        // Inside the command's section, its parts are subsections.
        for line in String::from_utf8_lossy(&part).lines() {
            match line.strip_prefix(".SH ") {
                Some(title) => writeln!(out, ".SS {title}")?,
                None => writeln!(out, "{line}")?,
            }
        }
    }
    Ok(())
}

/// The commands a person runs (not clap's `help`).
fn commands(cmd: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// `mcpick ls`.
fn bin_name(sub: &clap::Command) -> String {
    sub.get_bin_name().unwrap_or(sub.get_name()).to_string()
}

/// Text safe inside a roff line: backslashes and hyphens escaped, no line starting with a
/// control character.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    escaped
        .lines()
        .map(|l| {
            if l.starts_with(['.', '\'']) {
                format!("\\&{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn finish(written: std::io::Result<()>) -> Exit {
    match written {
        Ok(()) => Exit::Ok,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Ok,
        Err(e) => {
            super::report(&format!("cannot write to stdout: {e}"));
            Exit::ServerFailed
        }
    }
}
