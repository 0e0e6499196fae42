# mcp-cpp: the command-line tool (tools/cli). Subcommands live in their own files.
find_package(CLI11 CONFIG REQUIRED)
# The parts of `mcp-cpp tools` below the command line (tools_cli.hpp), shared with their tests.
add_library(mcp_cli_parts STATIC cli/connect.cpp cli/args.cpp cli/elicit.cpp cli/oauth_options.cpp
                                 cli/render.cpp)
target_link_libraries(mcp_cli_parts PUBLIC mcp::mcp mcp::http mcp::auth PRIVATE mcp::observe CLI11::CLI11)
target_include_directories(mcp_cli_parts PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/cli)
mcp_target_defaults(mcp_cli_parts)
add_executable(mcp-cpp cli/main.cpp cli/auth_command.cpp cli/bridge_command.cpp cli/bridge_listen.cpp
                       cli/resources_command.cpp
                       cli/inspect_command.cpp cli/schema_command.cpp cli/tasks_command.cpp
                       cli/tools_command.cpp cli/watch_command.cpp)
target_link_libraries(mcp-cpp PRIVATE mcp_cli_parts CLI11::CLI11)
# The bridge mirrors 2026-07-28 requests into headers as the client does (src/param_headers.hpp).
target_include_directories(mcp-cpp PRIVATE ${PROJECT_SOURCE_DIR}/src)
mcp_target_defaults(mcp-cpp)

if(MCP_BUILD_TESTS)
  set(_cli_data ${CMAKE_CURRENT_SOURCE_DIR}/cli/testdata)
  function(mcp_cli_test name code regex)
    add_test(NAME cli_${name}
             COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:mcp-cpp> "-DARGS=${ARGN}"
                     -DEXPECT_CODE=${code} "-DEXPECT_OUTPUT=${regex}"
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.cmake)
  endfunction()
  mcp_cli_test(schema_validate_valid 0 "valid.json: valid"
               schema validate ${_cli_data}/schema.json ${_cli_data}/valid.json)
  mcp_cli_test(schema_validate_invalid 1
               "invalid.json: invalid\n  /days: 17 is greater than the maximum 16  \\[schema /properties/days/maximum\\]"
               schema validate ${_cli_data}/schema.json ${_cli_data}/invalid.json)
  mcp_cli_test(schema_validate_mixed 1 "valid.json: valid.*invalid.json: invalid"
               schema validate ${_cli_data}/schema.json ${_cli_data}/valid.json
               ${_cli_data}/invalid.json)
  mcp_cli_test(schema_validate_bad_schema 2 "invalid schema at /type"
               schema validate ${_cli_data}/bad-schema.json ${_cli_data}/valid.json)
  mcp_cli_test(schema_validate_usage 2 "INSTANCE_FILE"
               schema validate ${_cli_data}/schema.json)

  # `mcp-cpp tools` against no server or a command that does not exist.
  mcp_cli_test(tools_no_server 2 "no server given: add -- CMD ARGS" tools list)
  mcp_cli_test(tools_missing_command 2
               "mcp-cpp: cannot run /nonexistent/mcp-server: No such file or directory"
               tools list -- /nonexistent/mcp-server)
  mcp_cli_test(tools_server_exits 2
               "the server exited before answering initialize \\(exit status 4\\)"
               tools list -- sh -c "echo not-json && exit 4")
  # A result that breaks the tool's own outputSchema is refused, not shown.
  mcp_cli_test(tools_call_bad_output 2
               "structuredContent of tool count does not match its outputSchema: /n: \"many\" is not of type integer"
               tools call count -- sh ${_cli_data}/lying_server.sh)
  mcp_cli_test(tools_server_silent 2 "initialize got no answer within 300 ms"
               tools list --timeout 0.3 -- sleep 30)
endif()

