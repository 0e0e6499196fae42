#!/usr/bin/env bash
# Installs what mcp-cpp needs to build and test on Debian 12: the Debian packages listed in
# scripts/debian-packages.txt (with apt-get, when run as root), and, with --npm, the pinned npm
# packages of the interop checks into a cache directory. Safe to run again: it installs only
# what is missing.
#
#   scripts/setup.sh          Debian packages
#   scripts/setup.sh --npm    Debian packages, then the npm packages the tests use
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"

missing=()
while read -r pkg; do
  case "$pkg" in ''|'#'*) continue ;; esac
  # node and npm may come from elsewhere (e.g. nodesource); any node >= 18 is fine.
  if [[ "$pkg" == nodejs || "$pkg" == npm ]] && command -v "${pkg/nodejs/node}" >/dev/null 2>&1; then
    continue
  fi
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
done < "$here/debian-packages.txt"

if ((${#missing[@]} > 0)); then
  if [[ "$(id -u)" == 0 ]]; then
    echo "setup: installing Debian packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if [[ "${1:-}" == "--npm" ]]; then
  "$here/npm-cache.sh" "$root/tests/interop" >/dev/null
  "$here/npm-cache.sh" "$root/tests/conformance/pins/ts-sdk-2.4.0" >/dev/null
fi
