#!/usr/bin/env bash
# Peak memory of `mcpick serve --expose allowed` publishing a million resources from the demo
# server, until its first published list is ready. The budget (issue 22): ≤ 600 MB at 1M.
#
#   cargo build --release && benches/serve_rss.sh              # target/release/mcpick, 1M
#   MCPICK=path/to/mcpick COUNT=200000 benches/serve_rss.sh    # another binary or size
#
# Prints serve's own peak RSS (VmHWM from /proc; the demo server is another process and not
# counted), its resident memory once publishing, how many resources it published and how
# long it took to be ready.
#
# CHURN=MS runs the test fixture instead (mcpick-fixture, next to mcpick; cargo build
# --release builds it) with --churn MS (a resource added every MS ms, so serve
# re-lists, ranks and publishes again and again) and reports once more after 60 s of that:
# serve's share of a core over those 60 s, its peak and resident memory. Use COUNT=999000
# then (1M hits the default cap of a million listed per server).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${MCPICK:-${CARGO_TARGET_DIR:-$root/target}/release/mcpick}"
count="${COUNT:-1000000}"
expose="${EXPOSE:-allowed}"
churn="${CHURN:+--churn $CHURN}"
[ -x "$bin" ] || { echo "no mcpick at $bin (cargo build --release, or set MCPICK)" >&2; exit 2; }
dir="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
export HOME="$dir" XDG_CONFIG_HOME="$dir/.config"
server=("$bin" demo-server)
if [ -n "$churn" ]; then server=("$(dirname "$bin")/mcpick-fixture"); fi
# shellcheck disable=SC2086 # $churn is two words or none
"$bin" pin --name big 'demo://notes/1' -- "${server[@]}" --count "$count" $churn >/dev/null
mkfifo stdin
start=$(date +%s.%N)
"$bin" serve --set mcpick.context.json --expose "$expose" <stdin >/dev/null 2>serve.err &
pid=$!
exec 3>stdin # keeps serve's stdin open: it serves until then
until grep -q 'publishing' serve.err; do
    kill -0 "$pid" 2>/dev/null || { cat serve.err >&2; echo "serve ended" >&2; exit 1; }
    sleep 0.1
done
end=$(date +%s.%N)
sleep 1
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
published=$(grep -o 'publishing [0-9]* resources' serve.err | head -1)
printf 'serve --expose %s, %s resources (%s): peak RSS %.1f MB, resident %.1f MB, ready in %.1f s\n' \
    "$expose" "$count" "$published" "$(echo "$hwm / 1024" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
    "$(echo "$end - $start" | bc -l)"
if [ -n "$churn" ]; then
    ticks=$(getconf CLK_TCK)
    cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
    before=$(cpu)
    sleep 60
    after=$(cpu)
    hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    printf 'after 60 s of churn (%s ms): %.2f of a core, peak RSS %.1f MB, resident %.1f MB\n' \
        "$CHURN" "$(echo "($after - $before) / $ticks / 60" | bc -l)" \
        "$(echo "$hwm / 1024" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
fi
exec 3>&-
