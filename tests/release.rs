//! The release's pieces that run here (`dist/`): an archive made by `dist/archive.sh` around the
//! binary under test, installed by `dist/install.sh` from a folder standing in for the release's
//! download address (offline), and `cargo binstall`'s metadata naming the archives that script
//! makes. The workflow itself (`.github/workflows/release.yml`) runs only on a tag.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{exit_code, mcpick_bin, repo_root, stderr, stdout};

/// The target name the shell installer asks for on this machine.
fn installer_target() -> String {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "linux" => format!("{arch}-unknown-linux-musl"),
        "macos" => format!("{arch}-apple-darwin"),
        other => panic!("no shell installer for {other}"),
    }
}

/// `dist/archive.sh BINARY TARGET OUT`, at xz's fastest level (the debug binary under test is
/// large; a release archive is packed at xz's default).
fn archive(binary: &str, target: &str, out: &Path) -> Output {
    Command::new("bash")
        .arg(repo_root().join("dist/archive.sh"))
        .args([binary, target, out.to_str().unwrap()])
        .env("XZ_OPT", "-0 -T0")
        .output()
        .unwrap()
}

fn install(release: &Path, dir: &Path, home: &Path) -> Output {
    Command::new("sh")
        .arg(repo_root().join("dist/install.sh"))
        .env(
            "MCPICK_DOWNLOAD_URL",
            format!("file://{}", release.display()),
        )
        .env("MCPICK_INSTALL_DIR", dir)
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap()
}

#[test]
fn the_installer_installs_the_archive_and_checks_its_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let release = tmp.path().join("release");
    let target = installer_target();
    let made = archive(mcpick_bin(), &target, &release);
    assert!(made.status.success(), "archive.sh: {}", stderr(&made));
    let name = format!("mcpick-{target}.tar.xz");
    assert_eq!(stdout(&made).trim(), release.join(&name).to_str().unwrap());

    // What the archive holds: the binary and the two documents, in a folder of its name.
    let listed = Command::new("tar")
        .args(["-tJf", release.join(&name).to_str().unwrap()])
        .output()
        .unwrap();
    let mut entries: Vec<String> = stdout(&listed).lines().map(str::to_string).collect();
    entries.sort();
    let folder = format!("mcpick-{target}");
    assert_eq!(
        entries,
        [
            format!("{folder}/"),
            format!("{folder}/CHANGELOG.md"),
            format!("{folder}/LICENSE-APACHE"),
            format!("{folder}/LICENSE-MIT"),
            format!("{folder}/README.md"),
            format!("{folder}/mcpick"),
        ]
    );

    // Installed on a clean HOME, from the unpacked archive: it runs.
    let home = tmp.path().join("home");
    let dir = tmp.path().join("bin");
    let out = install(&release, &dir, &home);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let said = stderr(&out);
    let version = format!("mcpick {}", env!("CARGO_PKG_VERSION"));
    assert!(said.contains(&format!("installed {version} at")), "{said}");
    assert!(said.contains("is not on PATH: add it"), "{said}");
    let run = |args: &[&str]| {
        Command::new(dir.join("mcpick"))
            .args(args)
            .env("HOME", &home)
            .env("MCPICK_DATA_DIR", tmp.path().join("data"))
            .env("XDG_CONFIG_HOME", tmp.path().join("config"))
            .env("XDG_CACHE_HOME", tmp.path().join("cache"))
            .current_dir(tmp.path())
            .output()
            .unwrap()
    };
    assert_eq!(stdout(&run(&["--version"])).trim(), version);
    let listed = run(&["ls", "--demo"]);
    assert_eq!(exit_code(&listed), 0, "{}", stderr(&listed));
    assert!(stdout(&listed).contains("file:///project/README.md"));

    // A download that does not match its checksum installs nothing.
    let sum = release.join(format!("{name}.sha256"));
    let text = std::fs::read_to_string(&sum).unwrap();
    let forged = format!("{}{}", "0".repeat(64), &text[64..]);
    std::fs::write(&sum, forged).unwrap();
    let other = tmp.path().join("other-bin");
    let out = install(&release, &other, &home);
    assert_eq!(exit_code(&out), 1);
    assert!(
        stderr(&out).contains("checksum") && stderr(&out).contains("nothing was installed"),
        "{}",
        stderr(&out)
    );
    assert!(!other.join("mcpick").exists());
}

/// `cargo binstall` finds the archive `dist/archive.sh` makes: the metadata's URL and folder,
/// filled in as binstall fills them, name that archive and the binary in it.
#[test]
fn binstall_metadata_names_the_archives_the_release_makes() {
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap()).unwrap();
    let binstall = &manifest["package"]["metadata"]["binstall"];
    let fill = |template: &str, target: &str, suffix: &str, ext: &str| {
        template
            .replace("{ repo }", "https://github.com/mcpick/mcpick")
            .replace("{ version }", env!("CARGO_PKG_VERSION"))
            .replace("{ target }", target)
            .replace("{ archive-suffix }", suffix)
            .replace("{ bin }", "mcpick")
            .replace("{ binary-ext }", ext)
    };
    let tmp = tempfile::tempdir().unwrap();
    // Names are what is checked here: any file stands in for the binary.
    let binary = tmp.path().join("stand-in");
    std::fs::write(&binary, "#!/bin/sh\n").unwrap();
    for (target, suffix, ext) in [
        ("x86_64-unknown-linux-musl", ".tar.xz", ""),
        ("x86_64-pc-windows-msvc", ".zip", ".exe"),
    ] {
        let made = archive(binary.to_str().unwrap(), target, &tmp.path().join("out"));
        assert!(made.status.success(), "{}", stderr(&made));
        let url = fill(binstall["pkg-url"].as_str().unwrap(), target, suffix, ext);
        let file = stdout(&made).trim().rsplit('/').next().unwrap().to_string();
        assert!(
            url.ends_with(&format!("/v{}/{file}", env!("CARGO_PKG_VERSION"))),
            "{url}"
        );
        let bin = fill(binstall["bin-dir"].as_str().unwrap(), target, suffix, ext);
        assert_eq!(bin, format!("mcpick-{target}/mcpick{ext}"));
    }
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("txz"));
    assert_eq!(
        binstall["overrides"]["x86_64-pc-windows-msvc"]["pkg-fmt"].as_str(),
        Some("zip")
    );
}
