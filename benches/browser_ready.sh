#!/usr/bin/env bash
# How long the browser takes to list COUNT resources, as a user meets it: runs mcpick
# (release build) in a real terminal (tmux, 120×40) against the demo server and times from
# start to the header saying "ready", RUNS times; prints each and the median. Set
# MALLOC_ARENA_MAX to compare glibc's arenas with the one arena the browser keeps (src/heap.rs).
#
#   cargo build --release && benches/browser_ready.sh [COUNT] [RUNS]   (default 1000000 3)
#
# MCPICK_BIN picks another binary. Needs tmux and bc.
set -euo pipefail

count=${1:-1000000}
runs=${2:-3}
bin=$(realpath "${MCPICK_BIN:-target/release/mcpick}")
sock="mcpick-ready-$$"
dir=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
cd "$dir" # the browser's set file goes here, not into the checkout

times=()
for ((i = 1; i <= runs; i++)); do
    start=$(date +%s.%N)
    tmux -L "$sock" new-session -d -x 120 -y 40 "'$bin' -- '$bin' demo-server --count $count"
    deadline=$((SECONDS + 600))
    until tmux -L "$sock" capture-pane -p | head -1 | grep -q "ready ·"; do
        if ((SECONDS > deadline)); then
            echo "timed out waiting for ready" >&2
            exit 1
        fi
        sleep 0.1
    done
    end=$(date +%s.%N)
    tmux -L "$sock" kill-server
    t=$(echo "$end - $start" | bc)
    times+=("$t")
    printf 'run %d: %.1f s\n' "$i" "$t"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
printf 'mcpick browser, %s resources (MALLOC_ARENA_MAX=%s): median %.1f s to ready over %d runs\n' \
    "$count" "${MALLOC_ARENA_MAX:-unset}" "$median" "$runs"
