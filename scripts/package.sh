#!/usr/bin/env bash
# Builds the Debian packages from a release build (preset release, build/release):
#   build/packages/libmcp-cpp-dev_VERSION-1_ARCH.deb   headers, libraries, CMake and pkg-config
#   build/packages/mcp-cpp_VERSION-1_ARCH.deb          the mcp-cpp command and demo server
# Install them with: apt install ./build/packages/*.deb   (apt brings their dependencies)
# docs/packaging.md says what is in them and how they are versioned.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/setup.sh
export MCP_CCACHE="$(command -v ccache || true)"
# Cache hits across checkouts at different paths (CI builds a fresh clone).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
jobs="${JOBS:-$(nproc)}"
cmake --preset release >/dev/null
cmake --build --preset release -j"$jobs" --target mcp_installed
out="$root/build/packages"
rm -rf "$out"
(cd build/release && cpack -G DEB -B "$out")
rm -rf "$out/_CPack_Packages"
for deb in "$out"/*.deb; do
  printf '%s\n  Depends: %s\n' "$deb" "$(dpkg-deb -f "$deb" Depends)"
done
