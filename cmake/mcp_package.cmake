# Debian packages with CPack (scripts/package.sh builds them from a release build):
#   libmcp-cpp-dev  headers, static and shared libraries, the CMake package, pkg-config files
#                   (install component dev)
#   mcp-cpp         the mcp-cpp command and mcp-cpp-demo-server, linked to the static libraries
#                   so that they need no -dev package (install component cli)
# Dependencies are Debian package names: the -dev packages the headers include by hand, the
# shared libraries the binaries load by dpkg-shlibdeps. What only a static link of the SDK needs
# is suggested, not required (docs/packaging.md, "Debian packages").
set(MCP_PACKAGE_MAINTAINER "mcp-cpp maintainers <maintainers@mcp-cpp.invalid>"
    CACHE STRING "Maintainer field of the Debian packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mcp-cpp)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# CPack's default summary, so that each package's summary is the first line of its own
# description (CPackDeb puts any other summary above it).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_CONTACT ${MCP_PACKAGE_MAINTAINER})
# DESTDIR staging: the install step sees CMAKE_INSTALL_PREFIX=/usr (the .pc files record it).
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# cpack installs without building first (its "preinstall" step would otherwise build every
# target, tests included): scripts/package.sh builds what the packages hold, and the package test
# runs on the built ci tree. The same holds for `make install`: build, then install.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL dev)
if(TARGET mcp-cpp)
  list(APPEND CPACK_COMPONENTS_ALL cli)
endif()
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps looks here for the libraries the package itself ships (libmcp_http.so needs
# libmcp.so.SOVERSION).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
    ${PROJECT_BINARY_DIR}/src ${PROJECT_BINARY_DIR}/src/http ${PROJECT_BINARY_DIR}/src/auth
    ${PROJECT_BINARY_DIR}/src/observe ${PROJECT_BINARY_DIR}/src/redis)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libmcp-cpp-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The public headers include Boost's (JSON, Describe, Mp11, System); all are in libboost1.81-dev.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libboost1.81-dev")
# Linking the static libraries (MCP_USE_STATIC_LIBS, pkg-config --static) also needs these.
# (libmcp_redis.so's libhiredis0.14 is a Depends found by dpkg-shlibdeps.)
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS
    "libboost-url1.81-dev, libsqlite3-dev, libssl-dev, libhiredis-dev, pkgconf")
# A shlibs file, for dpkg-shlibdeps of packages built against the shared libraries.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_DEV_DESCRIPTION "C++20 SDK for the Model Context Protocol (development files)
mcp-cpp exposes C++ functions to language models as MCP tools: schemas inferred from plain
structs, every input validated, stdio and Streamable HTTP transports, a client, OAuth 2.1.
This package holds the headers, the static and shared libraries (mcp-json, mcp, mcp-sqlite,
mcp-http, mcp-auth, mcp-observe: metrics and tracing, mcp-redis: the Redis stores), the CMake
package (find_package(mcp)) and the pkg-config files.")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME mcp-cpp)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_CLI_DESCRIPTION "command-line client for Model Context Protocol servers
mcp-cpp lists, describes and calls the tools of any MCP server (a command over stdio, or a
Streamable HTTP URL, OAuth included), reads its resources and prompts, follows its tasks,
bridges stdio and HTTP, and validates JSON against a JSON Schema. mcp-cpp-demo-server is a
small MCP server to try it with.")

include(CPack)
