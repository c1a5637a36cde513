//! `mcpick completions SHELL` and `mcpick man` come from the clap definitions `--help`
//! prints: every command and every flag is in the manual page and is offered by the shell
//! completion, so neither can drift from `--help`; completion also offers the values a user
//! types (hosts, defined servers, set files).

mod common;

use clap::CommandFactory;
use common::*;
use mcpick::cli::Cli;
use mcpick::hosts::Host;

/// What the shell is offered for `mcpick WORDS…` (the last word being completed), asked
/// the way the fish script asks: one candidate per line, `value<TAB>help`.
fn offered(dir: &std::path::Path, words: &[&str]) -> Vec<String> {
    let mut args = vec!["--", "mcpick"];
    args.extend_from_slice(words);
    let out = mcpick_in(dir, &[("COMPLETE", "fish")], &args);
    assert_eq!(exit_code(&out), 0, "{words:?}: {}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .collect()
}

fn the_commands(cli: &clap::Command) -> Vec<&clap::Command> {
    cli.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .collect()
}

fn flags(cmd: &clap::Command) -> impl Iterator<Item = &clap::Arg> {
    cmd.get_arguments().filter(|a| !a.is_hide_set())
}

/// `--name` as roff writes it.
fn roff(flag: &str) -> String {
    flag.replace('-', "\\-")
}

#[test]
fn every_command_and_flag_is_in_the_man_page_and_the_completion() {
    let mut cli = Cli::command();
    cli.build();
    let dir = tempfile::tempdir().unwrap();
    let out = mcpick(&["man"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let page = stdout(&out);
    assert!(
        page.contains("\n.TH mcpick 1"),
        "a roff manual page, section 1"
    );
    // The page's sections: mcpick's own, then `.SH "MCPICK LS"` and so on.
    let mut sections = page.split("\n.SH \"MCPICK ");
    let top = sections.next().unwrap();
    let per_command: Vec<&str> = sections.collect();
    for arg in flags(&cli) {
        if let Some(long) = arg.get_long() {
            assert!(top.contains(&roff(&format!("--{long}"))), "man: --{long}");
            assert!(offered(dir.path(), &["--"]).contains(&format!("--{long}")));
        }
    }
    let commands = offered(dir.path(), &[""]);
    for sub in the_commands(&cli) {
        let name = sub.get_name();
        assert!(commands.contains(&name.to_string()), "completion: {name}");
        let section = per_command
            .iter()
            .find(|s| s.starts_with(&format!("{}\"", roff(&name.to_uppercase()))))
            .unwrap_or_else(|| panic!("man: no section for mcpick {name}"));
        let completed = offered(dir.path(), &[name, "--"]);
        for arg in flags(sub) {
            if let Some(long) = arg.get_long() {
                let flag = format!("--{long}");
                assert!(section.contains(&roff(&flag)), "man: mcpick {name} {flag}");
                assert!(
                    completed.contains(&flag),
                    "completion: mcpick {name} {flag}"
                );
            }
            if let Some(short) = arg.get_short() {
                assert!(
                    section.contains(&format!("\\fB\\-{short}\\fR")),
                    "man: mcpick {name} -{short}"
                );
            }
        }
    }
}

#[test]
fn completions_print_a_script_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = mcpick(&["completions", shell]);
        assert_eq!(exit_code(&out), 0, "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(
            script.contains("COMPLETE") && script.contains(shell) && script.contains("mcpick"),
            "{shell}: {script}"
        );
    }
    assert_eq!(exit_code(&mcpick(&["completions", "tcsh"])), 2);
}

#[test]
fn completion_offers_hosts_defined_servers_and_set_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("mcpick.toml"),
        "[servers.alpha]\ncommand = \"x\"\n[servers.beta]\nurl = \"http://127.0.0.1:1/mcp\"\n",
    )
    .unwrap();
    std::fs::write(d.join("team.json"), "{}").unwrap();
    std::fs::write(d.join("notes.txt"), "").unwrap();
    let servers = offered(d, &["ls", "--server", ""]);
    assert!(
        servers.contains(&"alpha".into()) && servers.contains(&"beta".into()),
        "{servers:?}"
    );
    assert!(offered(d, &["login", ""]).contains(&"beta".into()));
    let hosts = offered(d, &["install", ""]);
    for host in Host::ALL {
        assert!(hosts.contains(&host.name().to_string()), "{hosts:?}");
    }
    let sets = offered(d, &["preview", "--set", ""]);
    assert!(sets.contains(&"team.json".into()), "{sets:?}");
    assert!(
        !sets.contains(&"notes.txt".into()),
        "only JSON files: {sets:?}"
    );
}
