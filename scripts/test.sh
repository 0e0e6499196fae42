#!/usr/bin/env bash
# Builds mcp-cpp and runs every test: the main build (GCC 12, warnings as errors) with all tests
# and the interop checks, the same tests built with clang 14 under ASan+UBSan, the consumer
# builds, the format check, the API reference (Doxygen, warnings as errors), a short pass of every
# fuzz target (seeds and past findings included), and the concurrency tests under
# ThreadSanitizer.
# Installs what it needs first (Debian packages when root, npm packages into a cache).
#
#   scripts/test.sh            everything
#   scripts/test.sh --quick    main build and its tests only (no sanitizers, no fuzzing)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
quick=0
[[ "${1:-}" == "--quick" ]] && quick=1

scripts/setup.sh --npm
# The TypeScript SDK task server that a client test runs against comes with ../shared/bench
# (beside the clone in CI); without it that test reports SKIPPED with the reason.
if [[ -f ../shared/bench/setup.sh ]]; then
  bash ../shared/bench/setup.sh >/dev/null 2>&1 ||
    echo "test: ../shared/bench/setup.sh failed; the TypeScript task-server check will be SKIPPED"
fi
export MCP_CCACHE="$(command -v ccache || true)"
# Cache hits across checkouts at different paths (CI builds a fresh clone).
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
jobs="$(nproc)"
status=0
failed=()  # the stages that failed, named again at the end (CI keeps the tail of the output)

step() { printf '\n==== %s\n' "$*"; }
# Names the tests of a ctest run that failed (ctest keeps them in LastTestsFailed.log), and
# keeps the end of each one's output (from LastTest.log) to be shown again at the end.
failed_output=""
ctest_failed() {
  local dir="build/$1/Testing/Temporary" name out
  if [[ ! -s "$dir/LastTestsFailed.log" ]]; then
    failed+=("tests ($1)")
    return
  fi
  failed+=("tests ($1): $(cut -d: -f2- "$dir/LastTestsFailed.log" | paste -sd' ' -)")
  while read -r name; do
    # Its failure lines first (a long output's tail may not hold them), then its last lines.
    out="$(awk -v t="$name" '
      index($0, " Test: " t) && substr($0, length($0) - length(t) + 1) == t {f = 1}
      f && /^<end of output>/ {exit}
      f' "$dir/LastTest.log")"
    failed_output+=$'\n'"---- $name ($1): its failure lines, then the end of its output:"$'\n'
    failed_output+="$(grep -m 20 -A 6 -E 'FAIL|Failure|ERROR|error:' <<<"$out")"$'\n'"  ..."$'\n'
    failed_output+="$(tail -n 8 <<<"$out")"$'\n'
  done < <(cut -d: -f2- "$dir/LastTestsFailed.log")
}

step "format (clang-format 14)"
if ! scripts/check-format.sh; then status=1; failed+=("format"); fi

step "API reference (Doxygen over include/mcp; a warning fails)"
docs_ok=1
docs_out="$(scripts/docs.sh 2>&1)" || docs_ok=0
printf '%s\n' "$docs_out"
if [[ $docs_ok == 0 ]]; then
  status=1
  failed+=("API reference")
  where="$(printf '%s\n' "$docs_out" |
           sed -En "s%^$root/([^:]*):[0-9]*: (warning|error):.*%\1%p" | sort | uniq -c | sort -rn)"
  if [[ -n "$where" ]]; then
    echo "docs: FAILED: public API without a \`///\` brief, or with broken doc markup; per header:"
    printf '%s\n' "$where"
  else
    echo "docs: FAILED: scripts/docs.sh stopped before Doxygen reported anything (see above)"
  fi
fi

step "build: warnings as errors (preset ci)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$jobs"
step "tests (preset ci)"
ctest --preset ci -j"$jobs" || { status=1; ctest_failed ci; }

if [[ $quick == 0 ]]; then
  step "build: clang 14, ASan+UBSan (preset asan)"
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j"$jobs"
  step "tests under ASan+UBSan (preset asan, clang 14)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --preset asan -j"$jobs" --label-exclude "interop|abuse" || { status=1; ctest_failed asan; }

  step "fuzz: seeds, past findings, then 20 s of each target (preset fuzz, clang 14)"
  scripts/fuzz.sh --ci 20 || { status=1; failed+=("fuzz"); }

  step "build: ThreadSanitizer (preset tsan: the session, client, HTTP, auth, observation, process, timer and pool tests)"
  cmake --preset tsan >/dev/null
  cmake --build --preset tsan -j"$jobs"
  step "concurrency tests under ThreadSanitizer"
  for t in mcp_core_tests mcp_http_tests mcp_auth_tests mcp_observe_tests; do
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp" \
      "build/tsan/tests/$t" --gtest_brief=1 || { status=1; failed+=("ThreadSanitizer: $t"); }
  done
  # The process transport: reader threads, shutdown from either side, a child killed mid-call.
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp" \
    build/tsan/tests/mcp_stdio_tests --gtest_filter='process_connection.*:launch_server.*' \
    --gtest_brief=1 || { status=1; failed+=("ThreadSanitizer: mcp_stdio_tests"); }
fi

if [[ $status == 0 ]]; then
  step "all tests passed"
else
  step "FAILED"
  printf '  %s\n' "${failed[@]}"
  [[ -z "$failed_output" ]] || printf '%s\n' "$failed_output"
fi
exit $status
