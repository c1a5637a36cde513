//! No planted secret in any output or file: connection errors (stderr and `ls --json`),
//! saved context sets, and config-file servers named by their definition as written. And no
//! raw escape sequence or C1 control on a terminal or in `--json` output.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Background, exit_code, mcpick_bin, mcpick_in, stderr, stdout, trust_in};

const QUERY: &str = "QueryPlant7731";
const PASSWORD: &str = "PassPlant5520";
const HEADER: &str = "HeaderPlant8842";
const ARG: &str = "ArgPlant3319";
const ASSIGN: &str = "AssignPlant6604";
const ENV: &str = "EnvPlant4471";
const PLANTS: [&str; 6] = [QUERY, PASSWORD, HEADER, ARG, ASSIGN, ENV];

/// A fresh, empty working directory for one test.
fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("secrets")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Fails when any planted secret appears in `text`.
fn assert_clean(what: &str, text: &str) {
    for plant in PLANTS {
        assert!(
            !text.contains(plant),
            "{what} leaks the planted secret {plant}:\n{text}"
        );
    }
}

fn outputs(out: &std::process::Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

#[test]
fn an_unreachable_url_leaks_no_secret() {
    let dir = workdir("url");
    let url = format!("http://user:{PASSWORD}@127.0.0.1:9/mcp?token={QUERY}");
    let header = format!("X-Key: {HEADER}");
    for sse in [false, true] {
        let mut args = vec![
            "ls",
            "--json",
            "--timeout",
            "10",
            "--url",
            &url,
            "-H",
            &header,
        ];
        if sse {
            args.push("--sse");
        }
        let out = mcpick_in(&dir, &[], &args);
        assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
        assert_clean("ls --json --url", &outputs(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let error = doc["servers"][0]["error"].as_str().unwrap();
        // Named by the masked definition.
        assert!(
            error.contains("http://***@127.0.0.1:9/mcp?token=***"),
            "{error}"
        );
    }
}

#[test]
fn a_server_answering_an_error_leaks_no_secret() {
    // A reachable server at a wrong path: the HTTP error and rmcp's message quote URLs.
    let server = Background::demo_http(&["--count", "5"]);
    let url = server
        .at("/nope")
        .replace("http://", &format!("http://u:{PASSWORD}@"))
        + &format!("?token={QUERY}#{QUERY}");
    let header = format!("Authorization: Bearer {HEADER}");
    let out = mcpick_in(
        &workdir("wrong-path"),
        &[],
        &[
            "ls",
            "--json",
            "--timeout",
            "10",
            "--url",
            &url,
            "-H",
            &header,
        ],
    );
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert_clean("ls --json (HTTP error)", &outputs(&out));
}

#[test]
fn a_command_that_does_not_start_leaks_no_secret() {
    let dir = workdir("command");
    let token = format!("--token={ARG}");
    let assign = format!("API_KEY={ASSIGN}");
    let out = mcpick_in(
        &dir,
        &[],
        &[
            "ls",
            "--json",
            "--",
            "/nonexistent/mcp-server",
            "--password",
            ARG,
            &token,
            &assign,
        ],
    );
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert_clean("ls --json -- COMMAND", &outputs(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = doc["servers"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("/nonexistent/mcp-server --password *** --token=*** API_KEY=***"),
        "{error}"
    );
}

#[test]
fn a_config_server_is_named_as_written_and_its_env_values_stay_out() {
    let dir = workdir("config");
    std::fs::write(
        dir.join("mcpick.toml"),
        r#"
[servers.remote]
url = "http://127.0.0.1:9/mcp?token=${PLANT_TOKEN}"
headers = { X-Key = "${PLANT_HEADER}" }

[servers.local]
command = "sh"
args = ["-c", "echo \"starting with $SECRET_VALUE\" >&2; exit 3", "--token", "${PLANT_ARG}"]
env = { SECRET_VALUE = "${PLANT_ENV}" }
"#,
    )
    .unwrap();
    let env = [
        ("PLANT_TOKEN", QUERY),
        ("PLANT_HEADER", HEADER),
        ("PLANT_ARG", ARG),
        ("PLANT_ENV", ENV),
    ];
    trust_in(&dir, &env);
    let out = mcpick_in(&dir, &env, &["ls", "--json", "--timeout", "10"]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert_clean("ls --json (config servers)", &outputs(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = |name: &str| {
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .and_then(|s| s["error"].as_str())
            .unwrap_or_else(|| panic!("no error for {name}: {doc:#}"))
            .to_string()
    };
    let remote = error("remote");
    assert!(
        remote.contains("http://127.0.0.1:9/mcp?token=${PLANT_TOKEN}"),
        "{remote}"
    );
    // The server's own stderr is shown, with the environment value scrubbed.
    let local = error("local");
    assert!(local.contains("starting with ***"), "{local}");

    // A set made from config servers keeps the placeholders as written.
    let set = dir.join("set.json");
    let set_arg = set.to_string_lossy().into_owned();
    for server in ["remote", "local"] {
        let out = mcpick_in(
            &dir,
            &env,
            &[
                "pin",
                "--set",
                &set_arg,
                "--server",
                server,
                "--allow-missing",
                "demo://x",
            ],
        );
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        assert_clean("pin (config servers)", &outputs(&out));
    }
    let text = std::fs::read_to_string(&set).unwrap();
    assert_clean("the saved set", &text);
    assert!(text.contains("?token=${PLANT_TOKEN}"), "{text}");
    assert!(text.contains(r#""X-Key": "${PLANT_HEADER}""#), "{text}");
    assert!(text.contains(r#""SECRET_VALUE": "${PLANT_ENV}""#), "{text}");
    assert!(text.contains(r#""${PLANT_ARG}""#), "{text}");
}

#[test]
fn a_successful_pin_saves_no_credential_and_says_what_was_masked() {
    let header = format!("X-Key: {HEADER}");
    let server = Background::fixture_http(&["--count", "5", "--require-header", &header]);
    let dir = workdir("pin");
    let set = dir.join("set.json");
    let set_arg = set.to_string_lossy().into_owned();
    let url = server
        .at("/mcp")
        .replace("http://", &format!("http://me:{PASSWORD}@"))
        + &format!("?token={QUERY}");
    let out = mcpick_in(
        &dir,
        &[],
        &[
            "pin",
            "--set",
            &set_arg,
            "--url",
            &url,
            "-H",
            &header,
            "demo://clock/now",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_clean("pin --url", &outputs(&out));
    let note = stderr(&out);
    assert!(note.contains("header `X-Key`"), "{note}");
    assert!(note.contains("the URL's credentials"), "{note}");
    assert!(note.contains("mcpick.toml"), "{note}");
    assert!(note.contains("token=${TOKEN}"), "{note}");
    assert!(note.contains(r#"X-Key = "${X_KEY}""#), "{note}");

    // A stdio server with a secret argument, through a shell so the argument is inert.
    let token = format!("--api-key={ARG}");
    let out = mcpick_in(
        &dir,
        &[],
        &[
            "pin",
            "--set",
            &set_arg,
            "demo://clock/now",
            "--name",
            "shell",
            "--",
            "sh",
            "-c",
            "exec \"$0\" demo-server --count 5",
            mcpick_bin(),
            &token,
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_clean("pin -- COMMAND", &outputs(&out));
    assert!(stderr(&out).contains("argument 4"), "{}", stderr(&out));

    let text = std::fs::read_to_string(&set).unwrap();
    assert_clean("the saved set", &text);
    assert!(text.contains("?token=***"), "{text}");
    assert!(text.contains("http://***@127.0.0.1"), "{text}");
    assert!(text.contains(r#""X-Key": "***""#), "{text}");
    assert!(text.contains(r#""--api-key=***""#), "{text}");

    // Used from the set alone by this user, the secrets kept on this machine are put back.
    let out = mcpick_in(
        &dir,
        &[],
        &["preview", "--set", &set_arg, "--format", "json"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_clean("preview", &outputs(&out));
    // Elsewhere (another data folder) the masked server is refused with a reason, not
    // dialled with `***`.
    let elsewhere = dir.join("elsewhere");
    let out = mcpick_in(
        &dir,
        &[("MCPICK_DATA_DIR", elsewhere.to_str().unwrap())],
        &["preview", "--set", &set_arg, "--format", "json"],
    );
    assert_ne!(exit_code(&out), 0);
    assert!(
        stderr(&out).contains("masked when the set was saved"),
        "{}",
        stderr(&out)
    );
}

/// Where a set's secret went, for the tests of kept secrets.
fn kept_in(data: &Path) -> String {
    std::fs::read_to_string(data.join("secrets.json")).unwrap_or_default()
}

#[test]
fn a_password_in_a_typed_command_is_kept_for_its_user_and_out_of_the_set() {
    const HUNTER: &str = "hunter2Plant";
    let dir = workdir("kept");
    let data = dir.join("data");
    let data_env = [("MCPICK_DATA_DIR", data.to_str().unwrap())];
    let db = format!("postgres://user:{HUNTER}@localhost/db");
    // The demo server ignores the shell's extra argument: the password is inert.
    let pin = |uri: &str| {
        mcpick_in(
            &dir,
            &data_env,
            &[
                "pin",
                uri,
                "--name",
                "db",
                "--",
                "sh",
                "-c",
                "exec \"$0\" demo-server --count 5",
                mcpick_bin(),
                &db,
            ],
        )
    };
    for uri in ["demo://clock/now", "file:///project/README.md"] {
        let out = pin(uri);
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        assert!(!outputs(&out).contains(HUNTER), "{}", outputs(&out));
        let said = stderr(&out);
        assert!(
            said.contains("kept in your data folder, not in the set"),
            "{said}"
        );
        assert!(said.contains("${VAR}"), "{said}");
    }
    let set = std::fs::read_to_string(dir.join("mcpick.context.json")).unwrap();
    assert!(!set.contains(HUNTER), "{set}");
    assert!(set.contains("postgres://***@localhost/db"), "{set}");
    assert!(kept_in(&data).contains(HUNTER));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&data.join("secrets.json")), 0o600);
        assert_eq!(mode(&data), 0o700);
    }

    // The same user on the same machine: the set works, approved, and says no secret.
    let out = mcpick_in(&dir, &data_env, &["preview", "--format", "json"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!outputs(&out).contains(HUNTER), "{}", outputs(&out));
    assert!(
        stdout(&out).contains("demo://clock/now"),
        "{}",
        stdout(&out)
    );

    // Another machine (another data folder): refused, said once for the server (not once
    // per mark), with the `${VAR}` form that works anywhere.
    let other = dir.join("other");
    let other_env = [("MCPICK_DATA_DIR", other.to_str().unwrap())];
    let out = mcpick_in(&dir, &other_env, &["trust", "--yes"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = mcpick_in(&dir, &other_env, &["preview"]);
    assert_ne!(exit_code(&out), 0);
    let (said, seen) = (stderr(&out), stdout(&out));
    assert_eq!(
        said.matches("not kept on this machine").count(),
        1,
        "{said}"
    );
    assert!(said.contains("${VAR}"), "{said}");
    assert_eq!(said.matches("unavailable").count(), 1, "{said}");
    assert_eq!(
        seen.matches("not kept on this machine").count(),
        1,
        "{seen}"
    );
}

/// Bytes that must never reach a terminal raw: ESC and C1 controls (as UTF-8 and as raw
/// 8-bit bytes).
fn raw_controls(bytes: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    for (i, w) in bytes.windows(2).enumerate() {
        if w[0] == 0xc2 && (0x80..=0x9f).contains(&w[1]) {
            found.push(i);
        }
    }
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0x1b || (b == 0x9b && (i == 0 || bytes[i - 1] != 0xc2)) {
            found.push(i);
        }
    }
    found
}

#[test]
fn errors_on_a_terminal_carry_no_escape_sequences() {
    let dir = workdir("tty");
    // The URL and the command hold an OSC title write, a colour CSI and an 8-bit CSI.
    let script = format!(
        "'{}' ls --timeout 10 --url \"$(printf 'http://127.0.0.1:9/\\033]0;pwned\\007x\\033[31my\\302\\2332J')\" \
         -- \"$(printf '/nonexistent/\\033]0;pwned\\007srv\\302\\2332J')\" --flag",
        mcpick_bin()
    );
    let home = common::isolated_home();
    let out = Command::new("script")
        .args(["-qec", &script, "/dev/null"])
        .current_dir(&dir)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run script(1)");
    let text = String::from_utf8_lossy(&out.stdout);
    // It really ran and reported both servers.
    assert!(text.contains("could not start"), "{text}");
    assert!(text.contains("127.0.0.1:9"), "{text}");
    // The escape sequences are removed whole (an OSC with its payload), never passed on.
    assert!(!text.contains("]0;"), "{text}");
    let found = raw_controls(&out.stdout);
    assert!(found.is_empty(), "raw controls at {found:?} in {text:?}");
}

#[test]
fn json_escapes_c1_del_and_bidi_and_still_parses() {
    let out = mcpick_in(&workdir("json"), &[], &["ls", "--json", "--demo"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let forbidden = |c: char| {
        matches!(c, '\u{0}'..='\u{9}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    let raw: Vec<char> = text.chars().filter(|&c| forbidden(c)).collect();
    assert!(raw.is_empty(), "raw controls in --json output: {raw:?}");
    for escape in ["\\u009b", "\\u007f", "\\u0085", "\\u2066", "\\u202e"] {
        assert!(text.contains(escape), "{escape} missing");
    }
    // Still JSON, and the strings are the server's exactly.
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let untrusted = doc["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "demo://untrusted/escape-sequences")
        .expect("the untrusted resource");
    assert_eq!(
        untrusted["title"],
        "Totally normal title \u{1b}[31mRED\u{1b}[0m\u{7}\u{9b}2J\u{7f}\u{85}\u{2066}"
    );
    assert!(
        untrusted["description"]
            .as_str()
            .unwrap()
            .contains("\u{202e}txt.exe\u{202c}")
    );
}

/// A URL's `user:password@` goes out as `Authorization: Basic …`; a server that quotes its
/// request headers in its errors (the fixture's `--echo-headers`) must not get that credential
/// (nor the userinfo itself) shown by any command or by `serve`'s log. With `-H
/// 'Authorization: …'` too, exactly one Authorization goes out, and it is the explicit one.
#[test]
fn a_basic_credential_echoed_by_the_server_is_masked_everywhere() {
    const USER: &str = "alice";
    const PASS: &str = "s3cretpassPlant";
    // base64("alice:s3cretpassPlant") and a piece of it (a server may quote it cut).
    let basic = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        format!("{USER}:{PASS}"),
    );
    let leaks = |what: &str, text: &str| {
        for secret in [
            basic.as_str(),
            &basic[..16],
            PASS,
            &format!("{USER}:{PASS}"),
        ] {
            assert!(!text.contains(secret), "{what} shows {secret}:\n{text}");
        }
    };
    let server = Background::fixture_http(&["--count", "5", "--echo-headers"]);
    let url = server.url.replacen("://", &format!("://{USER}:{PASS}@"), 1);
    let dir = workdir("basic");
    let log = dir.join("serve.log");
    let log_arg = log.to_str().unwrap().to_string();
    for command in [
        &["ls"][..],
        &["ls", "--json"],
        &["read", "demo://notes"],
        &["preview"],
        &["export"],
        &["check"],
        &["lock"],
    ] {
        let args = [command, &["--url", &url]].concat();
        let out = mcpick_in(&dir, &[], &args);
        let text = outputs(&out);
        assert!(
            text.contains("the request headers were"),
            "{args:?}: the server's error is shown: {text}"
        );
        assert!(text.contains("authorization: ***"), "{args:?}: {text}");
        leaks(&format!("{command:?}"), &text);
    }
    // serve: the upstream's failure goes to stderr and --log.
    let mut rpc = common::rpc::Rpc::start(
        mcpick_bin(),
        &[
            "serve",
            "--set",
            "none.json",
            "--log",
            &log_arg,
            "--url",
            &url,
        ],
        &dir,
    );
    let list = rpc.request("resources/list", serde_json::json!({}));
    assert!(list.get("result").is_some(), "{list}");
    let err = rpc.finish();
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains("the request headers were"), "{written}");
    leaks("serve's stderr", &err);
    leaks("serve's --log", &written);

    // An explicit Authorization wins: one header, the one given (the server requires it).
    let strict = Background::fixture_http(&[
        "--count",
        "5",
        "--echo-headers",
        "--require-header",
        "Authorization: Bearer explicit-header-wins",
    ]);
    let url = strict.url.replacen("://", &format!("://{USER}:{PASS}@"), 1);
    let out = mcpick_in(
        &dir,
        &[],
        &[
            "ls",
            "--url",
            &url,
            "-H",
            "Authorization: Bearer explicit-header-wins",
        ],
    );
    let text = outputs(&out);
    assert!(text.contains("the request headers were"), "{text}");
    assert_eq!(
        text.matches("authorization:").count(),
        1,
        "exactly one Authorization header: {text}"
    );
    leaks("ls -H", &text);
}
