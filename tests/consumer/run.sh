#!/usr/bin/env bash
# Consumer test: MODE=install builds and installs mcp-cpp into a temporary prefix and builds a
# program with find_package(mcp), linked to the shared libraries and again to the static ones
# (MCP_USE_STATIC_LIBS); MODE=subdirectory builds it with add_subdirectory. Both also build it
# with mcp_precompile_headers (consumer_pch).
set -euo pipefail
mode="$1" src="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ "$mode" == install ]]; then
  cmake -S "$src" -B "$work/sdk" -DCMAKE_BUILD_TYPE=Release -DMCP_BUILD_TESTS=OFF \
    -DMCP_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" "${launcher[@]}" >/dev/null
  cmake --build "$work/sdk" -j"$(nproc)" >/dev/null
  cmake --install "$work/sdk" >/dev/null
  cmake -S "$src/tests/consumer" -B "$work/app" -DCMAKE_PREFIX_PATH="$work/prefix" \
    "${launcher[@]}" >/dev/null
else
  cmake -S "$src/tests/consumer" -B "$work/app" -DMCP_CONSUMER_MODE=subdirectory \
    -DMCP_SOURCE_DIR="$src" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
fi
cmake --build "$work/app" -j"$(nproc)" >/dev/null
"$work/app/consumer"
# mcp_precompile_headers: the header was precompiled, and the program built from it runs.
pch=$(find "$work/app/CMakeFiles/consumer_pch.dir" -name 'cmake_pch.hxx.[gp]ch' | head -n 1)
[[ -n "$pch" ]] || { echo "consumer_pch: no precompiled header was made" >&2; exit 1; }
"$work/app/consumer_pch"
if [[ "$mode" == install ]]; then
  readelf -d "$work/app/consumer" | grep -q "NEEDED.*libmcp_auth.so" ||
    { echo "consumer: not linked to the shared libmcp_auth" >&2; exit 1; }
  cmake -S "$src/tests/consumer" -B "$work/app-static" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DMCP_USE_STATIC_LIBS=ON "${launcher[@]}" >/dev/null
  cmake --build "$work/app-static" -j"$(nproc)" >/dev/null
  if readelf -d "$work/app-static/consumer" | grep -q "NEEDED.*libmcp"; then
    echo "consumer: MCP_USE_STATIC_LIBS=ON still linked a shared libmcp" >&2
    exit 1
  fi
  "$work/app-static/consumer"
fi
