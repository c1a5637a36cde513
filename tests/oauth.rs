//! OAuth sign-in against the test fixture's `--oauth` (its own authorization server),
//! with `$BROWSER` set to `tests/peers/browser.sh`, which follows the authorization URL as a
//! person approving it would: login, listing with the token, refresh before expiry and on a
//! 401, revocation, logout, a forged `state`, the store's file mode, and no token anywhere
//! but the store.

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use common::{Background, exit_code, mcpick_bin, mcpick_in, repo_root, stderr, stdout};
use serde_json::Value;

/// One test's world: the fixture, a working directory with `mcpick.toml` naming it `docs`,
/// and a private data directory for the token store.
struct World {
    server: Background,
    dir: PathBuf,
    data: PathBuf,
    /// Everything mcpick printed, to search for tokens at the end.
    printed: String,
}

impl World {
    fn new(name: &str, extra: &[&str]) -> World {
        let mut args = vec!["--oauth", "--count", "5"];
        args.extend_from_slice(extra);
        let server = Background::fixture_http(&args);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join("oauth")
            .join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("data");
        std::fs::write(
            dir.join("mcpick.toml"),
            format!("[servers.docs]\nurl = \"{}\"\n", server.at("/mcp")),
        )
        .unwrap();
        let mut world = World {
            server,
            dir,
            data,
            printed: String::new(),
        };
        world.trust();
        world
    }

