//! The `mcpick` binary: argument parsing and dispatch to the interactive browser, the headless
//! commands or the demo server.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use mcpick::cli::{Cli, Command, LsArgs};
use mcpick::commands;

fn main() -> ExitCode {
    let cli = Cli::parse();
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
    // Server processes are killed when their connections drop; don't wait for stragglers.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    exit
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
        Some(command) => command,
        // The interactive browser, when there is a terminal to draw on.
        None if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() => {
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
            Command::Pin(args) => commands::marks::mark(args, mcpick::context::Mark::Pin).await,
            Command::Exclude(args) => {
                commands::marks::mark(args, mcpick::context::Mark::Exclude).await
            }
            Command::Unmark(args) => commands::marks::unmark(args),
            Command::Marks(args) => commands::marks::marks(args).await,
            Command::Policy(args) => commands::marks::policy(args),
            Command::Preview(args) => commands::preview::run(args).await,
            Command::Serve(args) => commands::serve::run(args).await,
            Command::DemoServer(_) | Command::Servers(_) => unreachable!("handled above"),
        }
    };
    // Ctrl-C drops the work, and with it every connection: server processes are killed.
    let exit = tokio::select! {
        exit = work => exit,
        _ = tokio::signal::ctrl_c() => {
            eprintln!("mcpick: interrupted");
            return ExitCode::from(130);
        }
    };
    ExitCode::from(exit as u8)
}
