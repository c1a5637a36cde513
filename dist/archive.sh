#!/usr/bin/env bash
# Packs a built mcpick binary as a release archive with its checksum:
#   dist/archive.sh BINARY TARGET OUT
# makes OUT/mcpick-TARGET.tar.xz (OUT/mcpick-TARGET.zip for a Windows target), holding
# mcpick-TARGET/{mcpick,README.md,CHANGELOG.md,LICENSE-MIT,LICENSE-APACHE}, and OUT/<archive>.sha256 (`sha256sum` format).
# The release workflow runs it once per target; tests/release.rs runs it for this machine.
set -euo pipefail
binary=$1 target=$2 out=$3
root="$(cd "$(dirname "$0")/.." && pwd)"
name="mcpick-$target"
exe=mcpick
case "$target" in *windows*) exe=mcpick.exe ;; esac

mkdir -p "$out"
out="$(cd "$out" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/$name"
cp "$binary" "$work/$name/$exe"
chmod 755 "$work/$name/$exe"
cp "$root/README.md" "$root/CHANGELOG.md" "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$work/$name/"

case "$target" in
*windows*)
    archive="$name.zip"
    (cd "$work" && zip -qr "$out/$archive" "$name")
    ;;
*)
    archive="$name.tar.xz"
    tar -C "$work" -cJf "$out/$archive" "$name"
    ;;
esac
(cd "$out" && sha256sum "$archive" >"$archive.sha256")
echo "$out/$archive"
