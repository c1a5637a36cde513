#!/bin/sh
# mcpick as the client under test of @modelcontextprotocol/conformance (tests/conformance.rs):
# the suite starts a server per scenario and runs this with its URL. mcpick lists what the
# server publishes; when the server asks for a sign-in, `mcpick login` signs in first (the
# "browser" follows the authorization redirect, as a person approving it would), with the
# pre-registered client the scenario hands over in MCP_CONFORMANCE_CONTEXT, if any.
# MCPICK is the binary under test; each run keeps its tokens in a folder of its own.
set -u
url="$1"
state=$(mktemp -d)
export HOME="$state" MCPICK_DATA_DIR="$state/data" MCPICK_CACHE_DIR=""
export BROWSER="$(dirname "$0")/../peers/browser.sh"
if "$MCPICK" ls --url "$url" --json >/dev/null 2>"$state/ls.err"; then
  exit 0
fi
cat "$state/ls.err" >&2
set -- --url "$url" --wait 20
client_id=$(printf '%s' "${MCP_CONFORMANCE_CONTEXT:-}" | python3 -c \
  'import json,sys; t=sys.stdin.read(); print(json.loads(t).get("client_id","") if t else "")')
if [ -n "$client_id" ]; then
  MCPICK_CLIENT_SECRET=$(printf '%s' "$MCP_CONFORMANCE_CONTEXT" | python3 -c \
    'import json,sys; print(json.loads(sys.stdin.read()).get("client_secret",""))')
  export MCPICK_CLIENT_SECRET
  set -- "$@" --client-id "$client_id"
fi
"$MCPICK" login "$@" </dev/null >&2 || exit 1
exec "$MCPICK" ls --url "$url" --json >/dev/null
