#!/usr/bin/env bash
# The conformance suite's client scenarios with `mcp-cpp` as the client. The suite runs
#
#   cli_client.sh MCP_CPP URL
#
# once per scenario, naming it in MCP_CONFORMANCE_SCENARIO (and, for auth/pre-registration, the
# client's credentials in MCP_CONFORMANCE_CONTEXT). Each scenario is what a user would type:
# list or call the scenario's tool against --url URL. OAuth runs as mcp-cpp runs it for a
# person, with headless_browser.sh as $BROWSER (it visits the authorization URL and follows the
# redirect to mcp-cpp's loopback listener) and a token store of its own.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="$1"
url="$2"
scenario="${MCP_CONFORMANCE_SCENARIO:?set by the conformance suite}"
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
export BROWSER="$here/headless_browser.sh"
oauth=(--token-store "$state/tokens.json")

# A string member of MCP_CONFORMANCE_CONTEXT (flat JSON of strings).
context() {
  sed -n "s/.*\"$1\" *: *\"\\([^\"]*\\)\".*/\\1/p" <<<"${MCP_CONFORMANCE_CONTEXT:-}"
}

case "$scenario" in
  initialize) "$cli" tools list --url "$url" ;;
  tools_call) "$cli" tools call add_numbers a=2 b=3 --yes --url "$url" ;;
  sse-retry) "$cli" tools call test_reconnection --yes --url "$url" ;;
  elicitation-sep1034-client-defaults)
    "$cli" tools call test_client_elicitation_defaults --yes --elicit accept-defaults --url "$url"
    ;;
  json-schema-2020-12-preservation)
    # The tool's inputSchema as mcp-cpp received it, sent back as an argument: every keyword must
    # survive (the suite compares them).
    tool="$("$cli" tools describe json_schema_2020_12_tool --json --url "$url")"
    args="$(node -e 'const t = JSON.parse(require("fs").readFileSync(0, "utf8"));
      process.stdout.write(JSON.stringify({schema: t.inputSchema}));' <<<"$tool")"
    "$cli" tools call json_schema_echo --yes --args "$args" --url "$url"
    ;;
  auth/pre-registration)
    "$cli" tools call test-tool --yes --url "$url" "${oauth[@]}" \
      --client-id "$(context client_id)" --client-secret "$(context client_secret)"
    ;;
  auth/*)
    # The suite's authorization servers that take a Client ID Metadata Document expect this URL.
    "$cli" tools call test-tool --yes --url "$url" "${oauth[@]}" \
      --client-metadata-url https://conformance-test.local/client-metadata.json
    ;;
  *)
    echo "cli_client.sh: no way to run scenario $scenario" >&2
    exit 2
    ;;
esac
