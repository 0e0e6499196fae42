# Sourced by the interop scripts (bash). start_server LOG CMD ARGS...: starts CMD in the
# background (its pid in $pid), its stderr in LOG, and waits up to 10 s for the URL it prints
# ("listening on http://..."), which it puts in $url. Returns 1 when none comes (LOG says why).
start_server() {
  local log="$1"
  shift
  : >"$log"  # before the server starts: the loop may read it first
  "$@" 2>"$log" </dev/null &
  pid=$!
  url=""
  for _ in $(seq 1 100); do
    url="$(grep -o 'http://[^ ]*' "$log" | head -n1 || true)"
    [[ -n "$url" ]] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
