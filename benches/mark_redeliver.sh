#!/usr/bin/env bash
# What one mark costs the browser when the set has a session-start delivery, as a user meets
# it: a release build in tmux (120×40) over the demo server with COUNT resources, Claude Code
# installed into the set (`mcpick install claude-code`), one `+`. Prints how long until the
# delivered file is written again, the browser's extra memory (VmRSS at its highest while it
# delivers, less before the mark) and CPU time, and which processes ran meanwhile (a child
# `mcpick deliver`, a second server). Budget (DESIGN.md): written again ≤ 2 s after the mark
# settles (the settle is 2 s), ≤ 50 MB more, no second process or listing.
#
#   cargo build --release && benches/mark_redeliver.sh [COUNT]     (default 1000000)
#
# MCPICK_BIN picks another binary. Needs tmux.
set -euo pipefail

count=${1:-1000000}
bin=$(realpath "${MCPICK_BIN:-target/release/mcpick}")
sock="mcpick-mark-$$"
dir=$(mktemp -d)
export HOME="$dir/home" XDG_CONFIG_HOME="$dir/home/.config"
mkdir -p "$XDG_CONFIG_HOME"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
cd "$dir"

cat >mcpick.context.json <<JSON
{ "version": 1, "marks": [],
  "policy": { "audience": "any", "tokenizer": "o200k_base", "budget": 20000 },
  "servers": { "demo": { "type": "stdio", "command": "$bin",
                         "args": ["demo-server", "--count", "$count"] } } }
JSON
"$bin" trust --yes >/dev/null 2>&1
t0=$(date +%s%N)
"$bin" install claude-code >/dev/null 2>"$dir/install.err" || { cat "$dir/install.err"; exit 1; }
echo "install claude-code over $count resources: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
delivered="$dir/.mcpick/mcpick.claude-code.md"
test -f "$delivered"

tmux -L "$sock" new-session -d -x 120 -y 40 \
    "env HOME='$HOME' XDG_CONFIG_HOME='$XDG_CONFIG_HOME' '$bin' --set '$dir/mcpick.context.json'"
screen() { tmux -L "$sock" capture-pane -p; }
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
grouped=$(echo "$count" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
wait_for "ready · $grouped" 600
# The browser: the process running this binary with `--set` (tmux's own server and the pane's
# shell carry the same words in their command lines, not this binary).
browser=""
# The first such process: children it starts of itself come later.
for p in $(pgrep -f -- "--set"); do
    if [[ -z $browser && $(readlink "/proc/$p/exe") == "$bin" ]]; then browser=$p; fi
done
[[ -n $browser ]] || { echo "the browser's process was not found" >&2; exit 1; }
echo "browser: pid $browser ($(tr "\0" " " <"/proc/$browser/cmdline" | cut -c1-60))"
# Processes of this binary other than the browser: its server (`demo-server`), and any other.
others() {
    local p n=0 names=""
    for p in $(pgrep -f -- "$bin" || true); do
        [[ $p == "$browser" ]] && continue
        [[ -r /proc/$p/cmdline ]] || continue
        names+="$p:$(tr '\0' ' ' <"/proc/$p/cmdline" | awk '{print $2}') "
    done
    echo "$names"
}
cpu() { awk '{print $14 + $15}' "/proc/$browser/stat"; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$browser/status"; }

tmux -L "$sock" send-keys / n o t e
wait_for " of .* match" 60
sleep 3
tmux -L "$sock" send-keys Enter
sleep 2
before_rss=$(rss)
before_cpu=$(cpu)
before_others=$(others)
mtime=$(stat -c %y "$delivered")
t0=$(date +%s%N)
tmux -L "$sock" send-keys +
peak=$before_rss
seen=""
while [[ $(stat -c %y "$delivered") == "$mtime" ]]; do
    now=$(rss); ((now > peak)) && peak=$now
    seen+="$(others)"$'\n'
    if (( ($(date +%s%N) - t0) / 1000000000 > 120 )); then
        echo "not written again within 120 s" >&2
        screen >&2
        exit 1
    fi
    sleep 0.05
done
t1=$(date +%s%N)
sleep 1
now=$(rss); ((now > peak)) && peak=$now
after_cpu=$(cpu)
tick=$(getconf CLK_TCK)
echo "one + : written again after $(( (t1 - t0) / 1000000 )) ms (2 s of it the settle)"
echo "browser: $((before_rss / 1000)) MB before, peak $((peak / 1000)) MB while delivering (+$(( (peak - before_rss) / 1000 )) MB)"
echo "browser CPU time from the + to 1 s after the write: $(( (after_cpu - before_cpu) * 1000 / tick )) ms"
echo "other processes of this binary before the +: ${before_others:-none}"
echo "other processes of this binary seen meanwhile (pid:command): $(echo "$seen" | tr ' ' '\n' | sort -u | tr '\n' ' ')"