    /// Approves the project's `mcpick.toml` servers (a project file: `mcpick trust`).
    fn trust(&mut self) {
        let out = self.run(&["trust", "--yes"], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
    }

    /// Runs mcpick in the world's directory with its data directory and the test browser.
    fn run(&mut self, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
        let data = self.data.to_string_lossy().into_owned();
        let browser = repo_root()
            .join("tests/peers/browser.sh")
            .to_string_lossy()
            .into_owned();
        let mut all = vec![
            ("MCPICK_DATA_DIR", data.as_str()),
            ("BROWSER", browser.as_str()),
        ];
        all.extend_from_slice(env);
        let out = mcpick_in(&self.dir, &all, args);
        self.printed.push_str(&stdout(&out));
        self.printed.push_str(&stderr(&out));
        out
    }

    fn login(&mut self) {
        let out = self.run(&["login", "docs", "--wait", "60"], &[]);
        assert_eq!(exit_code(&out), 0, "login failed: {}", stderr(&out));
        assert!(
            stdout(&out).contains("signed in to docs"),
            "{}",
            stdout(&out)
        );
        assert!(
            stderr(&out).contains("/oauth/authorize?"),
            "the authorization URL is printed: {}",
            stderr(&out)
        );
    }

    /// The resources `ls -s docs --json` lists, or the exit code and stderr when it fails.
    fn ls(&mut self) -> Result<usize, (i32, String)> {
        let out = self.run(&["ls", "-s", "docs", "--json"], &[]);
        if exit_code(&out) != 0 {
            return Err((exit_code(&out), stderr(&out)));
        }
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        Ok(common::resources(&doc).len())
    }

    /// [`World::ls`] for an ad-hoc `--url`.
    fn ls_url(&mut self, url: &str) -> Result<usize, (i32, String)> {
        let out = self.run(&["ls", "--url", url, "--json"], &[]);
        if exit_code(&out) != 0 {
            return Err((exit_code(&out), stderr(&out)));
        }
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        Ok(common::resources(&doc).len())
    }

    /// The only token file.
    fn store(&self) -> PathBuf {
        let files: Vec<PathBuf> = std::fs::read_dir(self.data.join("tokens"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        files[0].clone()
    }

    fn stored(&self) -> Value {
        serde_json::from_slice(&std::fs::read(self.store()).unwrap()).unwrap()
    }

    /// The access and refresh tokens stored now.
    fn tokens(&self) -> (String, String) {
        let tokens = &self.stored()["credentials"]["token_response"];
        (
            tokens["access_token"].as_str().unwrap().to_string(),
            tokens["refresh_token"].as_str().unwrap().to_string(),
        )
    }

    /// The fixture's counters: codes exchanged, refreshes.
    fn stats(&self) -> (u64, u64) {
        let doc: Value =
            serde_json::from_str(&http(&self.server.at("/oauth/stats"), "GET")).unwrap();
        (
            doc["exchanged"].as_u64().unwrap(),
            doc["refreshed"].as_u64().unwrap(),
        )
    }

    fn control(&self, what: &str) {
        http(&self.server.at(&format!("/oauth/{what}")), "POST");
    }

    fn servers_line(&mut self) -> String {
        let out = self.run(&["servers"], &[]);
        stdout(&out)
            .lines()
            .find(|l| l.trim_start().starts_with("sign-in:"))
            .unwrap_or_default()
            .trim()
            .to_string()
    }
}

/// A bodiless HTTP/1.1 request to the fixture; returns the body.
fn http(url: &str, method: &str) -> String {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    answer
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_string()
}

/// Every file under `dir`, but `skip`.
fn files_under(dir: &Path, skip: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path == skip {
            continue;
        }
        if path.is_dir() {
            out.extend(files_under(&path, skip));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn login_lists_with_the_token_and_no_token_leaves_the_store() {
    let mut world = World::new("login", &[]);
    let (code, error) = world.ls().unwrap_err();
    assert_ne!(code, 0);
    assert!(
        error.contains("needs login: run `mcpick login docs`"),
        "{error}"
    );
    assert_eq!(world.servers_line(), "sign-in: needs login");

    world.login();
    assert_eq!(world.stats(), (1, 0));
    assert_eq!(world.ls(), Ok(5));
    // 3600 s from the second of the login: "1 h", or "59 min" a second later.
    let line = world.servers_line();
    assert!(
        line == "sign-in: signed in (expires in 1 h)"
            || line == "sign-in: signed in (expires in 59 min)",
        "{line}"
    );

    // The store is owner-only, in an owner-only directory.
    use std::os::unix::fs::PermissionsExt;
    let store = world.store();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&store), 0o600);
    assert_eq!(mode(store.parent().unwrap()), 0o700);

    // Things that write files: a pin (the context set), a preview, the JSON server list.
    let set = world.dir.join("set.json").to_string_lossy().into_owned();
    let out = world.run(
        &[
            "pin",
            "-s",
            "docs",
            "--set",
            &set,
            "--allow-missing",
            "demo://x",
        ],
        &[],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    world.run(&["preview", "-s", "docs", "--set", &set], &[]);
    world.run(&["servers", "--json"], &[]);
    world.run(&["ls", "-s", "docs", "--templates", "--tree"], &[]);

    let (access, refresh) = world.tokens();
    for token in [&access, &refresh] {
        assert!(
            !world.printed.contains(token.as_str()),
            "a token was printed"
        );
    }
    let home = common::isolated_home().to_path_buf();
    for file in files_under(&world.dir, &world.data.join("tokens"))
        .into_iter()
        .chain(files_under(&home, &world.data))
    {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap_or_default()).into_owned();
        for token in [&access, &refresh] {
            assert!(
                !text.contains(token.as_str()),
                "{} holds a token",
                file.display()
            );
        }
    }
}

#[test]
fn an_expired_token_is_refreshed_before_use_and_on_a_401() {
    let mut world = World::new("refresh", &[]);
    world.login();
    let (first, _) = world.tokens();

    // The client's clock says the token expired: it refreshes before sending it.
    let mut stored = world.stored();
    let received = stored["credentials"]["token_received_at"].as_u64().unwrap();
    stored["credentials"]["token_received_at"] = Value::from(received - 7200);
    std::fs::write(world.store(), serde_json::to_vec(&stored).unwrap()).unwrap();
    assert_eq!(world.ls(), Ok(5));
    assert_eq!(world.stats(), (1, 1));
    let (second, _) = world.tokens();
    assert_ne!(first, second);

    // The server ended every access token early: the 401 leads to one refresh and a retry.
    world.control("expire-all");
    assert_eq!(world.ls(), Ok(5));
    assert_eq!(world.stats(), (1, 2));
    assert_ne!(world.tokens().0, second);
}

#[test]
fn a_revoked_sign_in_needs_login_again() {
    let mut world = World::new("revoked", &[]);
    world.login();
    assert_eq!(world.ls(), Ok(5));
    world.control("revoke-all");
    let (code, error) = world.ls().unwrap_err();
    assert_ne!(code, 0);
    assert!(
        error.contains("needs login: run `mcpick login docs`"),
        "{error}"
    );
    assert_eq!(world.servers_line(), "sign-in: needs login");
    // Signing in again works.
    world.login();
    assert_eq!(world.ls(), Ok(5));
}

#[test]
fn logout_deletes_the_tokens() {
    let mut world = World::new("logout", &[]);
    world.login();
    let store = world.store();
    let out = world.run(&["logout", "docs"], &[]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("signed out of docs"));
    assert!(!store.exists());
    let (_, error) = world.ls().unwrap_err();
    assert!(error.contains("needs login"), "{error}");
}

#[test]
fn a_redirect_with_another_state_is_refused() {
    let mut world = World::new("state", &[]);
    let out = world.run(
        &["login", "docs", "--wait", "60"],
        &[("FORGE_STATE", "forged")],
    );
    assert_eq!(exit_code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("state does not match"),
        "{}",
        stderr(&out)
    );
    assert_eq!(world.stats(), (0, 0), "no code was exchanged");
    let stored = std::fs::read_dir(world.data.join("tokens"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(stored, 0, "nothing stored");
}

#[test]
fn login_by_url_and_a_short_lived_token() {
    let mut world = World::new("by-url", &["--token-ttl", "90"]);
    let url = world.server.at("/mcp");
    let out = world.run(&["login", "--url", &url, "--wait", "60"], &[]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = world.run(&["ls", "--url", &url, "--json"], &[]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        world.stored()["credentials"]["token_response"]["expires_in"],
        90
    );
}

/// The same flow against an implementation not mcpick's own: the Python `mcp` SDK's
/// authorization server (`tests/peers/py_oauth_server.py`): sign in, list, refresh.
#[test]
fn the_python_sdk_authorization_server() {
    let server = Background::start(
        &common::python(),
        &[&repo_root()
            .join("tests/peers/py_oauth_server.py")
            .to_string_lossy()],
        &[],
    );
    let url = server.url.clone();
    let mut world = World::new("python", &[]);
    world.server = server;
    let (code, error) = world.ls_url(&url).unwrap_err();
    assert_ne!(code, 0);
    assert!(
        error.contains("needs login: run `mcpick login --url"),
        "{error}"
    );
    let out = world.run(&["login", "--url", &url, "--wait", "60"], &[]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(world.ls_url(&url), Ok(1));

    let (first, _) = world.tokens();
    let mut stored = world.stored();
    let received = stored["credentials"]["token_received_at"].as_u64().unwrap();
    stored["credentials"]["token_received_at"] = Value::from(received - 7200);
    std::fs::write(world.store(), serde_json::to_vec(&stored).unwrap()).unwrap();
    assert_eq!(world.ls_url(&url), Ok(1));
    assert_ne!(
        world.tokens().0,
        first,
        "the SDK's token endpoint refreshed it"
    );
    let (access, refresh) = world.tokens();
    assert!(!world.printed.contains(&access) && !world.printed.contains(&refresh));
}

/// A definition's `oauth = { client_id, scopes }` is used instead of dynamic registration.
#[test]
fn a_client_id_from_the_definition_skips_registration() {
    let mut world = World::new("client-id", &["--oauth-client", "pre-registered-7"]);
    std::fs::write(
        world.dir.join("mcpick.toml"),
        format!(
            "[servers.docs]\nurl = \"{}\"\noauth = {{ client_id = \"pre-registered-7\", scopes = [\"mcp\"] }}\n",
            world.server.at("/mcp")
        ),
    )
    .unwrap();
    world.trust();
    world.login();
    assert_eq!(
        world.stored()["credentials"]["client_id"],
        "pre-registered-7"
    );
    let stats: Value =
        serde_json::from_str(&http(&world.server.at("/oauth/stats"), "GET")).unwrap();
    assert_eq!(stats["registered"], 0, "no dynamic registration");
    assert_eq!(world.ls(), Ok(5));
}

/// `mcpick serve` uses the stored sign-in for its upstream, and says in its log which
/// upstream needs a login once the sign-in is revoked.
#[test]
fn serve_uses_the_sign_in_and_logs_a_needed_login() {
    let mut world = World::new("serve", &[]);
    world.login();
    let out = world.run(&["ls", "-s", "docs", "--json"], &[]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let uri = common::resources(&doc)[0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let set = world.dir.join("set.json").to_string_lossy().into_owned();
    let out = world.run(&["pin", "-s", "docs", "--set", &set, &uri], &[]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));

    let serve_log = |world: &World, name: &str| -> String {
        let log = world.dir.join(name);
        let data = world.data.to_string_lossy().into_owned();
        let home = common::isolated_home().to_string_lossy().into_owned();
        let log_arg = log.to_string_lossy().into_owned();
        let _serve = Background::start(
            mcpick_bin(),
            &[
                "serve",
                "--set",
                &set,
                "--http",
                "127.0.0.1:0",
                "--log",
                &log_arg,
            ],
            &[("MCPICK_DATA_DIR", &data), ("HOME", &home)],
        );
        // Wait for the line serve writes once its upstreams are connected.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.contains("publishing") {
                return text;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "serve never published: {text}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };

    let signed_in = serve_log(&world, "serve-1.log");
    assert!(
        signed_in.contains("publishing ") && !signed_in.contains("publishing 0 "),
        "{signed_in}"
    );
    assert!(!signed_in.contains("unavailable"), "{signed_in}");
    let (access, refresh) = world.tokens();

    world.control("revoke-all");
    let revoked = serve_log(&world, "serve-2.log");
    assert!(
        revoked.contains("server `docs` is unavailable: needs login: run `mcpick login docs`"),
        "{revoked}"
    );
    for log in [&signed_in, &revoked] {
        assert!(!log.contains(&access) && !log.contains(&refresh), "{log}");
    }
    let written = std::fs::read_to_string(&set).unwrap();
    assert!(!written.contains(&access) && !written.contains(&refresh));
}

/// A server without OAuth is not signed in to: nothing is registered or stored.
#[test]
fn login_to_a_server_without_oauth_says_so() {
    let plain = Background::demo_http(&[]);
    let mut world = World::new("plain", &[]);
    let url = plain.at("/mcp");
    let out = world.run(&["login", "--url", &url, "--wait", "5"], &[]);
    assert_eq!(exit_code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("does not ask for a sign-in"),
        "{}",
        stderr(&out)
    );
    assert!(!world.data.join("tokens").exists());
}

/// A sign-in revoked in the middle of a session (after the handshake) reads as "needs
/// login" too, not as a transport error.
#[test]
fn a_sign_in_revoked_mid_session_needs_login() {
    let mut world = World::new("mid-session", &["--revoke-after", "1"]);
    world.login();
    let out = world.run(&["ls", "-s", "docs"], &[]);
    assert_ne!(exit_code(&out), 0);
    assert!(
        stdout(&out).contains("protocol 2026-07-28"),
        "the handshake went through: {}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("needs login: run `mcpick login docs`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(world.servers_line(), "sign-in: needs login");
}

/// A browser that only writes down what it was asked to open (in `DIR/opened`).
fn recording_browser(dir: &Path) -> (String, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("record-browser.sh");
    let opened = dir.join("opened");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
            opened.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script.to_string_lossy().into_owned(), opened)
}

/// A server whose metadata names a `file:`, `javascript:`, `vscode:` or plain remote `http:`
/// authorization endpoint: `login` refuses it, says why, and never hands it to the browser.
#[test]
fn login_opens_only_an_https_or_loopback_authorization_address() {
    for (i, endpoint) in [
        "file:///etc/passwd",
        "javascript:alert(document.cookie)",
        "vscode://vscode.git/clone?url=https%3A%2F%2Fevil.example%2Fr.git",
        "http://auth.example.com/authorize",
    ]
    .into_iter()
    .enumerate()
    {
        let mut world = World::new(&format!("scheme-{i}"), &["--authorize-at", endpoint]);
        let (browser, opened) = recording_browser(&world.dir);
        let out = world.run(
            &["login", "docs", "--wait", "2"],
            &[("BROWSER", browser.as_str())],
        );
        let said = stderr(&out);
        assert!(
            !opened.exists(),
            "{endpoint}: the browser was given {}",
            std::fs::read_to_string(&opened).unwrap_or_default()
        );
        assert_ne!(exit_code(&out), 0, "{endpoint}: {said}");
        assert!(said.contains("did not open it"), "{endpoint}: {said}");
    }
}

/// A server the project's `mcpick.toml` defines and the user has not approved: `login` asks
/// it nothing and opens no browser, and says to run `mcpick trust`.
#[test]
fn login_to_an_unapproved_project_server_is_refused() {
    let mut world = World::new("unapproved-login", &[]);
    std::fs::write(
        world.dir.join("mcpick.toml"),
        format!(
            "[servers.docs]\nurl = \"{}\"\n",
            world.server.at("/mcp?changed=1")
        ),
    )
    .unwrap();
    let (browser, opened) = recording_browser(&world.dir);
    let out = world.run(
        &["login", "docs", "--wait", "2"],
        &[("BROWSER", browser.as_str())],
    );
    let said = stderr(&out);
    assert!(!opened.exists(), "the browser was opened: {said}");
    assert_ne!(exit_code(&out), 0, "{said}");
    assert!(said.contains("mcpick trust"), "{said}");
    // Approved, the same sign-in goes ahead (it reaches the browser).
    world.trust();
    let _ = world.run(
        &["login", "docs", "--wait", "2"],
        &[("BROWSER", browser.as_str())],
    );
    assert!(
        opened.exists(),
        "an approved server's sign-in opens the browser"
    );
}

#[test]
fn a_read_that_needs_a_wider_scope_names_the_login_that_asks_for_it() {
    // The fixture lets any `mcp` token list, and wants `files:read` too for a read (403
    // insufficient_scope naming both): a step-up, as the MCP authorization spec describes.
    let mut world = World::new("step-up", &["--read-scope", "files:read"]);
    world.login();
    let out = world.run(&["ls", "-s", "docs", "--json"], &[]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let uri = common::resources(&doc)[0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let read = |world: &mut World| world.run(&["read", "-s", "docs", &uri], &[]);
    let out = read(&mut world);
    assert_ne!(exit_code(&out), 0, "{}", stdout(&out));
    let line = "the server needs a wider sign-in for resources/read: run \
                `mcpick login docs --scope mcp --scope files:read`";
    assert!(stderr(&out).contains(line), "{}", stderr(&out));

    // The line, followed, gets the read through.
    let out = world.run(
        &[
            "login",
            "docs",
            "--scope",
            "mcp",
            "--scope",
            "files:read",
            "--wait",
            "60",
        ],
        &[],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = read(&mut world);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!stdout(&out).is_empty());
}
