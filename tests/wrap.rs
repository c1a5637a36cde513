//! `mcpick wrap` / `unwrap` on a real project: a Claude Code `.mcp.json` entry for the Python
//! SDK server (tools and resources), wrapped with a set that excludes some of its resources.
//! The wrapped entry is started as the host would start it (its command and arguments, in
//! the project, `mcpick` from PATH) and driven by the Python SDK client in both eras, and by
//! raw JSON-RPC lines; every non-resource answer must be the upstream's own, the resources
//! only what the set allows; `unwrap` gives back the file byte for byte; Claude Code itself
//! reports the wrapped entry connected under its own name.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::*;
use serde_json::{Value, json};

/// A project with an `.mcp.json` written by hand (odd spacing, another entry, an unknown
/// key), and a home.
struct World {
    dir: tempfile::TempDir,
    original: String,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let original = format!(
            "{{\n  \"mcpServers\": {{\n    \"other\": {{ \"command\": \"true\" }},\n    \"py\":   {{ \"command\": {}, \"args\": [{}, \"--count\", \"40\"],\n             \"env\": {{ \"PY_TEST\": \"1\", \"PY_CALL_LOG\": {} }} }}\n  }},\n  \"futureSetting\": [1, 2]\n}}\n",
            json!(python()),
            json!(py_server()),
            json!(World::call_log_in(dir.path()))
        );
        let world = World { dir, original };
        std::fs::write(world.file(), &world.original).unwrap();
        // The project's servers run once approved, as a user does once.
        world.ok(&["trust", "--yes"]);
        world
    }

    /// Where the upstream writes each tools/call it answers (`PY_CALL_LOG` in the original
    /// entry's env: only the upstream has it).
    fn call_log_in(dir: &Path) -> PathBuf {
        dir.join("calls.log")
    }

    /// The tools/call the upstream answered, one JSON object each.
    fn calls(&self) -> Vec<Value> {
        std::fs::read_to_string(World::call_log_in(self.dir.path()))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn project(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path().join("project")).unwrap()
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("project/.mcp.json")
    }

    fn path_var() -> String {
        let bin = Path::new(mcpick_bin()).parent().unwrap();
        format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    fn run(&self, args: &[&str]) -> Output {
        let home = self.home();
        let path = World::path_var();
        mcpick_in(
            &self.project(),
            &[("HOME", home.to_str().unwrap()), ("PATH", &path)],
            args,
        )
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// The command line of entry `name` in `.mcp.json`, as Claude Code starts it.
    fn entry(&self, name: &str) -> Vec<String> {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(self.file()).unwrap()).unwrap();
        let entry = &doc["mcpServers"][name];
        std::iter::once(entry["command"].as_str().unwrap().to_string())
            .chain(
                entry["args"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.as_str().unwrap().to_string()),
            )
            .collect()
    }

    fn command(&self, line: &[String]) -> Command {
        let mut command = Command::new(&line[0]);
        command
            .args(&line[1..])
            .current_dir(self.project())
            .env("HOME", self.home())
            .env("PATH", World::path_var());
        command
    }

    /// The Python SDK client's session against the server `line` starts.
    fn client(&self, line: &[String], mode: &str, reads: &[&str]) -> Value {
        self.client_with(line, &["--mode", mode], reads)
    }

    fn client_with(&self, line: &[String], options: &[&str], reads: &[&str]) -> Value {
        let mut args = vec![
            repo_root()
                .join("tests/peers/wrap_client.py")
                .to_string_lossy()
                .into_owned(),
        ];
        args.extend(options.iter().map(|o| o.to_string()));
        for uri in reads {
            args.extend(["--read".to_string(), uri.to_string()]);
        }
        args.push("--".into());
        args.extend(line.iter().cloned());
        let out = self
            .command(&[&[python()], &args[..]].concat())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "wrap_client: {}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

/// The upstream's own command line, as the original entry has it.
fn upstream() -> Vec<String> {
    vec![python(), py_server(), "--count".into(), "40".into()]
}

/// Sends `requests` (one JSON-RPC message a line) and returns every reply by id, after the
/// last one came; the server is then closed.
fn raw_session(mut command: Command, requests: &[Value]) -> Vec<Value> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut replies = Vec::new();
    for request in requests {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let Some(id) = request.get("id") else {
            continue;
        };
        loop {
            let line = lines.next().expect("the server closed").unwrap();
            let reply: Value = serde_json::from_str(&line).unwrap();
            if reply.get("id") == Some(id) && reply.get("method").is_none() {
                replies.push(reply);
                break;
            }
        }
    }
    drop(stdin);
    let _ = child.wait();
    replies
}

#[test]
fn a_wrapped_entry_answers_as_the_upstream_but_for_the_excluded_resources() {
    let world = World::new();
    // The set refers to the server by the entry's name. Every audience passes, so the
    // marks alone decide what is hidden.
    world.ok(&[
        "exclude",
        "--server",
        "py",
        "py://items/beta/*",
        "py://items/gamma/2",
    ]);
    world.ok(&["policy", "--audience", "any"]);

    // A missing NAME is a usage error naming the file's entries.
    let out = world.run(&["wrap", "claude-code", "nope"]);
    assert_eq!(exit_code(&out), 2);
    assert!(
        stderr(&out).contains("its entries: other, py"),
        "{}",
        stderr(&out)
    );

    let said = world.ok(&["wrap", "claude-code", "py"]);
    assert!(said.contains("wrapped `py`"), "{said}");
    let wrapped_text = std::fs::read_to_string(world.file()).unwrap();
    let line = world.entry("py");
    assert_eq!(line[0], "mcpick", "from PATH: {line:?}");
    assert_eq!(line[1], "wrap-serve");
    assert!(
        !wrapped_text.contains("PY_TEST"),
        "the original's env stays out of the wrapped entry: {wrapped_text}"
    );
    assert!(wrapped_text.contains("\"other\": { \"command\": \"true\" }"));
    // Twice: a no-op.
    world.ok(&["wrap", "claude-code", "py"]);
    // The wrapped entry is a new command in the project's file: approved again.
    world.ok(&["trust", "--yes"]);
    assert_eq!(std::fs::read_to_string(world.file()).unwrap(), wrapped_text);

    let reads = [
        "py://items/beta/1",
        "py://items/gamma/2",
        "py://items/alpha/5",
    ];
    for (mode, not_found) in [("legacy", -32002), ("auto", -32602)] {
        let direct = world.client(&upstream(), mode, &reads);
        let through = world.client(&line, mode, &reads);
        for key in [
            "protocolVersion",
            "capabilities",
            "tools",
            "call",
            "templates",
        ] {
            assert_eq!(through[key], direct[key], "{mode}: {key}");
        }
        let hidden = |uri: &str| uri.starts_with("py://items/beta/") || uri == "py://items/gamma/2";
        let all: Vec<&str> = direct["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u.as_str().unwrap())
            .collect();
        assert!(all.iter().any(|u| hidden(u)), "the upstream lists some");
        let expected: Vec<&str> = all.iter().copied().filter(|u| !hidden(u)).collect();
        assert_eq!(through["resources"], json!(expected), "{mode}: resources");
        let through_reads = through["reads"].as_array().unwrap();
        for read in &through_reads[..2] {
            assert_eq!(read["ok"], false, "{mode}: {read}");
            assert_eq!(read["code"], not_found, "{mode}: {read}");
        }
        assert_eq!(
            through_reads[2], direct["reads"][2],
            "{mode}: an allowed read"
        );
        assert_eq!(through_reads[2]["ok"], true);
    }

    // Raw JSON-RPC (legacy): every non-resource answer is the upstream's, field for field,
    // errors included.
    let requests = [
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"raw","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"touch_resource","arguments":{"uri":"py://items/alpha/5"},"_meta":{"progressToken":7}}}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"touch_resource","arguments":{"uri":"py://nope"}}}),
        json!({"jsonrpc":"2.0","id":4,"method":"ping"}),
        json!({"jsonrpc":"2.0","id":5,"method":"prompts/list"}),
        json!({"jsonrpc":"2.0","id":6,"method":"no/such/method"}),
        json!({"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"py://items/beta/6"}}),
    ];
    let direct = raw_session(world.command(&upstream()), &requests);
    let through = raw_session(world.command(&line), &requests);
    assert_eq!(through[..7], direct[..7]);
    assert_eq!(through[7]["error"]["code"], -32002, "{}", through[7]);
    assert!(direct[7].get("result").is_some(), "the upstream has it");

    // Claude Code starts the wrapped entry and reports it connected, under its own name.
    std::fs::write(
        world.home().join(".claude.json"),
        json!({ "projects": { world.project().to_str().unwrap(): {
            "hasTrustDialogAccepted": true, "enableAllProjectMcpServers": true } } })
        .to_string(),
    )
    .unwrap();
    let claude = peers().join("node/node_modules/.bin/claude");
    let out = world
        .command(&[
            claude.to_string_lossy().into_owned(),
            "mcp".into(),
            "list".into(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        text.lines().any(|l| l.starts_with("py:")
            && l.contains("mcpick wrap-serve")
            && l.contains("✔ Connected")),
        "claude mcp list: {text}"
    );

    // Unwrap: the file as it was, byte for byte, and the record gone.
    let record = world.project().join(".mcp.json.mcpick-wrap.json");
    assert!(record.exists());
    world.ok(&["unwrap", "claude-code", "py"]);
    assert_eq!(
        std::fs::read_to_string(world.file()).unwrap(),
        world.original
    );
    assert!(!record.exists());
    let out = world.run(&["unwrap", "claude-code", "py"]);
    assert_eq!(exit_code(&out), 2, "nothing left to unwrap");
}

/// The command line Claude Code would start for entry `name` of `world`'s `.mcp.json`, with
/// `env` added (what the host's own environment would give it).
fn wrapped_command(world: &World, name: &str, env: &[(&str, &str)]) -> Command {
    let mut command = world.command(&world.entry(name));
    command.envs(env.iter().copied());
    command
}

/// Streamable HTTP entries (the Python SDK server and the demo server, each at its own
/// URL) and a legacy HTTP+SSE one (the demo's `/sse`) in a hand-written `.mcp.json`, wrapped: the Python SDK client gets the upstream's
/// own answers in both eras through the wrapped entry as straight from the URL, but for the
/// excluded resources; a header of the entry (a placeholder the host's environment fills)
/// reaches the upstream and appears nowhere else; Claude Code reports the entries connected
/// under their own names; `unwrap` restores the file byte for byte.
#[test]
fn an_http_entry_answers_as_the_upstream_but_for_the_excluded_resources() {
    let world = World::new();
    let calls = World::call_log_in(world.dir.path());
    let calls = calls.to_str().unwrap();
    let py = Background::start(
        &python(),
        &[&py_server(), "--http", "0", "--count", "40"],
        &[("PY_CALL_LOG", calls)],
    );
    let demo = Background::demo_http(&["--count", "30"]);
    let echo = Background::fixture_http(&["--count", "30", "--echo-headers"]);
    let secret = "team-secret-4f1b9c";
    let original = format!(
        "{{\n  \"mcpServers\": {{\n    \"other\": {{ \"command\": \"true\" }},\n    \"py\":   {{ \"type\": \"http\", \"url\": {} }},\n    \"demo\": {{ \"type\": \"http\", \"url\": {}, \"headers\": {{ \"X-Team\": \"${{WRAP_TEAM}}\" }} }},\n    \"echo\": {{ \"type\": \"http\", \"url\": {},\n              \"headers\": {{ \"X-Wrap-Secret\": \"${{WRAP_SECRET}}\" }} }},\n    \"old\": {{ \"type\": \"sse\", \"url\": {} }}\n  }}\n}}\n",
        json!(py.url),
        json!(demo.url),
        json!(echo.url),
        json!(demo.at("/sse")),
    );
    std::fs::write(world.file(), &original).unwrap();
    world.ok(&["trust", "--yes"]);
    world.ok(&[
        "exclude",
        "--server",
        "py",
        "py://items/beta/*",
        "py://items/gamma/2",
    ]);
    world.ok(&["policy", "--audience", "any"]);
    for name in ["py", "demo", "echo", "old"] {
        let said = world.ok(&["wrap", "claude-code", name]);
        assert!(said.contains(&format!("wrapped `{name}`")), "{said}");
    }
    let wrapped_text = std::fs::read_to_string(world.file()).unwrap();
    for gone in [py.url.as_str(), "WRAP_SECRET", "\"http\""] {
        assert!(
            !wrapped_text.contains(gone),
            "{gone} in the wrapped file: {wrapped_text}"
        );
    }
    let line = world.entry("py");
    assert_eq!(line[..2], ["mcpick", "wrap-serve"]);

    // Both eras, through the wrapped entry and straight from the URL.
    let reads = [
        "py://items/beta/1",
        "py://items/gamma/2",
        "py://items/alpha/5",
    ];
    for (mode, not_found) in [("legacy", -32002), ("auto", -32602)] {
        let direct = world.client(std::slice::from_ref(&py.url), mode, &reads);
        let through = world.client(&line, mode, &reads);
        for key in ["protocolVersion", "capabilities", "tools", "templates"] {
            assert_eq!(through[key], direct[key], "{mode}: {key}");
        }
        // The upstream counts the touches: the call's text differs only in the count.
        let text = |v: &Value| {
            v["call"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert!(
            text(&direct).starts_with("py://items/alpha/5 revision"),
            "{direct}"
        );
        assert!(
            text(&through).starts_with("py://items/alpha/5 revision"),
            "{through}"
        );
        if mode == "auto" {
            assert_eq!(direct["protocolVersion"], "2026-07-28", "the modern era");
        }
        let hidden = |uri: &str| uri.starts_with("py://items/beta/") || uri == "py://items/gamma/2";
        let all: Vec<&str> = direct["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u.as_str().unwrap())
            .collect();
        assert!(all.iter().any(|u| hidden(u)), "the upstream lists some");
        let expected: Vec<&str> = all.iter().copied().filter(|u| !hidden(u)).collect();
        assert_eq!(through["resources"], json!(expected), "{mode}: resources");
        let through_reads = through["reads"].as_array().unwrap();
        for read in &through_reads[..2] {
            assert_eq!(read["ok"], false, "{mode}: {read}");
            assert_eq!(read["code"], not_found, "{mode}: {read}");
        }
        // One upstream process for both sessions: its revision counter moved between them.
        let unrevised = |read: &Value| {
            let text = read.to_string();
            let at = text.find("(revision ").expect("a revision line");
            let end = at + text[at..].find(')').unwrap();
            format!("{}{}", &text[..at], &text[end..])
        };
        assert_eq!(through_reads[2]["ok"], true, "{mode}");
        assert_eq!(
            unrevised(&through_reads[2]),
            unrevised(&direct["reads"][2]),
            "{mode}: an allowed read"
        );
    }
    // Every tools/call reached the one upstream process: two straight, two through.
    assert_eq!(world.calls().len(), 4, "{:?}", world.calls());

    // The demo server, raw (legacy): answers field for field as a session straight to it
    // would give them (the demo's answers do not depend on the session), errors included.
    let requests = [
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":"two","method":"prompts/list"}),
        json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
        json!({"jsonrpc":"2.0","id":4,"method":"no/such/method"}),
        json!({"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}),
    ];
    let demo_stdio = [
        mcpick_bin().to_string(),
        "demo-server".into(),
        "--count".into(),
        "30".into(),
    ];
    let direct = raw_session(world.command(&demo_stdio), &requests);
    let through = raw_session(
        wrapped_command(&world, "demo", &[("WRAP_TEAM", "t")]),
        &requests,
    );
    assert_eq!(through.len(), direct.len());
    assert_eq!(
        through[0]["result"]["capabilities"],
        direct[0]["result"]["capabilities"]
    );
    assert_eq!(through[0]["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(through[1..], direct[1..]);
    // The same over the legacy HTTP+SSE transport.
    let old = raw_session(wrapped_command(&world, "old", &[]), &requests);
    assert_eq!(
        old[0]["result"]["capabilities"],
        direct[0]["result"]["capabilities"]
    );
    assert_eq!(old[1..], direct[1..]);

    // The header reaches the upstream (which quotes it in its refusal), and only it: not the
    // proxy's stderr, not its command line.
    let mut proxy = wrapped_command(&world, "echo", &[("WRAP_SECRET", secret)]);
    let out = proxy
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = out.id();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let mut out = out;
    {
        let mut stdin = out.stdin.take().unwrap();
        for request in &requests[..2] {
            writeln!(stdin, "{request}").unwrap();
        }
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc":"2.0","id":9,"method":"resources/list"})
        )
        .unwrap();
        let mut lines = BufReader::new(out.stdout.take().unwrap()).lines();
        let reply = loop {
            let reply: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
            if reply["id"] == 9 {
                break reply;
            }
        };
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!("x-wrap-secret: {secret}")),
            "the upstream did not get the header: {reply}"
        );
        drop(stdin);
    }
    let finished = out.wait_with_output().unwrap();
    assert!(finished.status.success(), "{}", stderr(&finished));
    assert!(!contains_bytes(&finished.stderr, secret.as_bytes()));
    assert!(!contains_bytes(&cmdline, secret.as_bytes()));

    // Claude Code starts the wrapped entries and reports them connected.
    std::fs::write(
        world.home().join(".claude.json"),
        json!({ "projects": { world.project().to_str().unwrap(): {
            "hasTrustDialogAccepted": true, "enableAllProjectMcpServers": true } } })
        .to_string(),
    )
    .unwrap();
    let claude = peers().join("node/node_modules/.bin/claude");
    let out = world
        .command(&[
            claude.to_string_lossy().into_owned(),
            "mcp".into(),
            "list".into(),
        ])
        .env("WRAP_TEAM", "t")
        .env("WRAP_SECRET", secret)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = format!("{}{}", stdout(&out), stderr(&out));
    for name in ["py", "demo"] {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{name}:"))
                && l.contains("mcpick wrap-serve")
                && l.contains("✔ Connected")),
            "claude mcp list: {text}"
        );
    }

    for name in ["py", "demo", "echo", "old"] {
        world.ok(&["unwrap", "claude-code", name]);
    }
    assert_eq!(std::fs::read_to_string(world.file()).unwrap(), original);
    drop((py, demo, echo));
}

/// An HTTP upstream that closes the connection after taking a request, without answering,
/// is reported as the connection lost before it answered (the server may have acted on
/// it, so the request is not sent again), not as a server that cannot be reached.
#[test]
fn an_http_upstream_that_closes_the_connection_under_a_request_is_reported_as_lost() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = taken.clone();
    // A server that answers the handshake (no GET stream: 405) and closes the connection
    // on a tool call it has read whole, without a word.
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            let counter = counter.clone();
            std::thread::spawn(move || {
                let mut out = stream.try_clone().unwrap();
                let mut reader = BufReader::new(stream);
                loop {
                    let mut head = Vec::new();
                    let mut line = String::new();
                    while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                        head.push(line.to_ascii_lowercase());
                        line.clear();
                    }
                    if head.is_empty() {
                        return;
                    }
                    let length = head
                        .iter()
                        .find_map(|h| h.strip_prefix("content-length:"))
                        .map_or(0, |v| v.trim().parse().unwrap_or(0));
                    let mut body = vec![0; length];
                    if std::io::Read::read_exact(&mut reader, &mut body).is_err() {
                        return;
                    }
                    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let (status, answer) = match message["method"].as_str() {
                        _ if head[0].starts_with("get ") => {
                            ("405 Method Not Allowed", String::new())
                        }
                        Some("tools/call") => {
                            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            return;
                        }
                        Some("initialize") => (
                            "200 OK",
                            json!({ "jsonrpc": "2.0", "id": message["id"], "result": {
                                "protocolVersion": "2025-06-18",
                                "capabilities": { "tools": {} },
                                "serverInfo": { "name": "closer", "version": "1" }
                            } })
                            .to_string(),
                        ),
                        _ => ("202 Accepted", String::new()),
                    };
                    let reply = format!(
                        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                    if out.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    let world = World::new();
    std::fs::write(
        world.file(),
        json!({ "mcpServers": { "web": { "type": "http", "url": format!("{origin}/mcp") } } })
            .to_string(),
    )
    .unwrap();
    world.ok(&["policy", "--audience", "any"]);
    world.ok(&["wrap", "claude-code", "web"]);
    let line = world.entry("web");
    let args: Vec<&str> = line[1..].iter().map(String::as_str).collect();
    let mut rpc =
        common::rpc::Rpc::start_home(mcpick_bin(), &args, &world.project(), &world.home());
    let reply = rpc.request("tools/call", json!({ "name": "add", "arguments": {} }));
    assert_eq!(reply["error"]["code"], -32000, "{reply}");
    let why = format!(
        "the server `web` failed: lost the connection to {origin} before it answered (error sending request: client error (SendRequest): connection closed before message completed)"
    );
    assert_eq!(reply["error"]["message"], why.as_str(), "{reply}");
    let (code, stderr) = rpc.end();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(&format!("wrap `web`: {why}")), "{stderr}");
    // Taken once: the call the server may have acted on was not sent again.
    assert_eq!(taken.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// A wrapped HTTP upstream that goes away mid-session is reported to the host as that
/// server failing, with why (it cannot be reached, or the connection closed under the
/// request), at the next request and every one after; the proxy says why on its stderr and exits with status 1 once the host leaves.
/// One restarted (it no longer knows the session) is reported as having ended the session;
/// one that wants an OAuth sign-in is reported as such, naming the `mcpick login` to run.
#[test]
fn an_http_upstream_that_goes_away_is_reported_as_the_server_failing_with_why() {
    let world = World::new();
    let demo = Background::demo_http(&["--count", "30"]);
    let port = demo
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    std::fs::write(
        world.file(),
        json!({ "mcpServers": { "web": { "type": "http", "url": demo.url } } }).to_string(),
    )
    .unwrap();
    world.ok(&["policy", "--audience", "any"]);
    world.ok(&["wrap", "claude-code", "web"]);
    let line = world.entry("web");
    let args: Vec<&str> = line[1..].iter().map(String::as_str).collect();
    let mut rpc =
        common::rpc::Rpc::start_home(mcpick_bin(), &args, &world.project(), &world.home());
    assert_eq!(rpc.request("ping", json!({}))["result"], json!({}));
    let listed = rpc.request("resources/list", json!({}));
    assert!(
        listed["result"]["resources"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "{listed}"
    );
    drop(demo);
    // The next POST finds the server gone one of two ways, as the kernel's close of the
    // kept-alive connection and the host's line race to wrap: the connection it reuses
    // closes under the request, or (once wrap saw that close) a new one is refused. Both
    // are the server failing, each with its own true reason.
    let origin = format!("http://127.0.0.1:{port}");
    let refused = format!(
        "the server `web` failed: cannot reach {origin} (error sending request: client error (Connect): tcp connect error: Connection refused"
    );
    let lost = format!(
        "the server `web` failed: lost the connection to {origin} before it answered (error sending request: client error (SendRequest): connection closed before message completed)"
    );
    let first = rpc.request("tools/list", json!({}));
    assert_eq!(first["error"]["code"], -32000, "{first}");
    let why = first["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        why.starts_with(&refused) || why == lost,
        "neither {refused:?} nor {lost:?}: {why:?}"
    );
    // The session is over: every request after gets the same reason.
    let reply = rpc.request("ping", json!({}));
    assert_eq!(reply["error"], first["error"], "{reply}");
    let (code, stderr) = rpc.end();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(&format!("wrap `web`: {why}")), "{stderr}");

    // A server restarted on the same port no longer knows the session: it ended.
    let first = Background::demo_http(&["--count", "30"]);
    let port = first
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_string();
    std::fs::write(
        world.file(),
        json!({ "mcpServers": { "again": { "type": "http", "url": first.url } } }).to_string(),
    )
    .unwrap();
    world.ok(&["wrap", "claude-code", "again"]);
    let line = world.entry("again");
    let args: Vec<&str> = line[1..].iter().map(String::as_str).collect();
    let mut rpc =
        common::rpc::Rpc::start_home(mcpick_bin(), &args, &world.project(), &world.home());
    assert_eq!(rpc.request("ping", json!({}))["result"], json!({}));
    drop(first);
    let addr = format!("127.0.0.1:{port}");
    let _second = Background::start(
        mcpick_bin(),
        &["demo-server", "--http", &addr, "--count", "30"],
        &[],
    );
    let reply = rpc.request("tools/list", json!({}));
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the server `again` failed: it ended the session (HTTP 404 Not Found"),
        "{reply}"
    );
    let (code, _) = rpc.end();
    assert_eq!(code, Some(1));

    // An upstream behind OAuth: the host's own sign-in is out of mcpick's reach, and the
    // host is told what to run instead of a bare 401.
    let guarded = Background::fixture_http(&["--count", "30", "--oauth"]);
    std::fs::write(
        world.file(),
        json!({ "mcpServers": { "signed": { "type": "http", "url": guarded.url } } }).to_string(),
    )
    .unwrap();
    world.ok(&["wrap", "claude-code", "signed"]);
    let initialize = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}});
    let replies = raw_session(world.command(&world.entry("signed")), &[initialize]);
    let message = replies[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the server `signed` failed: it needs an OAuth sign-in (HTTP 401)")
            && message.contains(&format!("`mcpick login --url {}`", guarded.url)),
        "{}",
        replies[0]
    );
}

/// The set changes while a host holds the list: the host is told
/// (`notifications/resources/list_changed`, through its `subscriptions/listen` in the
/// 2026-07-28 era) and its next list follows the set.
#[test]
fn a_set_change_tells_the_host_its_list_changed() {
    let world = World::new();
    world.ok(&["policy", "--audience", "any"]);
    world.ok(&["wrap", "claude-code", "py"]);
    // The wrapped entry is a new command in the project's file: approved again.
    world.ok(&["trust", "--yes"]);
    let line = world.entry("py");
    for (round, mode) in ["legacy", "auto"].into_iter().enumerate() {
        let gone = format!("py://items/alpha/{}", (round + 1) * 5);
        let mut args = vec![
            python(),
            repo_root()
                .join("tests/peers/wrap_client.py")
                .to_string_lossy()
                .into_owned(),
            "--watch".into(),
            "--mode".into(),
            mode.into(),
            "--".into(),
        ];
        args.extend(line.iter().cloned());
        let mut child = world
            .command(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut next = || -> Value {
            let line = lines.next().expect("wrap_client ended").unwrap();
            serde_json::from_str(&line).unwrap()
        };
        let listed = next()["listed"].clone();
        assert!(
            listed.as_array().unwrap().contains(&json!(gone)),
            "{mode}: {listed}"
        );
        world.ok(&["exclude", "--server", "py", &gone]);
        let after = next();
        assert!(child.wait().unwrap().success());
        assert_eq!(after["changed"], true, "{mode}: no list_changed: {after}");
        assert_eq!(
            after["era"],
            if mode == "legacy" { "legacy" } else { "modern" }
        );
        let expected: Vec<&Value> = listed
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| **u != json!(gone))
            .collect();
        assert_eq!(after["resources"], json!(expected), "{mode}");
    }
}

/// `wrap --expose included`: the host is given what the set includes under its budget
/// (pins first, then by priority, counts estimated from sizes), and reads of the rest are
/// refused; without it, everything the set allows.
#[test]
fn expose_included_gives_the_host_what_the_budget_takes() {
    let world = World::new();
    world.ok(&["policy", "--audience", "any", "--budget", "100"]);
    // item 22's priority is 0.0: only its pin can take it in.
    let pinned = "py://items/gamma/22";
    world.ok(&["pin", "--server", "py", pinned]);
    world.ok(&["exclude", "--server", "py", "py://items/beta/*"]);
    world.ok(&["wrap", "claude-code", "py", "--expose", "included"]);
    let line = world.entry("py");
    assert!(
        line.windows(2).any(|w| w == ["--expose", "included"]),
        "{line:?}"
    );

    let direct = world.client(&upstream(), "legacy", &[]);
    // The second listing of the session: the proxy has seen every page by then (its first
    // may hold more, until the proxy sees a later page move the cut and says so).
    let through = world.client_with(&line, &["--mode", "legacy", "--relist"], &[]);
    let published: Vec<&str> = through["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    // Every resource the set allows, with its estimate and priority.
    let allowed: Vec<(&str, u64, f64)> = direct["listing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["uri"].as_str().unwrap(),
                r["size"].as_u64().unwrap().div_ceil(4),
                r["annotations"]["priority"].as_f64().unwrap_or(0.5),
            )
        })
        .filter(|(uri, ..)| !uri.starts_with("py://items/beta/"))
        .collect();
    assert!(published.contains(&pinned), "{published:?}");
    assert!(published.iter().all(|u| allowed.iter().any(|a| a.0 == *u)));
    let spent: u64 = allowed
        .iter()
        .filter(|a| published.contains(&a.0))
        .map(|a| a.1)
        .sum();
    assert!(spent <= 100, "{spent} tokens: {published:?}");
    let (kept, cut): (Vec<&(&str, u64, f64)>, Vec<_>) = allowed
        .iter()
        .filter(|a| a.0 != pinned)
        .partition(|a| published.contains(&a.0));
    assert!(!kept.is_empty() && !cut.is_empty(), "{published:?}");
    // The cut is a line in rank order: nothing cut ranks above what was kept, and the
    // first below the line would not have fitted.
    let lowest_kept = kept.iter().map(|a| a.2).fold(f64::MAX, f64::min);
    let highest_cut = cut.iter().map(|a| a.2).fold(f64::MIN, f64::max);
    assert!(highest_cut <= lowest_kept, "{published:?}");
    assert!(
        cut.iter().any(|a| a.2 == highest_cut && spent + a.1 > 100),
        "{published:?}"
    );

    // A read of a resource below the line is refused; one above it is the upstream's.
    let reads = [cut[0].0, kept[0].0];
    let read = world.client(&line, "legacy", &reads);
    assert_eq!(read["reads"][0]["ok"], false, "{}", read["reads"]);
    assert_eq!(read["reads"][0]["code"], -32002);
    assert_eq!(read["reads"][1]["ok"], true, "{}", read["reads"]);

    // Wrapped again without --expose: everything the set allows, and no --expose written;
    // unwrap still gives back the file as it was before the first wrap.
    world.ok(&["wrap", "claude-code", "py"]);
    // The wrapped entry is a new command in the project's file: approved again.
    world.ok(&["trust", "--yes"]);
    let line = world.entry("py");
    assert!(!line.iter().any(|a| a == "--expose"), "{line:?}");
    let all = world.client(&line, "legacy", &[]);
    let expected: Vec<&str> = allowed.iter().map(|a| a.0).collect();
    assert_eq!(all["resources"], json!(expected));
    world.ok(&["unwrap", "claude-code", "py"]);
    assert_eq!(
        std::fs::read_to_string(world.file()).unwrap(),
        world.original
    );
}

/// Gemini CLI and Codex read a wrapped project entry from their own project files: Gemini
/// starts it and reports it connected under its own name; Codex (whose `mcp list` does not
/// connect) lists it enabled, running `mcpick wrap-serve`.
#[test]
fn gemini_and_codex_list_a_wrapped_project_entry() {
    let world = World::new();
    let project = world.project();
    std::fs::create_dir_all(project.join(".gemini")).unwrap();
    std::fs::create_dir_all(project.join(".codex")).unwrap();
    std::fs::create_dir_all(world.home().join(".gemini")).unwrap();
    let codex_home = world.home().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    let gemini_file = project.join(".gemini/settings.json");
    let gemini_original = format!(
        "{{\n  \"mcpServers\": {{\n    \"py\": {{ \"command\": {}, \"args\": [{}, \"--count\", \"40\"], \"trust\": true }}\n  }}\n}}\n",
        json!(python()),
        json!(py_server())
    );
    std::fs::write(&gemini_file, &gemini_original).unwrap();
    let codex_file = project.join(".codex/config.toml");
    let codex_original = format!(
        "# the project's servers\n[mcp_servers.py]\ncommand = {}\nargs = [{}, \"--count\", \"40\"]\n",
        json!(python()),
        json!(py_server())
    );
    std::fs::write(&codex_file, &codex_original).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!("[projects.{}]\ntrust_level = \"trusted\"\n", json!(project)),
    )
    .unwrap();
    world.ok(&["wrap", "gemini", "py"]);
    world.ok(&["wrap", "codex", "py"]);

    let host = |bin: &str, extra: &[(&str, &str)]| -> String {
        let mut command = world.command(&[
            peers()
                .join("node/node_modules/.bin")
                .join(bin)
                .to_string_lossy()
                .into_owned(),
            "mcp".into(),
            "list".into(),
        ]);
        command.env("CODEX_HOME", &codex_home).stdin(Stdio::null());
        for (k, v) in extra {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        format!("{}{}", stdout(&out), stderr(&out))
    };
    let text = host(
        "gemini",
        &[
            ("GEMINI_API_KEY", "dummy"),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true"),
        ],
    );
    assert!(
        text.lines().any(|l| l.contains("py: mcpick wrap-serve")
            && l.contains("--name py")
            && l.ends_with("- Connected")),
        "gemini mcp list: {text}"
    );
    let text = host("codex", &[]);
    assert!(
        text.lines().any(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            cols.first() == Some(&"py")
                && cols.get(1) == Some(&"mcpick")
                && cols.get(2) == Some(&"wrap-serve")
                && cols.contains(&"enabled")
        }),
        "codex mcp list: {text}"
    );

    world.ok(&["unwrap", "gemini", "py"]);
    world.ok(&["unwrap", "codex", "py"]);
    assert_eq!(
        std::fs::read_to_string(&gemini_file).unwrap(),
        gemini_original
    );
    assert_eq!(
        std::fs::read_to_string(&codex_file).unwrap(),
        codex_original
    );
}

/// The call every host is made to make: `touch_resource` on a listed URI. Its answer,
/// `URI revision N`, is counted by the upstream process itself.
const TOUCHED: &str = "py://items/alpha/5";

/// What the upstream answers the first touch of [`TOUCHED`]: nothing but that process can
/// say it.
fn touched_answer() -> String {
    format!("{TOUCHED} revision 1")
}

/// True when a model request of `api` offers the upstream's `touch_resource` under the name
/// the host gives the entry `py`.
fn offers_touch(api: &str, body: &Value) -> bool {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    match api {
        "anthropic" => tools.iter().any(|t| t["name"] == "mcp__py__touch_resource"),
        "gemini" => tools.iter().any(|t| {
            t["functionDeclarations"]
                .as_array()
                .is_some_and(|d| d.iter().any(|f| f["name"] == "mcp_py_touch_resource"))
        }),
        // Codex puts a server's tools in a namespace named after the entry.
        _ => tools.iter().any(|t| {
            t["type"] == "namespace"
                && t["name"] == "mcp__py"
                && t["tools"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|f| f["name"] == "touch_resource"))
        }),
    }
}

/// The text of every tool result a model request of `api` carries.
fn tool_results(api: &str, body: &Value) -> String {
    let mut out = String::new();
    let mut take = |part: &Value| common::model_stub::all_text(part, &mut out);
    match api {
        "anthropic" => {
            for message in body["messages"].as_array().into_iter().flatten() {
                for block in message["content"].as_array().into_iter().flatten() {
                    if block["type"] == "tool_result" {
                        take(&block["content"]);
                    }
                }
            }
        }
        "gemini" => {
            for content in body["contents"].as_array().into_iter().flatten() {
                for part in content["parts"].as_array().into_iter().flatten() {
                    if let Some(response) = part.get("functionResponse") {
                        take(response);
                    }
                }
            }
        }
        _ => {
            for item in body["input"].as_array().into_iter().flatten() {
                if item["type"] == "function_call_output" {
                    take(&item["output"]);
                }
            }
        }
    }
    out
}

/// The host's model requests, recorded by `stub` (`api`), prove the round trip: the first
/// that offers the upstream's tool under the wrapped entry's name is answered with a call of
/// it, the next carries the upstream's own answer, and the upstream logged the call.
fn assert_round_trip(world: &World, stub: &common::model_stub::Stub, api: &str, out: &str) {
    let requests = stub.requests(api);
    let first = requests
        .iter()
        .position(|r| offers_touch(api, r))
        .unwrap_or_else(|| {
            panic!(
                "{api}: no model request offered the upstream's tool ({} requests): {out}",
                requests.len()
            )
        });
    assert!(
        tool_results(api, &requests[first]).is_empty(),
        "{api}: a result before the call"
    );
    let answered = requests[first + 1..]
        .iter()
        .map(|r| tool_results(api, r))
        .find(|t| !t.is_empty())
        .unwrap_or_else(|| panic!("{api}: no request carried the tool's result: {out}"));
    assert!(
        answered.contains(&touched_answer()),
        "{api}: the result is not the upstream's answer: {answered}"
    );
    let calls = world.calls();
    assert_eq!(calls.len(), 1, "{api}: the upstream's calls: {calls:?}");
    assert_eq!(calls[0]["name"], "touch_resource");
    assert_eq!(calls[0]["arguments"], json!({ "uri": TOUCHED }));
}

/// Runs a host CLI from the peers in the project, with `env`.
fn run_host(world: &World, program: &str, args: &[&str], env: &[(&str, String)]) -> String {
    let bin = peers().join("node/node_modules/.bin").join(program);
    let line: Vec<String> = std::iter::once(bin.to_string_lossy().into_owned())
        .chain(args.iter().map(|a| a.to_string()))
        .collect();
    let mut command = world.command(&line);
    command.stdin(Stdio::null());
    for (k, v) in env {
        command.env(k, v);
    }
    let out = run_with_timeout(command, std::time::Duration::from_secs(120));
    format!("{}{}", stdout(&out), stderr(&out))
}

/// Claude Code (`claude -p`): the wrapped entry's tools are offered as
/// `mcp__py__<tool>`, and a call the model makes reaches the upstream and its answer the
/// model. `claude -p` connects MCP servers in the background and asks the model without
/// waiting (`MCP_CONNECTION_NONBLOCKING=false` waits), and defers MCP tools behind its
/// ToolSearch (`ENABLE_TOOL_SEARCH=false` lists them): both are the host's, wrapped or not.
#[test]
fn claude_code_calls_the_upstreams_tool_through_the_wrapped_entry() {
    let world = World::new();
    world.ok(&["policy", "--audience", "any"]);
    world.ok(&["wrap", "claude-code", "py"]);
    // The wrapped entry is a new command in the project's file: approved again.
    world.ok(&["trust", "--yes"]);
    std::fs::write(
        world.home().join(".claude.json"),
        json!({ "hasCompletedOnboarding": true, "projects": { world.project().to_str().unwrap(): {
            "hasTrustDialogAccepted": true, "enableAllProjectMcpServers": true } } })
        .to_string(),
    )
    .unwrap();
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = common::model_stub::Stub::calling(
        stub_dir.path(),
        "mcp__py__touch_resource",
        &json!({ "uri": TOUCHED }),
    );
    let mut env = stub.claude_env();
    env.push(("MCP_CONNECTION_NONBLOCKING", "false".into()));
    env.push(("ENABLE_TOOL_SEARCH", "false".into()));
    let out = run_host(
        &world,
        "claude",
        &[
            "-p",
            &format!("Touch {TOUCHED}"),
            "--output-format",
            "json",
            "--allowedTools",
            "mcp__py__touch_resource",
        ],
        &env,
    );
    assert_round_trip(&world, &stub, "anthropic", &out);
}

/// Gemini CLI (`gemini -p`): a wrapped entry keeps the original's `"trust": true` (without it
/// Gemini offers no MCP tool), its tools are offered as `mcp_py_<tool>`, and the call and its
/// answer pass through the proxy.
#[test]
fn gemini_calls_the_upstreams_tool_through_the_wrapped_entry() {
    let world = World::new();
    world.ok(&["policy", "--audience", "any"]);
    let project = world.project();
    std::fs::create_dir_all(project.join(".gemini")).unwrap();
    std::fs::create_dir_all(world.home().join(".gemini")).unwrap();
    std::fs::write(
        world.home().join(".gemini/settings.json"),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
    )
    .unwrap();
    std::fs::write(
        project.join(".gemini/settings.json"),
        json!({ "mcpServers": { "py": {
            "command": python(), "args": [py_server(), "--count", "40"],
            "env": { "PY_CALL_LOG": World::call_log_in(world.dir.path()) }, "trust": true } } })
        .to_string(),
    )
    .unwrap();
    world.ok(&["wrap", "gemini", "py"]);
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = common::model_stub::Stub::calling(
        stub_dir.path(),
        "mcp_py_touch_resource",
        &json!({ "uri": TOUCHED }),
    );
    let out = run_host(
        &world,
        "gemini",
        &["-p", &format!("Touch {TOUCHED}"), "--output-format", "json"],
        &stub.gemini_env(),
    );
    assert_round_trip(&world, &stub, "gemini", &out);
}

/// Codex (`codex exec`): its first model request had no MCP tools even for an unwrapped
/// server because Codex does not wait for servers slower to start than its optional-startup
/// grace (a Python SDK server takes about a second; `mcp_optional_startup_grace_ms` in the
/// user's config.toml waits longer), and `approval_policy = "never"` refuses every MCP tool
/// call that needs approval (the entry's own `default_tools_approval_mode = "approve"`,
/// which the wrapped entry keeps, allows it). Then the wrapped entry's tools are offered in
/// the namespace `mcp__py`, and the call and its answer pass through the proxy.
#[test]
fn codex_calls_the_upstreams_tool_through_the_wrapped_entry() {
    let world = World::new();
    world.ok(&["policy", "--audience", "any"]);
    let project = world.project();
    std::fs::create_dir_all(project.join(".codex")).unwrap();
    let codex_home = world.home().join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        project.join(".codex/config.toml"),
        format!(
            "[mcp_servers.py]\ncommand = {}\nargs = [{}, \"--count\", \"40\"]\nenv = {{ PY_CALL_LOG = {} }}\ndefault_tools_approval_mode = \"approve\"\n",
            json!(python()),
            json!(py_server()),
            json!(World::call_log_in(world.dir.path()))
        ),
    )
    .unwrap();
    world.ok(&["wrap", "codex", "py"]);
    let wrapped = std::fs::read_to_string(project.join(".codex/config.toml")).unwrap();
    assert!(
        wrapped.contains("wrap-serve") && wrapped.contains("default_tools_approval_mode"),
        "{wrapped}"
    );
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = common::model_stub::Stub::calling(
        stub_dir.path(),
        "mcp__py__touch_resource",
        &json!({ "uri": TOUCHED }),
    );
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model_provider = \"stub\"\nmodel = \"gpt-5\"\napproval_policy = \"never\"\nsandbox_mode = \"read-only\"\nmcp_optional_startup_grace_ms = 60000\n\
             [model_providers.stub]\nname = \"stub\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nenv_key = \"STUB_API_KEY\"\nwire_api = \"responses\"\n\
             [projects.{}]\ntrust_level = \"trusted\"\n",
            stub.port,
            json!(project)
        ),
    )
    .unwrap();
    let out = run_host(
        &world,
        "codex",
        &["exec", "--skip-git-repo-check", &format!("Touch {TOUCHED}")],
        &[
            ("CODEX_HOME", codex_home.display().to_string()),
            ("STUB_API_KEY", "dummy".into()),
        ],
    );
    assert_round_trip(&world, &stub, "openai", &out);
    // Codex also gives its model tools of its own to list and read a server's resources
    // (what the README's host table says).
    let offered = stub
        .requests("openai")
        .into_iter()
        .find(|r| offers_touch("openai", r))
        .map(|r| r.to_string())
        .unwrap_or_default();
    for tool in ["list_mcp_resources", "read_mcp_resource"] {
        assert!(
            offered.contains(&format!("\"{tool}\"")),
            "Codex offered no `{tool}`"
        );
    }
}

fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The child processes of `pid` (Linux: `/proc/PID/task/*/children`).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .flatten()
    {
        let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        out.extend(text.split_whitespace().map(|p| p.parse::<u32>().unwrap()));
    }
    out
}

/// An upstream that ends mid-session is reported to the host as that server failing, with
/// its reason, not as a hang or a closed pipe: a request in flight when it crashes, and every
/// request after, get a JSON-RPC error naming its exit status and its last stderr lines; an
/// upstream killed between requests is reported the same way at the next request; the proxy
/// says why on its stderr and exits (status 1) once the host closes stdin.
#[test]
fn an_upstream_that_ends_is_reported_to_the_host_as_the_server_failing_with_why() {
    let world = World::new();
    let mcpick = mcpick_bin();
    std::fs::write(
        world.file(),
        json!({ "mcpServers": {
            "crashes": { "command": fixture_bin(), "args": ["--count", "30", "--crash-after", "1"] },
            "killed": { "command": mcpick, "args": ["demo-server", "--count", "30"] },
        } })
        .to_string(),
    )
    .unwrap();
    world.ok(&["policy", "--audience", "any"]);
    world.ok(&["wrap", "claude-code", "crashes"]);
    world.ok(&["wrap", "claude-code", "killed"]);
    let start = |name: &str| {
        let line = world.entry(name);
        let args: Vec<&str> = line[1..].iter().map(String::as_str).collect();
        common::rpc::Rpc::start_home(mcpick, &args, &world.project(), &world.home())
    };
    let failed = |reply: &Value, why: &str| {
        assert_eq!(reply["error"]["code"], -32000, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(why), "{why:?} not in {message:?}");
    };

    // In flight: the demo server crashes on its second resources request, the read.
    let mut rpc = start("crashes");
    let list = rpc.request("resources/list", json!({}));
    let uri = list["result"]["resources"][0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let read = rpc.request("resources/read", json!({ "uri": uri }));
    let why = "the server `crashes` ended (exit status: 1)\n  server stderr (last lines):\n    demo-server: crashing on purpose after 1 requests";
    failed(&read, why);
    // After: every request, answered at once with the same reason.
    failed(&rpc.request("tools/list", json!({})), why);
    failed(&rpc.request("ping", json!({})), why);
    let (code, stderr) = rpc.end();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("wrap `crashes`: {why}")),
        "{stderr}"
    );

    // Between requests: the upstream is killed while the host waits for nothing; the next
    // request, sent at once, is answered with why.
    let mut rpc = start("killed");
    assert_eq!(rpc.request("ping", json!({}))["result"], json!({}));
    let upstream: Vec<u32> = children(rpc.pid())
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| contains_bytes(&c, b"demo-server"))
        })
        .collect();
    assert_eq!(
        upstream.len(),
        1,
        "the proxy runs one upstream: {upstream:?}"
    );
    // SAFETY: kill(2) on the upstream this test's proxy started.
    assert_eq!(unsafe { libc::kill(upstream[0] as i32, libc::SIGKILL) }, 0);
    failed(
        &rpc.request("resources/list", json!({})),
        "the server `killed` ended (signal: 9 (SIGKILL))",
    );
    let (code, stderr) = rpc.end();
    assert_eq!(code, Some(1), "{stderr}");
}

