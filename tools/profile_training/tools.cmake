# The training driver of MCP_PROFILE_FEEDBACK (cmake/mcp_profile.cmake). In the instrumented
# training tree, mcp_profile_train runs it against demo_server with a fresh profile directory,
# then writes the stamp the optimised tree's objects depend on. With the tests, it is a test of
# its own (every answer of the training mix checked against the demo server), so that a change
# to the demo or the protocol that breaks the training shows in CI, not in a release build.
add_executable(mcp_profile_driver ${CMAKE_CURRENT_LIST_DIR}/driver.cpp)
mcp_target_defaults(mcp_profile_driver)
target_link_libraries(mcp_profile_driver PRIVATE Threads::Threads)
if(MCP_PROFILE_GENERATE)
  get_filename_component(_mcp_training_dir ${MCP_PROFILE_GENERATE} DIRECTORY)
  add_custom_command(
    OUTPUT ${_mcp_training_dir}/profile.stamp
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${MCP_PROFILE_GENERATE}
    COMMAND mcp_profile_driver $<TARGET_FILE:demo_server>
    COMMAND ${CMAKE_COMMAND} -E touch ${_mcp_training_dir}/profile.stamp
    DEPENDS mcp_profile_driver demo_server
    COMMENT "Profile feedback: training run of demo_server (stdio, HTTP, tasks)"
    VERBATIM USES_TERMINAL)
  add_custom_target(mcp_profile_train DEPENDS ${_mcp_training_dir}/profile.stamp)
endif()
if(MCP_BUILD_TESTS)
  add_test(NAME profile_training_mix COMMAND mcp_profile_driver $<TARGET_FILE:demo_server>)
  set_tests_properties(profile_training_mix PROPERTIES TIMEOUT 300 LABELS tools)
endif()
