#!/usr/bin/env bash
# Packs mcpick for npm: the `mcpick` package (a launcher) and one platform package holding
# BINARY, for TARGET (npm's `<platform>-<arch>`, e.g. linux-x64), as tarballs in OUT.
#   npm/pack.sh BINARY TARGET OUT
# The release workflow runs it once per target; the tests run it for this machine's.
set -euo pipefail
binary=$1 target=$2 out=$3
here="$(cd "$(dirname "$0")" && pwd)"
version=$(node -p "require('$here/mcpick/package.json').version")
os=${target%-*} cpu=${target#*-}
exe=mcpick
[ "$os" = win32 ] && exe=mcpick.exe

mkdir -p "$out"
out="$(cd "$out" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

platform="$work/$target"
mkdir -p "$platform/bin"
cp "$binary" "$platform/bin/$exe"
chmod 755 "$platform/bin/$exe"
cat > "$platform/package.json" <<JSON
{
  "name": "@mcpick/$target",
  "version": "$version",
  "description": "The mcpick binary for $target (installed by the mcpick package)",
  "license": "MIT OR Apache-2.0",
  "repository": { "type": "git", "url": "git+https://github.com/mcpick/mcpick.git" },
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/$exe"],
  "preferUnplugged": true
}
JSON

(cd "$platform" && npm pack --silent --pack-destination "$out" >/dev/null)
(cd "$here/mcpick" && npm pack --silent --pack-destination "$out" >/dev/null)
ls "$out"
