#!/usr/bin/env bash
# libFuzzer targets (tests/fuzz): build them (preset `fuzz`, clang 14, ASan+UBSan) and run.
#
#   scripts/fuzz.sh TARGET [SECONDS]   fuzz one target (default 600 s), from its seed corpus;
#                                      new inputs go to build/fuzz/corpus/TARGET
#   scripts/fuzz.sh --ci [SECONDS]     every target: the seed corpus and every past finding
#                                      (tests/fuzz/regressions/TARGET) as regression inputs, then
#                                      SECONDS (default 20) of fuzzing each; fails on any crash,
#                                      leak, timeout or out-of-memory
#   scripts/fuzz.sh --list             the targets
#
# A finding is saved as build/fuzz/findings/TARGET/crash-*; docs/testing.md says how to turn it
# into a test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
targets=(session modern jsonrpc call_scan http http_client sse json_schema regex uri_template jwt
         policy oauth redis_reply redis_url trace_context otlp_answer client_types client_modern)
[[ "${1:-}" == "--list" ]] && { printf '%s\n' "${targets[@]}"; exit 0; }

export MCP_CCACHE="${MCP_CCACHE:-$(command -v ccache || true)}"
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)" >/dev/null
bin="$root/build/fuzz/tests/fuzz"
# Leaks fail the run; a slow input (a hang) is a finding after 10 s; memory above 2 GiB too.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
common=(-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

fuzz_one() {  # TARGET SECONDS
  local t="$1" seconds="$2" dict=()
  [[ -f tests/fuzz/$t.dict ]] && dict=(-dict="tests/fuzz/$t.dict")
  mkdir -p "build/fuzz/corpus/$t" "build/fuzz/findings/$t"
  "$bin/fuzz_$t" "${common[@]}" "${dict[@]}" -max_total_time="$seconds" \
    -artifact_prefix="build/fuzz/findings/$t/" "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t"
}

replay() {  # TARGET: every seed and past finding, once each
  local t="$1" inputs=()
  shopt -s nullglob
  inputs=(tests/fuzz/corpus/"$t"/* tests/fuzz/regressions/"$t"/*)
  shopt -u nullglob
  ((${#inputs[@]})) || return 0
  "$bin/fuzz_$t" "${common[@]}" "${inputs[@]}" >/dev/null 2>"build/fuzz/replay-$t.log" || {
    cat "build/fuzz/replay-$t.log"
    return 1
  }
}

if [[ "${1:-}" == "--ci" ]]; then
  seconds="${2:-20}"
  status=0
  for t in "${targets[@]}"; do
    if ! replay "$t"; then
      echo "fuzz: $t: a seed or past finding fails"
      status=1
      continue
    fi
    if fuzz_one "$t" "$seconds" >"build/fuzz/run-$t.log" 2>&1; then
      echo "fuzz: $t: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "build/fuzz/run-$t.log" | grep -o '[0-9]*$') runs in ${seconds} s, no finding"
    else
      tail -60 "build/fuzz/run-$t.log"
      echo "fuzz: $t: FINDING (build/fuzz/findings/$t/)"
      status=1
    fi
  done
  exit $status
fi

t="${1:?usage: scripts/fuzz.sh TARGET [SECONDS] | --ci [SECONDS] | --list}"
[[ -x "$bin/fuzz_$t" ]] || { echo "no target $t (scripts/fuzz.sh --list)"; exit 2; }
replay "$t"
fuzz_one "$t" "${2:-600}"
