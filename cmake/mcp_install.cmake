# Install rules. Component `dev`: headers, static and shared libraries (json, mcp, sqlite, http,
# auth, observe, and redis where hiredis was found), the CMake package and a pkg-config file per
# library; component `cli`: the mcp-cpp command and the demo server. The Debian packages are made
# of these two (cmake/mcp_package.cmake).
include(CMakePackageConfigHelpers)
set(MCP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mcp)

if(TARGET mcp::redis)
  install(DIRECTORY include/mcp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
else()  # no hiredis: no mcp::redis, and no header of it
  install(DIRECTORY include/mcp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
          PATTERN redis.hpp EXCLUDE)
endif()

# One export set per component and flavour (mcp-<component>-<static|shared>-targets.cmake), so
# that mcp-config.cmake loads, and looks for the dependencies of, only the components asked for.
# Everything the install rules take from the build: `cmake --build --target mcp_installed`
# before `cmake --install` or cpack (neither builds anything itself).
add_custom_target(mcp_installed)

set(_mcp_flavours static)
if(MCP_BUILD_SHARED)
  list(APPEND _mcp_flavours shared)
endif()
# The components, in the order their targets files load (each after what it needs).
set(MCP_COMPONENTS json mcp sqlite http auth observe)
if(TARGET mcp::redis)
  list(APPEND MCP_COMPONENTS redis)
endif()
foreach(_component IN LISTS MCP_COMPONENTS)
  get_target_property(_lib mcp::${_component} ALIASED_TARGET)
  foreach(_flavour IN LISTS _mcp_flavours)
    set(_target ${_lib})
    if(_flavour STREQUAL "shared")
      set(_target ${_lib}_shared)
    endif()
    add_dependencies(mcp_installed ${_target})
    set(_export mcp-${_component}-${_flavour})
    install(TARGETS ${_target} EXPORT ${_export}
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev NAMELINK_COMPONENT dev)
    install(EXPORT ${_export} NAMESPACE mcp:: DESTINATION ${MCP_CMAKE_DIR}
            FILE ${_export}-targets.cmake COMPONENT dev)
    export(EXPORT ${_export} NAMESPACE mcp:: FILE ${PROJECT_BINARY_DIR}/${_export}-targets.cmake)
  endforeach()
endforeach()

# Compatibility: versions with the same SOVERSION are compatible (a newer one may be found for
# an older request): the same minor version while the major is 0, the same major from 1.0 on.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_mcp_compatibility SameMinorVersion)
else()
  set(_mcp_compatibility SameMajorVersion)
endif()
# Beside mcp-config.cmake in the build tree too, which includes it.
configure_file(cmake/mcp-precompile-headers.cmake ${PROJECT_BINARY_DIR}/mcp-precompile-headers.cmake
               COPYONLY)
configure_package_config_file(cmake/mcp-config.cmake.in ${PROJECT_BINARY_DIR}/mcp-config.cmake
                              INSTALL_DESTINATION ${MCP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mcp-config-version.cmake
                                 COMPATIBILITY ${_mcp_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/mcp-config.cmake ${PROJECT_BINARY_DIR}/mcp-config-version.cmake
              ${PROJECT_BINARY_DIR}/mcp-precompile-headers.cmake
        DESTINATION ${MCP_CMAKE_DIR} COMPONENT dev)

include(cmake/mcp_pkgconfig.cmake)

if(TARGET mcp-cpp AND TARGET demo_server)
  add_dependencies(mcp_installed mcp-cpp demo_server)
  install(TARGETS mcp-cpp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
  # The demo server under a name that says whose it is; stripped like mcp-cpp when asked to.
  set(_demo ${CMAKE_INSTALL_BINDIR}/mcp-cpp-demo-server)
  install(PROGRAMS $<TARGET_FILE:demo_server> DESTINATION ${CMAKE_INSTALL_BINDIR}
          RENAME mcp-cpp-demo-server COMPONENT cli)
  install(CODE "
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND \"${CMAKE_STRIP}\" \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${_demo}\"
                      COMMAND_ERROR_IS_FATAL ANY)
    endif()" COMPONENT cli)
endif()

include(cmake/mcp_package.cmake)
