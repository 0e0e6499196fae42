# The guide (docs/guide/*.md): every code block in it is checked (tests/docs/guide_check.py).
# At configure time its ```cpp blocks are written to build/.../tests/guide/NAME.cpp and built
# here as programs with the project's warnings (a block that does not compile fails the build);
# ctest `docs_guide` then runs its ```sh blocks marked `run` (output compared with the ```text
# block after them), verifies the options of every other command against the programs' --help,
# parses the ```json host configurations (the Inspector's is tried with the Inspector when it is
# installed) and builds the ```cmake project against the installed build tree.
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: the guide's code blocks are not checked (docs_guide)")
  return()
endif()

file(GLOB mcp_guide_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/guide/*.md)
set(mcp_guide_dir ${CMAKE_CURRENT_BINARY_DIR}/guide)
set(mcp_guide_check ${CMAKE_CURRENT_SOURCE_DIR}/docs/guide_check.py)
file(GLOB mcp_guide_wrappers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/docs/wrappers/*.cpp)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${mcp_guide_pages}
                                                               ${mcp_guide_check}
                                                               ${mcp_guide_wrappers})
execute_process(COMMAND ${Python3_EXECUTABLE} ${mcp_guide_check} extract --out ${mcp_guide_dir}
                        ${mcp_guide_pages}
                RESULT_VARIABLE mcp_guide_rc ERROR_VARIABLE mcp_guide_err)
if(NOT mcp_guide_rc EQUAL 0)
  message(FATAL_ERROR "tests/docs/guide_check.py extract failed: ${mcp_guide_err}")
endif()

# mcp_guide_block(NAME SOURCE LIBS...): one cpp block of the guide, a program named NAME.
function(mcp_guide_block name source)
  add_executable(guide_${name} ${source})
  set_target_properties(guide_${name} PROPERTIES OUTPUT_NAME ${name}
                                                 RUNTIME_OUTPUT_DIRECTORY ${mcp_guide_dir}/bin)
  target_link_libraries(guide_${name} PRIVATE ${ARGN})
  mcp_target_defaults(guide_${name})
  set_property(GLOBAL APPEND PROPERTY mcp_guide_targets guide_${name})
endfunction()
include(${mcp_guide_dir}/blocks.cmake)

# The cmake project blocks are built against the installed tree, in a build without sanitizers.
set(mcp_guide_install "")
if(NOT MCP_SANITIZE AND MCP_INSTALL AND MCP_BUILD_SHARED)
  set(mcp_guide_install --install-build ${PROJECT_BINARY_DIR})
endif()
add_test(NAME docs_guide
  COMMAND ${Python3_EXECUTABLE} ${mcp_guide_check} check --source-dir ${PROJECT_SOURCE_DIR}
          --blocks ${mcp_guide_dir} --work ${CMAKE_CURRENT_BINARY_DIR}/guide_work
          --tool mcp-cpp=$<TARGET_FILE:mcp-cpp> --tool demo_server=$<TARGET_FILE:demo_server>
          ${mcp_guide_install} ${mcp_guide_pages})
set_tests_properties(docs_guide PROPERTIES LABELS docs TIMEOUT 900 SKIP_RETURN_CODE 77
                                           RUN_SERIAL TRUE)
