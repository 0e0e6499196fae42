include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS mcp_json mcp mcp_http mcp_auth mcp_observe EXPORT mcp-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/mcp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT mcp-targets NAMESPACE mcp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mcp)
export(EXPORT mcp-targets NAMESPACE mcp:: FILE ${PROJECT_BINARY_DIR}/mcp-targets.cmake)

configure_package_config_file(cmake/mcp-config.cmake.in
  ${PROJECT_BINARY_DIR}/mcp-config.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mcp)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mcp-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mcp-config.cmake ${PROJECT_BINARY_DIR}/mcp-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mcp)
