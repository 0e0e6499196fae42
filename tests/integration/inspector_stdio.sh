#!/usr/bin/env bash
# Interop: the MCP Inspector CLI (another team's client) lists and calls the demo server's tools
# over stdio. Exit 77 (skipped) only when node is absent.
set -euo pipefail
demo="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
command -v node >/dev/null || { echo "node not found: skipped"; exit 77; }
mods="$("$root/scripts/npm-cache.sh" "$root/tests/interop")/node_modules"
inspector="$mods/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
[[ -f "$inspector" ]] || { echo "inspector not installed at $inspector" >&2; exit 1; }
export HOME="$(mktemp -d)" CI=true
trap 'rm -rf "$HOME"' EXIT

run() { timeout 120 node "$inspector" --cli --format json "$@" -- "$demo" </dev/null; }
check() {  # check JSON_TEXT JS_EXPRESSION_ON_r DESCRIPTION
  node -e 'const r = JSON.parse(process.argv[1]).result;
           if (!(eval(process.argv[2]))) { console.error("FAILED: " + process.argv[3] + "\n" + process.argv[1]); process.exit(1); }
           console.log("ok: " + process.argv[3]);' "$1" "$2" "$3"
}

out="$(run --method tools/list)"
check "$out" 'r.tools.length === 15 && r.tools.some(t => t.name === "forecast" && t.outputSchema) && r.tools.some(t => t.name === "must_task" && t.execution.taskSupport === "required")' \
  "tools/list shows the 15 enabled tools with schemas and task support"

out="$(run --method tools/call --tool-name echo --tool-arg 'text=hi from inspector')"
check "$out" 'r.content[0].text === "hi from inspector"' "tools/call echo"

out="$(run --method tools/call --tool-name forecast --tool-args-json '{"city":"Oslo","days":2}')"
check "$out" 'r.structuredContent.city === "Oslo" && r.structuredContent.days.length === 2' \
  "tools/call forecast returns structuredContent"

out="$(run --method tools/call --tool-name make_image)"
check "$out" 'r.content[0].type === "image" && r.content[0].mimeType === "image/png"' \
  "tools/call make_image"

set +e
out="$(run --method tools/call --tool-name fail --tool-arg reason=interop)"
rc=$?
set -e
[[ $rc == 5 ]] || { echo "FAILED: inspector exit code $rc for an isError result, expected 5"; exit 1; }
check "$out" 'r.isError === true && r.content[0].text.includes("interop")' "tools/call fail is isError"
echo "inspector stdio interop: 5 passed, 0 failed"