if(MCP_BUILD_TESTS AND MCP_BUILD_EXAMPLES)
  # mcp_cli_demo_test(name code regex ARGS args... [DEFS -Dk=v...]): `mcp-cpp ARGS -- demo_server`
  # in an empty directory of its own, stdin not a terminal (see test_cli.cmake for DEFS).
  function(mcp_cli_demo_test name code regex)
    cmake_parse_arguments(PARSE_ARGV 3 T "" "" "ARGS;DEFS")
    add_test(NAME cli_${name}
             COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:mcp-cpp>
                     "-DARGS=${T_ARGS};--;$<TARGET_FILE:demo_server>;--task-store;:memory:"
                     -DEXPECT_CODE=${code} "-DEXPECT_OUTPUT=${regex}"
                     -DWORKDIR=${CMAKE_CURRENT_BINARY_DIR}/cli_tests/${name} ${T_DEFS}
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.cmake)
  endfunction()
  mcp_cli_demo_test(tools_list 0
                    "echo +read-only +- +Returns.*forecast +read-only, open-world.*unlock_admin +destructive, idempotent, open-world.*slow_task +read-only, open-world +optional.*must_task .* required"
                    ARGS tools list)
  # --protocol: the demo serves both eras; auto finds 2026-07-28, legacy initializes.
  mcp_cli_demo_test(protocol_auto 0 "\\(protocol 2026-07-28\\).*echo +read-only"
                    ARGS tools list --protocol auto)
  mcp_cli_demo_test(protocol_legacy 0 "\\(protocol 2025-11-25\\)" ARGS tools list --protocol legacy)
  mcp_cli_demo_test(protocol_pinned_call 0 "^hi" ARGS tools call echo text=hi --protocol 2026-07-28)
  # `watch`: the policy's changes (every two seconds) reach the same output in both eras (the
  # listen in 2026-07-28, where the demo also tells a new listen of its policy's first load).
  mcp_cli_test(watch_auto 0 "list_changed.*\n.*method.:.notifications/tools/list_changed"
               watch --count 2 --for 20 --protocol auto
               -- sh ${_cli_data}/changing_server.sh $<TARGET_FILE:demo_server>)
  mcp_cli_test(watch_legacy 0 "method.:.notifications/tools/list_changed"
               watch --count 1 --for 20 --protocol legacy
               -- sh ${_cli_data}/changing_server.sh $<TARGET_FILE:demo_server>)
  mcp_cli_demo_test(protocol_unknown 2 "not auto, legacy or a protocol revision"
                    ARGS tools list --protocol 2027-01-01)
  mcp_cli_demo_test(tools_list_json 0 "" ARGS tools list --json
                    DEFS -DJSON_MEMBER=tools\;1\;name -DJSON_REGEX=^forecast$)
  mcp_cli_demo_test(tools_describe 0
                    "forecast - Weather forecast.*annotations \\(hints from the server, not guarantees\\): read-only, open-world.*city +string +required +City name.*days +integer +optional +Days ahead +\\[default 3; range 1\\.\\.16\\].*unit +string +optional .*one of \"metric\", \"imperial\""
                    ARGS tools describe forecast)
  mcp_cli_demo_test(tools_describe_unknown 2 "no tool named 'nope'" ARGS tools describe nope)
  # days=2 is sent as the integer 2 (a string would fail the check before sending).
  mcp_cli_demo_test(tools_call_typed 0 "structured content:.*\"unit\": \"celsius\".*\"day\": 2,"
                    ARGS tools call forecast city=Oslo days=2 --audit audit.jsonl
                    DEFS -DAUDIT_FILE=audit.jsonl -DAUDIT_OUTCOME=ok)
  mcp_cli_demo_test(tools_call_bad_argument 2
                    "mcp-cpp: invalid arguments for forecast: /days: 99 is greater than the maximum 16"
                    ARGS tools call forecast city=Oslo days=99 --audit audit.jsonl
                    DEFS -DAUDIT_FILE=audit.jsonl -DAUDIT_OUTCOME=invalid_arguments)
  mcp_cli_demo_test(tools_call_args_json 0 "\"day\": 1,"
                    ARGS tools call forecast --args {"city":"Oslo","days":1})
  mcp_cli_demo_test(tools_call_tool_error 1 "fail was asked to fail: because.*fail reported an error"
                    ARGS tools call fail reason=because --audit audit.jsonl
                    DEFS -DAUDIT_FILE=audit.jsonl -DAUDIT_OUTCOME=tool_error)
  mcp_cli_demo_test(tools_call_needs_confirmation 2
                    "unlock_admin is not annotated read-only; not calling it without confirmation \\(stdin is not a terminal: pass --yes"
                    ARGS tools call unlock_admin --audit audit.jsonl
                    DEFS -DAUDIT_FILE=audit.jsonl -DAUDIT_OUTCOME=denied)
  mcp_cli_demo_test(tools_call_yes 0 "admin.stats is now enabled" ARGS tools call unlock_admin --yes)
  mcp_cli_demo_test(tools_call_json 0 "" ARGS tools call echo text=hi --json
                    DEFS -DJSON_MEMBER=content\;0\;text -DJSON_REGEX=^hi$)
  mcp_cli_demo_test(tools_call_image 0 "\\[image saved to ./make_image-1.png \\(image/png, 70 bytes\\)\\]"
                    ARGS tools call make_image DEFS -DEXPECT_FILE=make_image-1.png)
  mcp_cli_demo_test(tools_call_progress 0 "\"completed\": 3.*progress: 1/3 step 1.*progress: 3/3 step 3"
                    ARGS tools call slow_count steps=3 step_ms=1)
  mcp_cli_demo_test(tools_call_timeout 2
                    "no answer from the server in time \\(tools/call got no answer within 300 ms;"
                    ARGS tools call slow_count steps=2 step_ms=1000 --timeout 0.3)
  # Progress every 100 ms keeps a call with --timeout 0.6 going for its whole second.
  mcp_cli_demo_test(tools_call_progress_resets_timeout 0 "\"completed\": 10"
                    ARGS tools call slow_count steps=10 step_ms=100 --timeout 0.6)
  mcp_cli_demo_test(tools_call_max_time 2 "within 400 ms \\(its hard maximum\\)"
                    ARGS tools call slow_count steps=10 step_ms=100 --max-time 0.4)
  # A tool that runs only as a task runs as one; --detach prints the task's id and leaves it.
  mcp_cli_demo_test(tools_call_task_only 0 "^hi\n.*mcp-cpp: task [0-9a-f]+ (working|completed)"
                    ARGS tools call must_task text=hi)
  mcp_cli_demo_test(tools_call_task_detached 0 "^[0-9a-f]+\n.*mcp-cpp: task [0-9a-f]+ working"
                    ARGS tools call slow_task --detach)
  mcp_cli_demo_test(tools_call_task_forbidden 2 "echo does not run as a task"
                    ARGS tools call echo text=x --task)
  mcp_cli_demo_test(tools_call_unknown 2 "the server has no tool named 'nope'"
                    ARGS tools call nope x=1 --audit audit.jsonl
                    DEFS -DAUDIT_FILE=audit.jsonl -DAUDIT_OUTCOME=protocol_error)
  mcp_cli_demo_test(tools_call_usage 2 "expected KEY=VALUE, got 'city'" ARGS tools call forecast city)
  # resources and prompts against the conformance example server (it has both), over stdio.
  set(_everything -- $<TARGET_FILE:everything_server>)
  mcp_cli_test(resources_list 0
               "test://static-text +text/plain +Static text +A static text resource.*templates:.*test://template/\\{id\\}/data"
               resources list ${_everything})
  mcp_cli_test(resources_read_text 0 "resource test://static-text\\]\nThis is the content"
               resources read test://static-text ${_everything})
  mcp_cli_test(resources_read_unknown 2 "resources/read test://nope failed: Resource not found"
               resources read test://nope ${_everything})
  mcp_cli_test(prompts_list 0 "test_prompt_with_arguments +\\(arg1 arg2\\) +A prompt with two"
               prompts list ${_everything})
  mcp_cli_test(prompts_get 0 "--- user\nPrompt with arguments: arg1='a b', arg2='c'"
               prompts get test_prompt_with_arguments "arg1=a b" arg2=c ${_everything})
  mcp_cli_test(prompts_get_missing_argument 2 "Missing required argument \"arg2\""
               prompts get test_prompt_with_arguments arg1=a ${_everything})
  # A server no one here wrote: the reference server-everything (npm, pinned), stdio and HTTP.
  add_test(NAME mcp_interop_server_everything
           COMMAND ${PROJECT_SOURCE_DIR}/tests/interop/server_everything.sh $<TARGET_FILE:mcp-cpp>)
  set_tests_properties(mcp_interop_server_everything
                       PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS interop)
  # The TypeScript SDK's reference server (../shared/bench; SKIPPED without it), both SDK lines:
  # stdio, HTTP stateful and stateless, and through both bridges.
  add_test(NAME mcp_interop_ts_ref_server
           COMMAND ${PROJECT_SOURCE_DIR}/tests/interop/ts_ref_server.sh $<TARGET_FILE:mcp-cpp>)
  set_tests_properties(mcp_interop_ts_ref_server
                       PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS interop)
  foreach(mode interrupt refuse prompt http tasks bridge listen inspect inspect_tmux)
    add_test(NAME cli_tools_${mode}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli_live.sh ${mode}
                     $<TARGET_FILE:mcp-cpp> $<TARGET_FILE:demo_server>)
    set_tests_properties(cli_tools_${mode} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)
  endforeach()
  add_test(NAME cli_tools_sampling
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli_live.sh sampling
                   $<TARGET_FILE:mcp-cpp> $<TARGET_FILE:everything_server>)
  set_tests_properties(cli_tools_sampling PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)
endif()
