#!/usr/bin/env bash
# The latency `mcpick wrap` adds: the median round trip of `tools/call` and `resources/read`
# through `mcpick wrap-serve` against the same calls made straight to the same upstream.
#
# The upstream is the built-in demo server, as a wrapped project entry would run it:
# the test fixture's `mcpick-fixture --no-resources` (the demo with only an `echo` tool; the
# fixture sits next to mcpick, `cargo build` builds both) for tools/call, `mcpick demo-server`
# (its resources) for resources/read. A Rust upstream answers in microseconds, so what is
# measured is the proxy, not the server. The two sessions of each pair are started once and
# driven alternately, one call at a time (call straight, call through, repeat), so drift on
# the machine hits both alike. Raw JSON-RPC lines over pipes; no SDK on the client side.
#
# Budgets (issue 23): <= 1 ms median added per tools/call, <= 0.5 ms per resources/read.
# The figures mean something for a release build only:
#
#   cargo build --release
#   MCPICK=target/release/mcpick bash benches/wrap.sh [N]
#
# With no MCPICK, the debug build ($CARGO_TARGET_DIR or target/debug/mcpick) is used, and
# the table says so. N: calls per method and path (default 2000).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
mcpick="${MCPICK:-${CARGO_TARGET_DIR:-$root/target}/debug/mcpick}"
[[ -x "$mcpick" ]] || { echo "wrap.sh: no mcpick at $mcpick (cargo build, or set MCPICK)" >&2; exit 2; }
fixture="$(dirname "$mcpick")/mcpick-fixture"
[[ -x "$fixture" ]] || { echo "wrap.sh: no test fixture at $fixture (cargo build)" >&2; exit 2; }
calls="${1:-2000}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project" "$work/home"
# Two project entries, wrapped as a user would.
cat >"$work/project/.mcp.json" <<EOF
{
  "mcpServers": {
    "tools": { "command": "$fixture", "args": ["--no-resources"] },
    "res": { "command": "$mcpick", "args": ["demo-server", "--count", "300"] }
  }
}
EOF
export HOME="$work/home"
cd "$work/project"
"$mcpick" policy --audience any >/dev/null
"$mcpick" wrap claude-code tools >/dev/null
"$mcpick" wrap claude-code res >/dev/null

MCPICK_BIN="$mcpick" CALLS="$calls" python3 - <<'PY'
import json, os, statistics, subprocess, time

mcpick, calls = os.environ["MCPICK_BIN"], int(os.environ["CALLS"])
doc = json.load(open(".mcp.json"))

class Session:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, bufsize=0)
        self.out = self.p.stdout
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.p.stdin.write((json.dumps(message) + "\n").encode())

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self.out.readline()
            if not line:
                raise SystemExit(f"wrap.sh: {method}: the server closed")
            reply = json.loads(line)
            if reply.get("id") == rid and "method" not in reply:
                if "error" in reply:
                    raise SystemExit(f"wrap.sh: {method}: {reply['error']}")
                return reply["result"]

    def timed(self, method, params):
        start = time.perf_counter_ns()
        self.request(method, params)
        return (time.perf_counter_ns() - start) / 1e6

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=5)

rows = []
for entry, method, params_of in [
    ("tools", "tools/call", lambda s: {"name": "echo", "arguments": {"text": "hello " * 20}}),
    ("res", "resources/read", None),
]:
    e = doc["mcpServers"][entry]
    through = Session([mcpick if os.path.basename(e["command"]) == "mcpick" else e["command"]] + e["args"])
    record = json.load(open(".mcp.json.mcpick-wrap.json"))["entries"][entry]["original"]
    direct = Session([record["command"]] + record["args"])
    if params_of is None:
        # The proxy learns what it may publish from a listing, as a host lists first.
        listed = through.request("resources/list", {})["resources"]
        direct.request("resources/list", {})
        texts = [r["uri"] for r in listed if r.get("mimeType", "").startswith("text/")]
        uri = texts[0]
        params_of = lambda s, uri=uri: {"uri": uri}
    for s in (direct, through):  # warm up
        for _ in range(50):
            s.request(method, params_of(s))
    times = {"direct": [], "through": []}
    for _ in range(calls):
        times["direct"].append(direct.timed(method, params_of(direct)))
        times["through"].append(through.timed(method, params_of(through)))
    direct.close()
    through.close()
    d, t = statistics.median(times["direct"]), statistics.median(times["through"])
    rows.append((method, d, t, t - d, t / d if d else float("inf")))

build = "RELEASE" if "/release/" in mcpick else "DEBUG (figures not meaningful for the budget)"
print(f"mcpick wrap-serve latency, {calls} calls per method and path, build: {build}")
print(f"{'method':<16}{'straight ms':>13}{'through ms':>13}{'added ms':>11}{'ratio':>8}{'budget ms':>11}")
budget = {"tools/call": 1.0, "resources/read": 0.5}
for method, d, t, added, ratio in rows:
    mark = "ok" if added <= budget[method] else "OVER"
    print(f"{method:<16}{d:>13.3f}{t:>13.3f}{added:>11.3f}{ratio:>8.2f}{budget[method]:>9.1f} {mark}")
PY
