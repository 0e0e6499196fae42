#!/usr/bin/env bash
# Builds mcp-cpp and runs every test: the main build (warnings as errors) with all tests and the
# interop checks, the same tests under ASan+UBSan, the consumer builds, and the format check.
# Installs what it needs first (Debian packages when root, npm packages into a cache).
#
#   scripts/test.sh            everything
#   scripts/test.sh --quick    main build and its tests only
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1

scripts/setup.sh --npm
export MCP_CCACHE="$(command -v ccache || true)"
# Cache hits across checkouts at different paths (CI builds a fresh clone).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
jobs="$(nproc)"
status=0

step() { printf '\n==== %s\n' "$*"; }

step "format (clang-format 14)"
if ! scripts/check-format.sh; then status=1; fi

step "build: warnings as errors (preset ci)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$jobs"
step "tests (preset ci)"
ctest --preset ci -j"$jobs" || status=1

if [[ $quick == 0 ]]; then
  step "build: ASan+UBSan (preset asan)"
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j"$jobs"
  step "tests under ASan+UBSan (preset asan)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --preset asan -j"$jobs" --label-exclude interop || status=1
fi

if [[ $status == 0 ]]; then
  step "all tests passed"
else
  step "FAILED"
fi
exit $status
