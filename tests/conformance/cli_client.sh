#!/usr/bin/env bash
# The conformance suite's client scenarios with `mcp-cpp` as the client. The suite runs
#
#   cli_client.sh MCP_CPP URL
#
# once per scenario, naming it in MCP_CONFORMANCE_SCENARIO (and, for some, what the client is
# given in MCP_CONFORMANCE_CONTEXT, a JSON object: pre-registered credentials, keys, assertions,
# the identity provider of enterprise-managed authorization). Each scenario is what a user would
# type: list or call the scenario's tool against --url URL. OAuth runs as mcp-cpp runs it for a
# person, with headless_browser.sh as $BROWSER (it visits the authorization URL and follows the
# redirect to mcp-cpp's loopback listener) and a token store of its own; the grants without a
# browser run with the options a service would give.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cli="$1"
url="$2"
scenario="${MCP_CONFORMANCE_SCENARIO:?set by the conformance suite}"
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
export BROWSER="$here/headless_browser.sh"
oauth=(--token-store "$state/tokens.json")
call=("$cli" tools call test-tool --yes --url "$url" "${oauth[@]}")

# A member of MCP_CONFORMANCE_CONTEXT: a string as it is (JSON escapes decoded), anything else
# as JSON; empty when absent.
context() {
  node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
    const v = c[process.argv[1]];
    process.stdout.write(v === undefined || v === null ? "" :
                         typeof v === "string" ? v : JSON.stringify(v));' "$1"
}
# The same, written to a file of its own (keys and JWTs are not put on a command line); prints
# the file's name.
context_file() {
  context "$1" >"$state/$1"
  echo "$state/$1"
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
    MCP_CPP_CLIENT_SECRET="$(context client_secret)" "${call[@]}" \
      --client-id "$(context client_id)" --client-issuer "$(context issuer)"
    ;;
  auth/client-credentials-basic)
    MCP_CPP_CLIENT_SECRET="$(context client_secret)" "${call[@]}" --grant client-credentials \
      --client-id "$(context client_id)"
    ;;
  auth/client-credentials-jwt)
    "${call[@]}" --grant client-credentials --client-id "$(context client_id)" \
      --client-key "$(context_file private_key_pem)" --client-key-alg "$(context signing_algorithm)"
    ;;
  auth/enterprise-managed-authorization)
    MCP_CPP_CLIENT_SECRET="$(context client_secret)" "${call[@]}" --grant enterprise \
      --client-id "$(context client_id)" --idp-token-endpoint "$(context idp_token_endpoint)" \
      --idp-client-id "$(context idp_client_id)" --id-token-file "$(context_file idp_id_token)"
    ;;
  auth/wif-jwt-bearer)
    "${call[@]}" --grant jwt-bearer --client-id "$(context client_id)" \
      --assertion-file "$(context_file valid_jwt)"
    ;;
  auth/dpop | auth/dpop-nonce)
    "${call[@]}" --dpop --client-metadata-url https://conformance-test.local/client-metadata.json
    ;;
  auth/*)
    # The suite's authorization servers that take a Client ID Metadata Document expect this URL.
    "${call[@]}" --client-metadata-url https://conformance-test.local/client-metadata.json
    ;;
  *)
    echo "cli_client.sh: no way to run scenario $scenario" >&2
    exit 2
    ;;
esac
