#!/usr/bin/env bash
# What session-start delivery adds to a host's session start: `claude -p hello` (Claude Code
# from tests/peers, its model API a local recording stub) in a project whose set holds 200
# resources of a local Python SDK server (tests/peers/py_server.py), installed once with
# `--deliver session` (a CLAUDE.md import) and once with `--deliver on-demand` (the served entry
# only). Both start the same `mcpick serve`; the difference is what delivery costs at session
# start. Runs alternate (A B A B …); prints each mode's median and the median of the pairwise
# ratios. Needs a build (cargo build --release; falls back to target/debug) and the test peers.
#
#   bash benches/delivery.sh [RUNS]      (default 7)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-7}"
bin="$root/target/release/mcpick"
[[ -x "$bin" ]] || bin="$root/target/debug/mcpick"
[[ -x "$bin" ]] || { echo "build mcpick first (cargo build --release)" >&2; exit 2; }
peers="$(bash "$root/tests/peers/install.sh")"
claude="$peers/node/node_modules/.bin/claude"
py="$peers/py/bin/python"
work="$(mktemp -d)"
trap 'kill "$stub_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

mkfifo "$work/keep"
python3 "$root/tests/peers/model_stub.py" --dir "$work/rec" --idle 600 <"$work/keep" >"$work/port" &
stub_pid=$!
exec 3>"$work/keep"
for _ in $(seq 50); do [[ -s "$work/port" ]] && break; sleep 0.1; done
port="$(cat "$work/port")"

setup() { # $1 = session | on-demand
  local dir="$work/$1"
  mkdir -p "$dir/home" "$dir/project"
  (
    cd "$dir/project"
    export HOME="$dir/home" PATH="$(dirname "$bin"):$PATH"
    mcpick pin --name py 'py://items/*' -- "$py" "$root/tests/peers/py_server.py" --count 201 >/dev/null 2>&1
    mcpick policy --budget none >/dev/null 2>&1
    mcpick install claude-code --deliver "$1" >/dev/null
    echo "{\"hasCompletedOnboarding\":true,\"projects\":{\"$PWD\":{\"hasTrustDialogAccepted\":true,\"enableAllProjectMcpServers\":true}}}" >"$HOME/.claude.json"
  )
}
session_start() { # $1 = mode; prints seconds
  local dir="$work/$1"
  local t0 t1
  t0=$(date +%s%N)
  (cd "$dir/project" && env HOME="$dir/home" PATH="$(dirname "$bin"):$PATH" \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=dummy \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
    "$claude" -p hello --output-format json >/dev/null 2>&1)
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 ))"
}

setup session
setup on-demand
bytes=$(wc -c <"$work/session/project/.mcpick/mcpick.claude-code.md")
echo "set: 200 resources of py_server.py, delivered file $bytes bytes; $runs runs each, alternating"
session_start session >/dev/null; session_start on-demand >/dev/null # warm-up
a=(); b=(); r=()
for _ in $(seq "$runs"); do
  x=$(session_start session); y=$(session_start on-demand)
  a+=("$x"); b+=("$y"); r+=("$(python3 -c "print(f'{$x/$y:.3f}')")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
echo "claude -p, session start to exit (ms): session delivery median $(median "${a[@]}"), on-demand median $(median "${b[@]}")"
echo "ratio session/on-demand, pair by pair: median $(median "${r[@]}") (min $(printf '%s\n' "${r[@]}" | sort -g | head -1), max $(printf '%s\n' "${r[@]}" | sort -g | tail -1))"
