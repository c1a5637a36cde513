//! `mcpick turn HOST`: what a host's per-turn hook runs. It answers in the host's format with
//! what changed in the set since the session's last turn ([`crate::handoff::live`]), and never
//! stops the host: a failure prints nothing, exits 0 and leaves one line in the turn log.

use std::io::{Read, Write};

use super::Exit;
use crate::cli::TurnArgs;
use crate::handoff::live;

pub fn run(args: TurnArgs) -> Exit {
    let mut input = String::new();
    // A hook's input is a few hundred bytes; a megabyte is plenty.
    if let Err(e) = std::io::stdin().take(1 << 20).read_to_string(&mut input) {
        live::log(&format!(
            "{}: cannot read the hook's input: {e}",
            args.host.name()
        ));
        return Exit::Ok;
    }
    match live::hook(args.host, &args.set.path, &args.name, &input) {
        Ok(Some(out)) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = writeln!(stdout, "{out}") {
                live::log(&format!("{}: cannot answer: {e}", args.host.name()));
            }
        }
        Ok(None) => {}
        Err(why) => live::log(&format!("{}: {why}", args.host.name())),
    }
    Exit::Ok
}
