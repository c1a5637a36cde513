//! The `mcpick` binary: argument parsing and dispatch to the interactive browser, the headless
//! commands or the demo server.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use mcpick::cli::{Cli, Command, LsArgs};
use mcpick::commands;

fn main() -> ExitCode {
    // `COMPLETE=SHELL mcpick -- WORDS…`: a shell asking for completions (the script of
    // `mcpick completions SHELL`); answered here and nothing else runs.
    clap_complete::CompleteEnv::with_factory(Cli::command)
        .var(commands::completions::COMPLETE_VAR)
        .complete();
    let cli = Cli::try_parse().unwrap_or_else(|e| suggest_command(e).exit());
    let quiet = match &cli.command {
        Some(command) => command.server_args().is_some_and(|s| s.quiet),
        None => cli.servers.quiet,
    };
    mcpick::progress::set_quiet(quiet);
    // The browser holds a catalogue; the other commands stream, and list faster without it.
    if cli.command.is_none() && browses() {
        mcpick::heap::for_browser();
    }
    // Every command but the demo server (itself a server) ends on SIGINT, SIGTERM and SIGHUP
    // with its servers killed and the terminal restored (see `mcpick::signals`).
    if !matches!(cli.command, Some(Command::DemoServer(_)))
        && let Err(e) = mcpick::signals::install(mcpick::tui::term::restore)
    {
        eprintln!("mcpick: cannot watch for signals: {e}");
        return ExitCode::from(1);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcpick: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let exit = runtime.block_on(run(cli));
    // A signal is being acted on: its exit (128 + n) ends the process, not this status.
    while mcpick::signals::exiting() {
        std::thread::park_timeout(std::time::Duration::from_millis(100));
    }
    // Server processes are killed when their connections drop; don't wait for stragglers,
    // and kill any group a lingering task still holds.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    mcpick::mcp::group::kill_all();
    exit
}

/// With no command, mcpick browses when there is a terminal to draw on (else it lists).
fn browses() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

async fn run(cli: Cli) -> ExitCode {
    let command = match cli.command {
        Some(Command::DemoServer(args)) => {
            let result = match args.http {
                Some(addr) => mcpick::demo::serve_http(args, addr).await,
                None => mcpick::demo::serve_stdio(args).await,
            };
            return match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("mcpick demo-server: {e:#}");
                    ExitCode::from(1)
                }
            };
        }
        Some(Command::Servers(args)) => return ExitCode::from(commands::servers::run(args) as u8),
        Some(Command::Completions(args)) => {
            return ExitCode::from(commands::completions::completions(args.shell) as u8);
        }
        Some(Command::Man) => return ExitCode::from(commands::completions::man() as u8),
        Some(Command::Trust(args)) => return ExitCode::from(commands::trust::run(args) as u8),
        Some(Command::Turn(args)) => return ExitCode::from(commands::turn::run(args) as u8),
        Some(Command::Uninstall(args)) => {
            return ExitCode::from(commands::install::uninstall(args) as u8);
        }
        Some(command) => command,
        // The interactive browser, when there is a terminal to draw on.
        None if browses() => {
            let set = cli
                .set
                .unwrap_or_else(|| mcpick::context::DEFAULT_FILE.into());
            return mcpick::tui::run(cli.servers, cli.color, set).await;
        }
        // Piped: list the servers instead.
        None => Command::Ls(LsArgs {
            templates: true,
            servers: cli.servers,
            ..LsArgs::default()
        }),
    };
    let work = async {
        match command {
            Command::Ls(args) => commands::ls::run(args).await,
            Command::Read(args) => commands::read::run(args).await,
            Command::Watch(args) => commands::watch::run(args).await,
            Command::Pin(args) => {
                let set = args.set.path.clone();
                let exit = commands::marks::mark(args, mcpick::context::Mark::Pin).await;
                delivered_again(exit, &set).await
            }
            Command::Exclude(args) => {
                let set = args.set.path.clone();
                let exit = commands::marks::mark(args, mcpick::context::Mark::Exclude).await;
                delivered_again(exit, &set).await
            }
            Command::Unmark(args) => {
                let set = args.set.path.clone();
                delivered_again(commands::marks::unmark(args), &set).await
            }
            Command::Marks(args) => commands::marks::marks(args).await,
            Command::Policy(args) => {
                let set = args.set.path.clone();
                delivered_again(commands::marks::policy(args), &set).await
            }
            Command::Install(args) => commands::install::install(args).await,
            Command::Deliver(args) => commands::deliver::run(args).await,
            Command::Preview(args) => commands::preview::run(args).await,
            Command::Serve(args) => commands::serve::run(args).await,
            Command::Export(args) => commands::export::run(args).await,
            Command::Lock(args) => commands::lock::lock(args).await,
            Command::Diff(args) => commands::lock::diff(args).await,
            Command::Check(args) => commands::check::run(args).await,
            Command::Login(args) => commands::login::login(args).await,
            Command::Logout(args) => commands::login::logout(args),
            Command::Wrap(args) => commands::wrap::wrap(args),
            Command::Unwrap(args) => commands::wrap::unwrap(args),
            Command::WrapServe(args) => {
                mcpick::wrap::run(&args.record, &args.name, &args.set.path, args.expose).await
            }
            Command::DemoServer(_)
            | Command::Servers(_)
            | Command::Uninstall(_)
            | Command::Completions(_)
            | Command::Trust(_)
            | Command::Turn(_)
            | Command::Man => unreachable!("handled above"),
        }
    };
    // Ctrl-C, SIGTERM and SIGHUP are handled by `mcpick::signals`: servers killed, exit 128+n.
    ExitCode::from(work.await as u8)
}

/// A change of the set that went through reaches its session-start deliveries too.
async fn delivered_again(exit: commands::Exit, set: &std::path::Path) -> commands::Exit {
    if exit != commands::Exit::Ok {
        return exit;
    }
    commands::deliver::after_change(set).await
}

/// clap's error, with "did you mean" for a mistyped command: the top level also takes
/// options and `-- COMMAND`, so clap reads `mcpick lss` as an unexpected argument, not an
/// unknown command, and suggests nothing by itself.
fn suggest_command(mut error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::UnknownArgument {
        return error;
    }
    let Some(ContextValue::String(typed)) = error.get(ContextKind::InvalidArg).cloned() else {
        return error;
    };
    if typed.starts_with('-') {
        return error;
    }
    let best = Cli::command()
        .get_subcommands()
        .flat_map(|c| {
            std::iter::once(c.get_name().to_string()).chain(c.get_all_aliases().map(str::to_string))
        })
        .map(|name| (strsim::jaro(&typed, &name), name))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((_, name)) = best {
        error.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(vec![name]),
        );
    }
    error
}
