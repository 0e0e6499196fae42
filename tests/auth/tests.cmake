# mcp::auth: key sets and the JWT verifier (tokens signed here with OpenSSL), JWT signing and
# DPoP proofs, the OAuth client against mock servers (every grant), and the HTTP server as a
# protected resource over 127.0.0.1.
find_package(OpenSSL 3 REQUIRED)
mcp_add_test(mcp_auth_tests
  auth/auth_test.cpp
  auth/protected_resource_test.cpp
  auth/oauth_client_test.cpp
  auth/oauth_grants_test.cpp
  auth/oauth_parsers_test.cpp
  auth/signing_test.cpp
)
target_link_libraries(mcp_auth_tests PRIVATE mcp::auth mcp::http OpenSSL::Crypto)
target_include_directories(mcp_auth_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                  ${CMAKE_CURRENT_SOURCE_DIR}/http
                                                  ${PROJECT_SOURCE_DIR}/src)

# A fetch or an HTTP client connection whose host name lookup hangs (DNS that never answers,
# made in namespaces of the test's own) ends at its deadline. Its own main makes that world before any thread starts; where it
# cannot, it prints SKIPPED with the reason and exits 77.
add_executable(mcp_auth_silent_dns_test auth/silent_dns_test.cpp)
mcp_target_defaults(mcp_auth_silent_dns_test)
target_link_libraries(mcp_auth_silent_dns_test PRIVATE mcp::auth GTest::gtest)
target_include_directories(mcp_auth_silent_dns_test PRIVATE ${PROJECT_SOURCE_DIR}/src)
add_test(NAME mcp_auth_silent_dns COMMAND mcp_auth_silent_dns_test)
set_tests_properties(mcp_auth_silent_dns PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS auth)

if(MCP_BUILD_EXAMPLES)
  # The demo binary started as a protected resource.
  mcp_add_test(mcp_auth_demo_tests auth/demo_auth_test.cpp)
  target_link_libraries(mcp_auth_demo_tests PRIVATE mcp::auth mcp::http OpenSSL::Crypto)
  target_include_directories(mcp_auth_demo_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                         ${CMAKE_CURRENT_SOURCE_DIR}/http
                                                         ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(mcp_auth_demo_tests PRIVATE
    MCP_DEMO_SERVER="$<TARGET_FILE:demo_server>")
  add_dependencies(mcp_auth_demo_tests demo_server)
endif()

if(MCP_BUILD_EXAMPLES)
  # mcp-cpp's OAuth client against the demo server as a protected resource, with a mock
  # authorization server (Node.js) issuing the JWTs: registration, authorization through the
  # loopback redirect, token reuse, step-up and refresh.
  add_test(NAME mcp_auth_cli_oauth_e2e
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/auth/cli_oauth_e2e.sh $<TARGET_FILE:mcp-cpp>
            $<TARGET_FILE:demo_server>)
  set_tests_properties(mcp_auth_cli_oauth_e2e PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                                                         LABELS auth)
endif()
