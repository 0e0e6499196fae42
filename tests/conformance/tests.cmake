# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# conformance/pins/) against examples/everything_server over Streamable HTTP, and the TypeScript
# SDK client driving the same server over stdio and HTTP; and the suite's client scenarios with
# `mcp-cpp` as the client (conformance/cli_client.sh), OAuth included; and the TypeScript SDK's
# 2.x client, both eras, against the demo server. Label `conformance`; they need network access
# the first time (npm).
if(MCP_BUILD_EXAMPLES)
  set(MCP_CONFORMANCE_RUN ${CMAKE_CURRENT_SOURCE_DIR}/conformance/run_suite.sh server
      --server $<TARGET_FILE:everything_server>)
  # 0.1.16: the 30 scenarios of its active suite, then two pending ones by name.
  add_test(NAME mcp_conformance_server_0_1_16
    COMMAND ${MCP_CONFORMANCE_RUN} --version 0.1.16 --suite active
            --scenario json-schema-2020-12 --scenario server-sse-polling --expect 32
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-0.1.16)
  # 0.2.0-alpha.12: the 31 scenarios of its active suite.
  add_test(NAME mcp_conformance_server_0_2_0_alpha
    COMMAND ${MCP_CONFORMANCE_RUN} --version 0.2.0-alpha.12 --suite active --expect 31
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-alpha)
  # The same server over stdio behind `mcp-cpp bridge --listen`: the suite reaches it through
  # the bridge, one child process per session.
  add_test(NAME mcp_conformance_server_bridged_0_1_16
    COMMAND ${MCP_CONFORMANCE_RUN} --bridge $<TARGET_FILE:mcp-cpp> --version 0.1.16
            --suite active --expect 30
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-bridged-0.1.16)
  add_test(NAME mcp_conformance_server_bridged_0_2_0_alpha
    COMMAND ${MCP_CONFORMANCE_RUN} --bridge $<TARGET_FILE:mcp-cpp> --version 0.2.0-alpha.12
            --suite active --expect 31
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-bridged-alpha)
  # The frozen requirement sets of both revisions, each at its own wire, one after the other
  # against the same running server: 2025-11-25 (30 scored + 3 not scored: sessions, SSE) and
  # 2026-07-28 (37 scored + 13 not scored: stateless requests, input rounds, listen, the ten
  # tasks-extension scenarios; its tasks-status-notifications placeholder is reported SKIP).
  add_test(NAME mcp_conformance_server_requirements
    COMMAND ${MCP_CONFORMANCE_RUN} --version 0.2.0-alpha.12 --requirements 2025-11-25
            --requirements 2026-07-28 --expect 83
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-requirements)
  # The same fixtures mounted at /mcp in an application's own Beast server (examples/
  # embedded_app.cpp: an http_endpoint and mcp::async_write_response on the application's loop).
  add_test(NAME mcp_conformance_server_embedded_0_2_0_alpha
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/run_suite.sh server
            --server $<TARGET_FILE:embedded_app> --version 0.2.0-alpha.12 --suite active
            --requirements 2026-07-28 --expect 81
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-embedded-alpha)
  set_tests_properties(mcp_conformance_server_0_1_16 mcp_conformance_server_0_2_0_alpha
    mcp_conformance_server_bridged_0_1_16 mcp_conformance_server_bridged_0_2_0_alpha
    mcp_conformance_server_embedded_0_2_0_alpha mcp_conformance_server_requirements
    PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200 LABELS conformance)

  # The client side: the 2025-11-25 client scenarios with mcp-cpp as the client (18 on 0.1.16, 19
  # on 0.2.0-alpha.12), the 14 authorization scenarios among them (discovery variants, client ID metadata documents, scope selection and
  # step-up, the retry limit, token endpoint authentication, pre-registered clients).
  set(_client_scenarios initialize tools_call sse-retry elicitation-sep1034-client-defaults)
  foreach(_s metadata-default metadata-var1 metadata-var2 metadata-var3 basic-cimd
             scope-from-www-authenticate scope-from-scopes-supported scope-omitted-when-undefined
             scope-step-up scope-retry-limit token-endpoint-auth-basic token-endpoint-auth-post
             token-endpoint-auth-none pre-registration)
    list(APPEND _client_scenarios auth/${_s})
  endforeach()
  foreach(_v 0.1.16 0.2.0-alpha.12)
    set(_scenarios ${_client_scenarios})
    if(_v STREQUAL "0.2.0-alpha.12")
      list(APPEND _scenarios json-schema-2020-12-preservation)
    endif()
    list(TRANSFORM _scenarios PREPEND "--scenario;" OUTPUT_VARIABLE _client_args)
    list(LENGTH _scenarios _client_count)
    string(MAKE_C_IDENTIFIER "v${_v}" _id)
    add_test(NAME mcp_conformance_client_${_id}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/run_suite.sh client --version ${_v}
              --command "${CMAKE_CURRENT_SOURCE_DIR}/conformance/cli_client.sh $<TARGET_FILE:mcp-cpp>"
              ${_client_args} --expect ${_client_count}
              --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-client-${_v})
    set_tests_properties(mcp_conformance_client_${_id}
      PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200 LABELS conformance)
  endforeach()

  # The frozen client requirement sets of both revisions, each at its own wire, mcp-cpp as the
  # client (--protocol auto against 2026-07-28's mocks): 2025-11-25 (18 scored + 7 not scored)
  # and 2026-07-28 (32 scored: per-request _meta and the version retry, input rounds, the
  # standard and Mcp-Param-* headers, tools with invalid x-mcp-header left out, a network $ref
  # not fetched, and the authorization rules; + 7 not scored: the six extension grants and
  # json-schema-2020-12-preservation).
  add_test(NAME mcp_conformance_client_requirements
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/run_suite.sh client --version 0.2.0-alpha.12
            --command "${CMAKE_CURRENT_SOURCE_DIR}/conformance/cli_client.sh $<TARGET_FILE:mcp-cpp>"
            --requirements 2025-11-25 --requirements 2026-07-28 --expect 64
            --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-client-requirements)
  set_tests_properties(mcp_conformance_client_requirements
    PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200 LABELS conformance)

  # The authorization rules of 2026-07-28, on the 2025-11-25 wire (their scenarios are on the
  # 2026-07-28 timeline only, hence --force): RFC 9207 `iss` in six variants, offline_access
  # asked or not, an authorization server that changes (a new registration, nothing of the old
  # one), a resource metadata document for another resource, metadata naming another issuer.
  # And the extension scenarios (not scored): client credentials with a secret and with a
  # private key JWT, a JWT bearer assertion (workload identity), enterprise-managed
  # authorization (ID-JAG), DPoP with and without nonces.
  set(_auth_2026 iss-supported iss-not-advertised iss-supported-missing iss-wrong-issuer
                 iss-unexpected iss-normalized offline-access-scope offline-access-not-supported
                 authorization-server-migration resource-mismatch metadata-issuer-mismatch)
  set(_auth_extensions client-credentials-basic client-credentials-jwt wif-jwt-bearer
                       enterprise-managed-authorization dpop dpop-nonce)
  foreach(_set 2026_rules extensions)
    if(_set STREQUAL "2026_rules")
      set(_scenarios ${_auth_2026})
    else()
      set(_scenarios ${_auth_extensions})
    endif()
    list(TRANSFORM _scenarios PREPEND "--scenario;auth/" OUTPUT_VARIABLE _client_args)
    list(LENGTH _scenarios _client_count)
    add_test(NAME mcp_conformance_client_auth_${_set}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/run_suite.sh client --version 0.2.0-alpha.12
              --command "${CMAKE_CURRENT_SOURCE_DIR}/conformance/cli_client.sh $<TARGET_FILE:mcp-cpp>"
              --spec-version 2025-11-25 --force ${_client_args} --expect ${_client_count}
              --results ${CMAKE_CURRENT_BINARY_DIR}/conformance-client-auth-${_set})
    set_tests_properties(mcp_conformance_client_auth_${_set}
      PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200 LABELS conformance)
  endforeach()

  add_test(NAME mcp_conformance_ts_sdk_interop
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/ts_sdk_interop.sh
            $<TARGET_FILE:everything_server> $<TARGET_FILE:mcp-cpp>)
  set_tests_properties(mcp_conformance_ts_sdk_interop PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS "conformance;interop")

  # The TypeScript SDK's 2.x client (2.4.0, pinned in conformance/pins/ts-sdk-2.4.0), which
  # speaks both eras, against the demo server over stdio and HTTP: auto and pinned negotiation
  # must reach 2026-07-28, legacy 2025-11-25; elicitation and sampling through input_required
  # rounds (2026-07-28) and server-to-client requests (2025-11-25).
  add_test(NAME mcp_conformance_ts_sdk2_interop
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/conformance/ts_sdk2_interop.sh
            $<TARGET_FILE:demo_server>)
  set_tests_properties(mcp_conformance_ts_sdk2_interop PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS "conformance;interop")
endif()