/// The TypeScript SDK's legacy client (1.x, `initialize`) through a wrapped entry: the
/// server's version, capabilities, instructions and every non-resource method's answer
/// (tools, an unknown tool, a tool error, prompts, completion, logging, ping, an unknown
/// method: results and errors alike) are the upstream's own, for the Python SDK server
/// (tools) and the demo server (completion); only the resource list is narrowed.
#[test]
fn the_typescript_sdk_client_gets_the_upstreams_answers_through_the_wrapped_entry() {
    let world = World::new();
    // The same demo catalogue over Streamable HTTP: a wrapped HTTP entry.
    let web = Background::demo_http(&["--count", "30"]);
    std::fs::write(
        world.file(),
        json!({ "mcpServers": {
            "py": { "command": python(), "args": [py_server(), "--count", "40"] },
            "demo": { "command": mcpick_bin(), "args": ["demo-server", "--count", "30"] },
            "web": { "type": "http", "url": web.url },
        } })
        .to_string(),
    )
    .unwrap();
    world.ok(&["policy", "--audience", "any"]);
    world.ok(&["trust", "--yes"]);
    world.ok(&["exclude", "--server", "py", "py://items/beta/*"]);
    world.ok(&["wrap", "claude-code", "py"]);
    // The wrapped entry is a new command in the project's file: approved again.
    world.ok(&["trust", "--yes"]);
    world.ok(&["wrap", "claude-code", "demo"]);
    world.ok(&["wrap", "claude-code", "web"]);
    let script = repo_root().join("tests/peers/node/wrap_client.cjs");
    let session = |calls: &[(&str, Value)], line: &[String]| -> Value {
        let mut args = vec![script.to_string_lossy().into_owned()];
        for (name, arguments) in calls {
            args.extend(["--call".into(), name.to_string(), arguments.to_string()]);
        }
        args.push("--".into());
        args.extend(line.iter().cloned());
        let out = world
            .command(&[&["node".to_string()], &args[..]].concat())
            .env("NODE_PATH", peers().join("node/node_modules"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "wrap_client.cjs: {}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let py_calls = [
        ("touch_resource", json!({ "uri": TOUCHED })),
        ("touch_resource", json!({ "uri": "py://nope" })),
        ("add_resource", json!({ "uri": "py://added/ts" })),
    ];
    let demo_line: Vec<String> = ["demo-server", "--count", "30"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    for (name, calls, upstream) in [
        ("py", &py_calls[..], upstream()),
        (
            "demo",
            &[][..],
            [&[mcpick_bin().to_string()], &demo_line[..]].concat(),
        ),
        ("web", &[][..], vec![web.url.clone()]),
    ] {
        let direct = session(calls, &upstream);
        let through = session(calls, &world.entry(name));
        for key in ["server", "capabilities", "instructions"] {
            assert_eq!(through[key], direct[key], "{name}: {key}");
        }
        let answers = direct["answers"].as_object().unwrap();
        assert!(answers.len() >= 9, "{name}: {answers:?}");
        for (method, answer) in answers {
            assert_eq!(&through["answers"][method], answer, "{name}: {method}");
        }
        let hidden = |u: &Value| u.as_str().unwrap().starts_with("py://items/beta/");
        let listed = direct["resources"].as_array().unwrap();
        let expected: Vec<&Value> = listed.iter().filter(|u| !hidden(u)).collect();
        assert_eq!(through["resources"], json!(expected), "{name}: resources");
        if name == "py" {
            assert!(listed.iter().any(hidden), "the upstream lists some");
            assert!(direct["answers"]["tools/call 0 touch_resource"]["result"].is_object());
            assert!(direct["answers"]["tools/call 1 touch_resource"]["error"].is_object());
        } else {
            assert!(
                direct["answers"]["completion/complete"]["result"]["completion"]["values"]
                    .as_array()
                    .is_some_and(|v| !v.is_empty()),
                "the demo completes: {}",
                direct["answers"]["completion/complete"]
            );
        }
    }
}

/// Claude Code's `@py:` completion, in its interactive prompt (a real terminal: tmux), offers
/// the resources the wrapped entry publishes: the pinned one when its group is typed, and
/// none of the excluded ones when theirs is (the upstream lists them).
#[test]
fn claude_codes_mention_completion_offers_what_the_set_allows() {
    let world = World::new();
    world.ok(&["policy", "--audience", "any"]);
    world.ok(&["exclude", "--server", "py", "py://items/beta/*"]);
    world.ok(&["pin", "--server", "py", "py://items/gamma/2"]);
    world.ok(&["wrap", "claude-code", "py"]);
    // The wrapped entry is a new command in the project's file: approved again.
    world.ok(&["trust", "--yes"]);
    // A model API that answers, should anything be sent (nothing is: no prompt is submitted).
    let stub_dir = tempfile::tempdir().unwrap();
    let stub = common::model_stub::Stub::start(stub_dir.path());
    let env = vec![
        ("HOME".to_string(), world.home().display().to_string()),
        ("PATH".to_string(), World::path_var()),
    ];
    let tmux = common::model_stub::claude_tui(&world.project(), &world.home(), &env, &stub);
    let screen = || tmux.screen();
    let wait_for = |what: &dyn Fn(&str) -> bool, secs: u64| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        while std::time::Instant::now() < deadline {
            if what(&screen()) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        false
    };
    let offered = |s: &str, uri: &str| s.lines().any(|l| l.contains(&format!("◇ py:{uri} ")));
    let ready = wait_for(&|s| s.contains("auto mode") || s.contains('❯'), 60);
    // Typed once the wrapped entry is connected: its resources are what completes.
    let typed = |text: &str| {
        tmux.keys(&["C-u"]);
        std::thread::sleep(std::time::Duration::from_millis(300));
        tmux.type_text(text);
    };
    let mut pinned = false;
    if ready {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !pinned && std::time::Instant::now() < deadline {
            typed("@py:gamma");
            pinned = wait_for(&|s| offered(s, "py://items/gamma/2"), 3);
        }
    }
    let gamma = screen();
    typed("@py:beta");
    // The completion settles on what matches best: wait for it to show a list again.
    let settled = wait_for(&|s| s.contains("◇ py:"), 10);
    std::thread::sleep(std::time::Duration::from_secs(1));
    let beta = screen();
    drop(tmux);
    assert!(ready, "Claude Code's prompt did not appear:\n{gamma}");
    assert!(pinned, "the pinned resource was not offered:\n{gamma}");
    assert!(settled, "no completion for @py:beta:\n{beta}");
    assert!(
        !beta.lines().any(|l| l.contains("◇ py:py://items/beta/")),
        "an excluded resource was offered:\n{beta}"
    );
    // The upstream does list them: the set is what hides them.
    let direct = world.client(&upstream(), "legacy", &[]);
    assert!(
        direct["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u.as_str().unwrap().starts_with("py://items/beta/"))
    );
}

/// Wrapping an entry whose definition holds literal values that may be secrets says that the
/// record keeps them and should stay out of version control; one written with `${VAR}` does
/// not.
#[test]
fn wrapping_an_entry_with_literal_secrets_says_where_they_are_kept() {
    let world = World::new();
    let out = world.run(&["wrap", "claude-code", "py"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("out of version control") && said.contains("env `PY_TEST`"),
        "{said}"
    );
    assert!(!said.contains(&python()), "no value is quoted: {said}");
    let out = world.run(&["wrap", "claude-code", "other"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("version control"),
        "{}",
        stderr(&out)
    );
}

/// A filesystem server that resolves a `file:` URI as the operating system resolves a path
/// (`tests/peers/fs_server.py`) reads one file under many spellings. With
/// `file://PROJECT/secret.env` excluded, none of them gets its text through the wrapped
/// entry (`//` inside or after the host, `localhost` as the host, `./`, `x/../`, `%73`),
/// while the upstream itself gives it for each (the aliases are real) and an allowed read
/// still passes.
#[test]
fn aliases_of_an_excluded_file_do_not_pass_a_wrapped_path_normalising_server() {
    let world = World::new();
    let project = world.project();
    std::fs::write(project.join("secret.env"), "API_KEY=hunter2\n").unwrap();
    std::fs::write(project.join("README.md"), "Read me.\n").unwrap();
    let upstream = vec![
        python(),
        repo_root()
            .join("tests/peers/fs_server.py")
            .to_string_lossy()
            .into_owned(),
        "--root".to_string(),
        project.to_string_lossy().into_owned(),
    ];
    let entry = json!({ "mcpServers": { "fs": {
        "command": upstream[0], "args": upstream[1..] } } });
    std::fs::write(world.file(), format!("{entry:#}\n")).unwrap();
    world.ok(&["trust", "--yes"]);
    let p = project.to_str().unwrap();
    let secret = format!("file://{p}/secret.env");
    world.ok(&["exclude", "--server", "fs", &secret]);
    world.ok(&["wrap", "claude-code", "fs"]);
    world.ok(&["trust", "--yes"]);

    let (parent, last) = p.rsplit_once('/').unwrap();
    let aliases = [
        format!("file://{p}//secret.env"),
        format!("file:///{p}/secret.env"),
        format!("file://localhost{p}/secret.env"),
        format!("file://{parent}//{last}/secret.env"),
        format!("file://LOCALHOST{p}/./secret.env"),
        format!("file://{p}/x/../secret.env"),
        format!("file://{p}/%73ecret.env"),
    ];
    let mut requests = vec![
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri": format!("file://{p}/README.md")}}),
        json!({"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri": secret}}),
    ];
    for (i, alias) in aliases.iter().enumerate() {
        requests.push(
            json!({"jsonrpc":"2.0","id": 10 + i,"method":"resources/read","params":{"uri": alias}}),
        );
    }
    let direct = raw_session(world.command(&upstream), &requests);
    let through = raw_session(world.command(&world.entry("fs")), &requests);
    assert_eq!(through[1], direct[1], "an allowed read passes");
    assert!(direct[1].to_string().contains("Read me."), "{}", direct[1]);
    for (reply, uri) in through[2..]
        .iter()
        .zip([&secret].into_iter().chain(&aliases))
    {
        assert_eq!(reply["error"]["code"], -32002, "{uri}: {reply}");
        assert!(!reply.to_string().contains("hunter2"), "{uri}: {reply}");
    }
    for (reply, uri) in direct[3..].iter().zip(&aliases) {
        assert!(
            reply.to_string().contains("hunter2"),
            "the upstream reads {uri} as the excluded file: {reply}"
        );
    }
}
