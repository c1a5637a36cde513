#!/usr/bin/env bash
# What the per-turn hook costs a host's turn (DESIGN: ≤ 100 ms median when nothing changed,
# ≤ 1 s worst, at a 200-resource set). A throwaway project with a set of the demo's ~300 resources
# delivered to Claude Code, one session started; then `mcpick turn` as the hook runs it:
# a turn with nothing changed, and a turn after a pin and an exclude. Times whole processes
# with farm-bench (medians, min and max). MCPICK=path/to/mcpick picks the binary (default: the
# release build, else the debug one).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MCPICK:-$root/target/release/mcpick}
[ -x "$bin" ] || bin=$root/target/debug/mcpick
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home MCPICK_DATA_DIR=$work/data
mkdir -p "$HOME" "$work/project"
cd "$work/project"
git init -q
"$bin" pin --demo '*' >/dev/null
"$bin" policy --budget none >/dev/null
"$bin" exclude --demo 'demo://clock/*' >/dev/null
"$bin" install claude-code >/dev/null
n=$("$bin" preview --host claude-code --format json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["included"]))')
echo "binary: $bin; set: $n resources included"
start='{"session_id":"bench","hook_event_name":"SessionStart","source":"startup"}'
prompt='{"session_id":"bench","hook_event_name":"UserPromptSubmit","prompt":"hi"}'
echo "$start" | "$bin" turn claude-code
echo "$prompt" | "$bin" turn claude-code >/dev/null
echo "== a turn with nothing changed"
farm-bench -n 20 --warmup 2 -- sh -c "echo '$prompt' | exec '$bin' turn claude-code"
echo "== a turn after a pin and an exclude (each run one change: the first prints, the rest say nothing)"
uri=$("$bin" preview --format json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["included"][0]["uri"])')
"$bin" exclude --demo "$uri" >/dev/null 2>&1
farm-bench -n 1 --warmup 0 -- sh -c "echo '$prompt' | exec '$bin' turn claude-code"
