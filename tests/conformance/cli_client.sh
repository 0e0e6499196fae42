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
# The revision the suite's mocks speak (MCP_CONFORMANCE_PROTOCOL_VERSION): against 2026-07-28
# mcp-cpp negotiates as a user who does not know the server would (--protocol auto: a
# server/discover probe, initialize only when the server is of the old era); before it, the
# default (initialize).
proto=()
[[ "${MCP_CONFORMANCE_PROTOCOL_VERSION:-}" != 2026-07-28 ]] || proto=(--protocol auto)
oauth=(--token-store "$state/tokens.json" ${proto[@]+"${proto[@]}"})
call=("$cli" tools call test-tool --yes --url "$url" "${oauth[@]}")
# mcp-cpp GROUP VERB ARGS... against the scenario's server, in the suite's revision.
mcp() { "$cli" "$@" --url "$url" ${proto[@]+"${proto[@]}"}; }

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
  initialize | request-metadata | json-schema-ref-no-deref) mcp tools list ;;
  tools_call) mcp tools call add_numbers a=2 b=3 --yes ;;
  sse-retry) mcp tools call test_reconnection --yes ;;
  elicitation-sep1034-client-defaults)
    mcp tools call test_client_elicitation_defaults --yes --elicit accept-defaults
    ;;
  sep-2322-client-request-state)
    # Input rounds: an elicitation answered with the form's defaults, the server's requestState
    # (or none) sent back; a plain call in between; an answer without resultType.
    for tool in test_mrtr_echo_state test_mrtr_unrelated test_mrtr_no_state \
      test_mrtr_no_result_type; do
      mcp tools call "$tool" --yes --elicit accept-defaults
    done
    ;;
  http-standard-headers)
    # Every request that carries a name, on every listed tool, resource and prompt.
    listed="$(mcp tools list --json)"
    for tool in $(node -e 'for (const t of JSON.parse(require("fs").readFileSync(0)).tools)
      console.log(t.name)' <<<"$listed"); do
      mcp tools call "$tool" --yes
    done
    mcp resources list
    for uri in file:///path/to/file%20name.txt 'https://example.com/resource?id=123'; do
      mcp resources read "$uri"
    done
    mcp prompts list
    mcp prompts get test_prompt
    ;;
  http-custom-headers)
    # The calls the suite names (context.toolCalls): each annotated argument goes into an
    # Mcp-Param-* header as well. mcp-cpp checks arguments against the inputSchema before it
    # sends them, and a null is no boolean: a null argument is left out (not given, which must
    # leave its header out just the same).
    calls="$(context toolCalls)"
    count="$(node -p 'JSON.parse(process.argv[1]).length' "$calls")"
    for ((i = 0; i < count; i++)); do
      name="$(node -p 'JSON.parse(process.argv[1])[process.argv[2]].name' "$calls" "$i")"
      args="$(node -p 'const a = JSON.parse(process.argv[1])[process.argv[2]].arguments;
        JSON.stringify(a, (k, v) => (k !== "" && v === null ? undefined : v))' "$calls" "$i")"
      mcp tools call "$name" --yes --args "$args"
    done
    ;;
  http-invalid-tool-headers)
    # Every tool the listing shows is called (a value for each required property): the ones
    # whose x-mcp-header is invalid must not be among them.
    listed="$(mcp tools list --json)"
    node -e 'for (const t of JSON.parse(require("fs").readFileSync(0)).tools) {
        const args = {};
        for (const k of t.inputSchema?.required ?? []) {
          const type = t.inputSchema.properties?.[k]?.type;
          args[k] = type === "integer" || type === "number" ? 1 : type === "boolean" ? true : "x";
        }
        console.log(t.name + "\t" + JSON.stringify(args));
      }' <<<"$listed" >"$state/calls"
    while IFS=$'\t' read -r name args; do
      mcp tools call "$name" --yes --args "$args"
    done <"$state/calls"
    ;;
  json-schema-2020-12-preservation)
    # The tool's inputSchema as mcp-cpp received it, sent back as an argument: every keyword must
    # survive (the suite compares them).
    tool="$(mcp tools describe json_schema_2020_12_tool --json)"
    args="$(node -e 'const t = JSON.parse(require("fs").readFileSync(0, "utf8"));
      process.stdout.write(JSON.stringify({schema: t.inputSchema}));' <<<"$tool")"
    mcp tools call json_schema_echo --yes --args "$args"
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
