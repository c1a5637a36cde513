#!/usr/bin/env bash
# Peak memory of `mcpick ls --json` listing a million resources from the demo server.
# The budget (DESIGN.md): ≤ 200 MB at 1M, streamed.
#
#   cargo build --release && benches/ls_rss.sh            # target/release/mcpick, 1M
#   MCPICK=path/to/mcpick COUNT=200000 benches/ls_rss.sh  # another binary or size
#
# Prints mcpick's own peak RSS (VmHWM from /proc, sampled until it exits; the demo
# server is another process and not counted), the wall time and the output's size.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MCPICK:-${CARGO_TARGET_DIR:-$root/target}/release/mcpick}"
count="${COUNT:-1000000}"
[ -x "$bin" ] || { echo "no mcpick at $bin (cargo build --release, or set MCPICK)" >&2; exit 2; }
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
"$bin" ls --json -- "$bin" demo-server --count "$count" >"$out" 2>/dev/null &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
    hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
    sleep 0.05
done
wait "$pid" || { echo "mcpick ls failed (exit $?)" >&2; exit 1; }
end=$(date +%s.%N)
resources=$(grep -c '"uri":' "$out" || true)
printf 'ls --json, %s resources (%s listed): peak RSS %.1f MB, %.1f s, %.1f MB of JSON\n' \
    "$count" "$resources" "$(echo "$peak / 1024" | bc -l)" "$(echo "$end - $start" | bc -l)" \
    "$(echo "$(stat -c %s "$out") / 1048576" | bc -l)"
