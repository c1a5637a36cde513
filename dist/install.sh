#!/bin/sh
# Installs the prebuilt mcpick for this machine from a GitHub release:
#   curl -LsSf https://github.com/mcpick/mcpick/releases/latest/download/mcpick-installer.sh | sh
# It downloads mcpick-TARGET.tar.xz and its .sha256, checks the checksum, and puts `mcpick`
# in $MCPICK_INSTALL_DIR (default ~/.local/bin), saying where and whether that is on PATH.
# MCPICK_VERSION picks a release (default: the newest); MCPICK_DOWNLOAD_URL replaces the
# release's download address (a mirror, or a folder as file:///… for a test).
set -eu

say() { printf 'mcpick-installer: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

os=$(uname -s)
arch=$(uname -m)
case "$arch" in
x86_64 | amd64) arch=x86_64 ;;
aarch64 | arm64) arch=aarch64 ;;
*) fail "no prebuilt mcpick for the processor $arch; build it from source: cargo install mcpick" ;;
esac
case "$os" in
# The Linux builds are static (musl): they run on any distribution.
Linux) target="$arch-unknown-linux-musl" ;;
Darwin) target="$arch-apple-darwin" ;;
*) fail "no prebuilt mcpick for $os here; on Windows use the PowerShell installer, or: cargo install mcpick" ;;
esac

version=${MCPICK_VERSION:-latest}
if [ -n "${MCPICK_DOWNLOAD_URL:-}" ]; then
    base=$MCPICK_DOWNLOAD_URL
elif [ "$version" = latest ]; then
    base=https://github.com/mcpick/mcpick/releases/latest/download
else
    base="https://github.com/mcpick/mcpick/releases/download/v${version#v}"
fi
dir=${MCPICK_INSTALL_DIR:-$HOME/.local/bin}
archive="mcpick-$target.tar.xz"

command -v curl >/dev/null 2>&1 || fail "curl is needed to download mcpick"
command -v tar >/dev/null 2>&1 || fail "tar is needed to unpack mcpick"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

say "downloading $archive from $base"
curl -fsSL "$base/$archive" -o "$tmp/$archive" || fail "could not download $base/$archive"
curl -fsSL "$base/$archive.sha256" -o "$tmp/$archive.sha256" ||
    fail "could not download $base/$archive.sha256"

expected=$(cut -d ' ' -f 1 <"$tmp/$archive.sha256")
if command -v sha256sum >/dev/null 2>&1; then
    actual=$(sha256sum "$tmp/$archive" | cut -d ' ' -f 1)
else
    actual=$(shasum -a 256 "$tmp/$archive" | cut -d ' ' -f 1)
fi
[ "$expected" = "$actual" ] ||
    fail "the download's checksum is $actual, the release says $expected: nothing was installed"

tar -C "$tmp" -xJf "$tmp/$archive" || fail "could not unpack $archive"
mkdir -p "$dir"
# Replace the binary in one step, so a running mcpick keeps its file.
cp "$tmp/mcpick-$target/mcpick" "$dir/.mcpick.new"
chmod 755 "$dir/.mcpick.new"
mv "$dir/.mcpick.new" "$dir/mcpick"
say "installed $("$dir/mcpick" --version) at $dir/mcpick"
case ":$PATH:" in
*":$dir:"*) ;;
*) say "$dir is not on PATH: add it (for instance in ~/.profile: export PATH=\"$dir:\$PATH\")" ;;
esac
