# The bearer token verifier (mcp::auth): a JWT checked per request, and remembered.
find_package(OpenSSL 3 REQUIRED)
mcp_add_bench(mcp_auth_bench auth/jwt_bench.cpp)
target_link_libraries(mcp_auth_bench PRIVATE mcp::auth OpenSSL::Crypto benchmark::benchmark_main)
target_include_directories(mcp_auth_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests
                                                  ${PROJECT_SOURCE_DIR}/src)
