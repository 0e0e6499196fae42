#!/usr/bin/env bash
# Installs the npm packages pinned by DIR/package.json (and DIR/package-lock.json when present)
# into a cache directory and prints that directory (its node_modules/ holds them). Installs only
# when the pin changed. Cache root: $MCP_NPM_CACHE, default ~/.cache/mcp-cpp-npm.
#
#   scripts/npm-cache.sh tests/interop      → /root/.cache/mcp-cpp-npm/interop-<hash>
set -euo pipefail
dir="$(cd "${1:?usage: npm-cache.sh DIR_WITH_PACKAGE_JSON}" && pwd)"
cache_root="${MCP_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-cpp-npm}"
hash="$(cat "$dir/package.json" "$dir/package-lock.json" 2>/dev/null | sha256sum | cut -c1-16)"
target="$cache_root/$(basename "$dir")-$hash"
if [[ ! -f "$target/.installed" ]]; then
  mkdir -p "$target"
  # Concurrent test runs share the cache: install under a lock, and look again once it is held
  # (npm ci empties node_modules, so a second install would pull it from under the first user).
  exec 9>"$cache_root/.lock"
  flock -w 600 9
  if [[ ! -f "$target/.installed" ]]; then
    cp "$dir/package.json" "$target/"
    [[ -f "$dir/package-lock.json" ]] && cp "$dir/package-lock.json" "$target/"
    if [[ -f "$dir/package-lock.json" ]]; then cmd=(npm ci); else cmd=(npm install); fi
    (cd "$target" && "${cmd[@]}" --no-audit --no-fund --ignore-scripts --loglevel=error) >&2
    touch "$target/.installed"
  fi
  exec 9>&-
fi
echo "$target"
