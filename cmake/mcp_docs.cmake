# `docs`: the API reference of include/mcp with Doxygen (docs/Doxyfile; warnings are errors) into
# <build>/docs/html. Not part of `all`; scripts/docs.sh does the same without a build tree.
find_package(Doxygen QUIET)
if(DOXYGEN_FOUND)
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/docs
    COMMAND ${CMAKE_COMMAND} -E env MCP_SOURCE_DIR=${PROJECT_SOURCE_DIR}
            MCP_DOCS_OUT=${PROJECT_BINARY_DIR}/docs MCP_VERSION=${PROJECT_VERSION}
            ${DOXYGEN_EXECUTABLE} ${PROJECT_SOURCE_DIR}/docs/Doxyfile
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Doxygen: API reference in ${PROJECT_BINARY_DIR}/docs/html"
    VERBATIM)
endif()
