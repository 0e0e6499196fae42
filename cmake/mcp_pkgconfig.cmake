# A pkg-config file per library (mcp-json.pc, mcp.pc, mcp-sqlite.pc, mcp-http.pc, mcp-auth.pc,
# mcp-observe.pc, mcp-redis.pc), for builds without CMake:
#
#   c++ -std=c++20 server.cpp $(pkg-config --cflags --libs mcp) -o server
#
# `Libs` is what a program linked to the shared libraries needs; `pkg-config --static` adds
# `Libs.private`, what the static libraries link. The system libraries behind the private
# dependencies (SQLite, OpenSSL) are named in Libs.private, not Requires.private: pkg-config reads
# Requires.private for --cflags as well, so it would make libsqlite3-dev and libssl-dev necessary
# for every build, when only a static link needs them. Boost ships no .pc files. Our own libraries
# that only a static link needs (mcp-observe's mcp-http) are in Requires.private: they are in the
# same package.
#
# `prefix` is written at install time (CMAKE_INSTALL_PREFIX then: /usr in the Debian packages).

# _mcp_pkgconfig(<file> <library> <description> REQUIRES <module>... [REQUIRES_PRIVATE <module>...]
#                PRIVATE <flag>...)
function(_mcp_pkgconfig file library description)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "" "REQUIRES;REQUIRES_PRIVATE;PRIVATE")
  list(JOIN arg_REQUIRES ", " requires)
  list(JOIN arg_REQUIRES_PRIVATE ", " requires_private)
  list(JOIN arg_PRIVATE " " private)
  set(in ${PROJECT_BINARY_DIR}/pkgconfig/${file}.pc.in)
  set(out ${PROJECT_BINARY_DIR}/pkgconfig/${file}.pc)
  set(MCP_PC_PREFIX "@MCP_PC_PREFIX@")  # kept for the install step
  file(CONFIGURE OUTPUT ${in} @ONLY CONTENT [[prefix=@MCP_PC_PREFIX@
libdir=${prefix}/@CMAKE_INSTALL_LIBDIR@
includedir=${prefix}/@CMAKE_INSTALL_INCLUDEDIR@

Name: @file@
Description: @description@
Version: @PROJECT_VERSION@
Requires: @requires@
Requires.private: @requires_private@
Libs: -L${libdir} -l@library@
Libs.private: @private@
Cflags: -I${includedir}
]])
  install(CODE "set(MCP_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    configure_file(\"${in}\" \"${out}\" @ONLY)" COMPONENT dev)
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
endfunction()

_mcp_pkgconfig(mcp-json mcp_json "mcp-cpp: JSON values, reflection, the JSON Schema validator"
               PRIVATE -lboost_url)
_mcp_pkgconfig(mcp mcp "mcp-cpp: C++20 SDK for the Model Context Protocol (stdio, in-memory)"
               REQUIRES mcp-json PRIVATE -lboost_url -lcrypto)
_mcp_pkgconfig(mcp-sqlite mcp_sqlite "mcp-cpp: the SQLite task store (make_sqlite_task_store)"
               REQUIRES mcp PRIVATE -lsqlite3)
_mcp_pkgconfig(mcp-http mcp_http "mcp-cpp: Streamable HTTP server and client (TLS with OpenSSL)"
               REQUIRES mcp PRIVATE -lboost_url -lssl -lcrypto)
_mcp_pkgconfig(mcp-auth mcp_auth "mcp-cpp: OAuth 2.1 for servers (JWT, introspection) and clients"
               REQUIRES mcp-http PRIVATE -lboost_url -lssl -lcrypto)
_mcp_pkgconfig(mcp-observe mcp_observe "mcp-cpp: metrics, tracing, OTLP export, the /metrics endpoint"
               REQUIRES mcp REQUIRES_PRIVATE mcp-http)
if(TARGET mcp::redis)
  _mcp_pkgconfig(mcp-redis mcp_redis "mcp-cpp: the Redis task store and SSE event store (hiredis)"
                 REQUIRES mcp-http PRIVATE -lhiredis)
endif()
