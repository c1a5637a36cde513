#!/usr/bin/env bash
# Fills dist/formula.rb.in with VERSION and the checksums in DIR (the archives' .sha256
# files, as dist/archive.sh writes them): dist/formula.sh VERSION DIR > mcpick.rb
set -euo pipefail
version=$1 dir=$2
here="$(cd "$(dirname "$0")" && pwd)"
script=(-e "s/@VERSION@/$version/g")
for target in aarch64-apple-darwin x86_64-apple-darwin aarch64-unknown-linux-musl x86_64-unknown-linux-musl; do
    sum="$dir/mcpick-$target.tar.xz.sha256"
    [ -f "$sum" ] || { echo "formula.sh: no $sum" >&2; exit 1; }
    key=$(echo "$target" | tr 'a-z-' 'A-Z_')
    script+=(-e "s/@SHA_${key}@/$(cut -d ' ' -f 1 "$sum")/g")
done
sed "${script[@]}" "$here/formula.rb.in"
