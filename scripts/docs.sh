#!/usr/bin/env bash
# Builds the API reference (Doxygen, docs/Doxyfile) into build/docs/html. Warnings are errors:
# a public class, function or member without a `///` brief fails the run.
#
#   scripts/docs.sh              build it; exit status 1 on any warning
#   scripts/docs.sh --count      build it anyway and print the warnings per header
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
scripts/setup.sh
out="$root/build/docs"
mkdir -p "$out"
version=$(sed -n 's/^#define MCP_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/mcp/version.hpp |
          paste -sd.)
export MCP_SOURCE_DIR="$root" MCP_DOCS_OUT="$out" MCP_VERSION="$version"
if [[ "${1:-}" == "--count" ]]; then
  (cat docs/Doxyfile; echo "WARN_AS_ERROR = NO"; echo "WARN_LOGFILE = $out/warnings.log") |
    doxygen - >/dev/null
  echo "docs: $(grep -c ': warning:' "$out/warnings.log" || true) warnings ($out/warnings.log)"
  grep ': warning:' "$out/warnings.log" | sed "s|^$root/||; s|:[0-9]*: warning:.*||" |
    sort | uniq -c | sort -rn
  exit 0
fi
doxygen docs/Doxyfile
echo "docs: $out/html/index.html"
