#!/usr/bin/env bash
# How long a search typed while a million resources stream in takes to show its first
# matches, as a person at a terminal meets it: the browser (release build) in tmux (120×40)
# against the demo server; each round opens the search line, types a query at once, and
# times until the search line says "N of M match" with N > 0 (tmux's capture round trip
# included, polled every 10 ms), then closes it (Esc). Rounds run back to back while the
# listing grows, and a few after it is listed. Budget (issue 22): first matches ≤ 1 s.
#
#   cargo build --release && benches/search_first.sh [COUNT]     (default 1000000)
#
# MCPICK_BIN picks another binary. Needs tmux.
set -euo pipefail
count=${1:-1000000}
bin=$(realpath "${MCPICK_BIN:-target/release/mcpick}")
sock="mcpick-search-$$"
dir=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
cd "$dir"
tmux -L "$sock" new-session -d -x 120 -y 40 "HOME='$dir' '$bin' -- '$bin' demo-server --count $count"
screen() { tmux -L "$sock" capture-pane -p; }
now_ms() { date +%s%3N; }
loaded() { screen | head -1 | grep -o '[0-9][0-9,]* resources' | head -1 | tr -d ', resources'; }
until [ -n "$(loaded)" ]; do sleep 0.05; done
queries=(note readme clock asset budget notes/1 project untrusted search empty)
printf '%-12s %12s %10s\n' query loaded ms
results=()
for round in $(seq 1 14); do
    q=${queries[$(((round - 1) % ${#queries[@]}))]}
    at=$(loaded || true)
    listed=$(screen | head -1 | grep -q 'loading' && echo loading || echo listed)
    tmux -L "$sock" send-keys "/"
    until screen | sed -n 2p | grep -q '^/ '; do sleep 0.01; done
    t0=$(now_ms)
    tmux -L "$sock" send-keys -l "$q"
    until screen | sed -n 2p | grep -Eq "^/ $q.* [1-9][0-9,]* of "; do
        if (($(now_ms) - t0 > 20000)); then echo "no match for $q in 20 s" >&2; screen >&2; exit 1; fi
        sleep 0.01
    done
    ms=$(($(now_ms) - t0))
    results+=("$ms")
    printf '%-12s %12s %10s  %s\n' "$q" "${at:-?}" "$ms" "$listed"
    tmux -L "$sock" send-keys Escape
    sleep 0.3
done
sorted=$(printf '%s\n' "${results[@]}" | sort -n)
n=${#results[@]}
median=$(echo "$sorted" | sed -n "$(((n + 1) / 2))p")
worst=$(echo "$sorted" | tail -1)
echo "first matches: median ${median} ms, worst ${worst} ms over $n searches ($count resources)"
