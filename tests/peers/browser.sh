#!/bin/sh
# A "browser" for OAuth tests: fetches the authorization URL and follows its redirects, as a
# person approving the sign-in would. With FORGE_STATE set, it replaces the `state` of the
# redirect back to mcpick with that value first (a forged or stale redirect).
set -eu
if [ -z "${FORGE_STATE:-}" ]; then
  exec curl -s -L -o /dev/null "$1"
fi
back=$(curl -s -o /dev/null -w '%{redirect_url}' "$1")
forged=$(printf '%s' "$back" | sed "s/state=[^&]*/state=$FORGE_STATE/")
exec curl -s -o /dev/null "$forged"
