#!/usr/bin/env bash
# The whole browser's memory, as a user meets it: runs mcpick (release build) in a real
# terminal (tmux, 120×40) against the demo server with COUNT resources, and prints the
# browser process's resident memory (VmRSS, and the peak VmHWM) after the listing, after a
# search, and with the agent view open with no budget, then with a budget. Budgets (issue 22):
# ≤ 450 bytes per resource with the agent view open, ≤ 600 at the peak.
#
#   cargo build --release && benches/browser_rss.sh [COUNT]     (default 1000000)
#
# MCPICK_BIN picks another binary. MCPICK_BENCH_CHURN=MS runs the test fixture instead
# (mcpick-fixture, next to the binary; cargo build --release builds it) with --churn MS
# (a resource added every MS ms, so the browser re-lists it again and again) and reports once
# more after 60 s of that: a re-list must not hold the listing whole. Use COUNT 999000 then
# (1M hits the default cap of a million listed per server). Needs tmux.
set -euo pipefail

count=${1:-1000000}
bin=$(realpath "${MCPICK_BIN:-target/release/mcpick}")
sock="mcpick-rss-$$"
dir=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT

cd "$dir" # the browser's set file goes here, not into the checkout
churn=${MCPICK_BENCH_CHURN:+--churn $MCPICK_BENCH_CHURN}
server="'$bin' demo-server"
if [[ -n "$churn" ]]; then server="'$(dirname "$bin")/mcpick-fixture'"; fi
tmux -L "$sock" new-session -d -x 120 -y 40 "'$bin' -- $server --count $count $churn"

screen() { tmux -L "$sock" capture-pane -p; }

# Waits until the screen matches a pattern (up to $2 seconds).
wait_for() {
    local deadline=$((SECONDS + $2))
    until screen | grep -q -- "$1"; do
        if ((SECONDS > deadline)); then
            echo "timed out waiting for: $1" >&2
            screen >&2
            exit 1
        fi
        sleep 0.2
    done
}

browser_pid() {
    local pane child
    pane=$(tmux -L "$sock" list-panes -F '#{pane_pid}')
    # The pane runs the browser itself, or a shell whose child it is.
    for child in "$pane" $(pgrep -P "$pane"); do
        if [[ $(readlink "/proc/$child/exe") == "$bin" ]]; then
            echo "$child"
            return
        fi
    done
    echo "no browser process under the tmux pane" >&2
    exit 1
}

report() {
    local pid kb hwm
    pid=$(browser_pid)
    kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
    hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
    printf '%-34s %7.0f MB %6.0f B/resource   (peak %4.0f MB)\n' "$1" \
        "$(echo "$kb / 1000" | bc -l)" "$(echo "$kb * 1024 / $count" | bc -l)" \
        "$(echo "$hwm / 1000" | bc -l)"
}

grouped=$(echo "$count" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
start=$SECONDS
ready="ready · $grouped"
if [[ -n "$churn" ]]; then ready="ready · ${grouped%,*},"; fi # the count grows meanwhile
wait_for "$ready" 600
echo "mcpick browser, demo server with $grouped resources (listed in $((SECONDS - start)) s)"
sleep 3 # the memory hand-back after a big listing runs in the background
report "after the listing"

tmux -L "$sock" send-keys / n o t e
wait_for " of .* match" 60
deadline=$((SECONDS + 120))
while screen | grep -q "searching" && ((SECONDS < deadline)); do sleep 0.2; done
sleep 3
report "after a search (note)"
tmux -L "$sock" send-keys Escape Escape
sleep 1

tmux -L "$sock" send-keys a
wait_for "Agent" 60
sleep 10 # resolution of every resource, then the reads of the rows on screen
report "agent view open, no budget"

# A budget: now nearly every resource is a left-out row (over budget) instead of an included one.
tmux -L "$sock" send-keys '['
wait_for "budget 1,000,000" 60
sleep 10
report "agent view open, budget 1,000,000"

if [[ -n "$churn" ]]; then
    sleep 60 # the agent view open: each re-list is resolved again
    report "after 60 s of churn ($MCPICK_BENCH_CHURN ms)"
fi
