# Profile feedback (MCP_PROFILE_FEEDBACK, ON in the release preset): the build trains itself.
#
# Configuring with the option adds one target, mcp_profile_training, that every target of ours
# waits for. It configures a second tree of this source (<build>/profile-training/build: Release,
# demo_server and the training driver only) instrumented with -fprofile-generate, builds it,
# and runs tools/profile_training: a fixed mix of calls against that demo_server (stdio calls
# and tasks, some of the calls with metrics and exported spans, every one or 10 % of the new
# traces; Streamable HTTP 2025-11-25 stateful and stateless, 2026-07-28), on 127.0.0.1 only.
# The counts land in <build>/profile-training/profile; this tree then compiles with
# -fprofile-use, so GCC lays out each function's hot path together and moves cold blocks away
# (bench/RESULTS.md, "Profile feedback in the release preset").
#
# Reproducible: the training input is fixed, and the option OFF is the plain build. (Two trained
# builds may still differ slightly: the HTTP server's threads share the work as they are
# scheduled, which moves some counts.) The profile is trained once per build tree: after an edit, a function whose code changed is
# compiled without its profile (-Wno-coverage-mismatch); to train again, delete
# <build>/profile-training and build (every object depending on the profile is compiled anew).
#
# MCP_PROFILE_GENERATE (internal) is set only in the training tree: the directory the
# instrumented programs write their counts into.
option(MCP_PROFILE_FEEDBACK
       "Release build trained on a fixed mix of calls (GCC -fprofile-use; adds a training build)"
       OFF)
set(MCP_PROFILE_GENERATE "" CACHE PATH "internal: the training tree's profile directory")
mark_as_advanced(MCP_PROFILE_GENERATE)

set(MCP_PROFILE_COMPILE_FLAGS "")
set(MCP_PROFILE_LINK_FLAGS "")
set(MCP_PROFILE_STAMP "")

if(MCP_PROFILE_GENERATE)
  # Object files are named relative to the build directory (-fprofile-prefix-path), so that the
  # counts of <training tree>/src/…/x.cpp.o are found by <this tree>/src/…/x.cpp.o.
  # Atomic counters: the HTTP server counts on several threads.
  set(MCP_PROFILE_COMPILE_FLAGS -fprofile-generate=${MCP_PROFILE_GENERATE}
                                -fprofile-prefix-path=${CMAKE_BINARY_DIR} -fprofile-update=atomic)
  set(MCP_PROFILE_LINK_FLAGS -fprofile-generate=${MCP_PROFILE_GENERATE})
elseif(MCP_PROFILE_FEEDBACK AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(WARNING "MCP_PROFILE_FEEDBACK needs GCC (its .gcda profiles): building without it")
elseif(MCP_PROFILE_FEEDBACK)
  if(MCP_SANITIZE OR MCP_FUZZ)
    message(FATAL_ERROR "MCP_PROFILE_FEEDBACK does not go with MCP_SANITIZE or MCP_FUZZ")
  endif()
  if(NOT MCP_BUILD_EXAMPLES)
    message(FATAL_ERROR "MCP_PROFILE_FEEDBACK trains on the demo server: MCP_BUILD_EXAMPLES=ON")
  endif()
  set(_train ${CMAKE_BINARY_DIR}/profile-training)
  set(_profile ${_train}/profile)
  set(MCP_PROFILE_STAMP ${_train}/profile.stamp)
  # -fprofile-partial-training: code the training never ran is optimised as usual, not for
  # size. -Wno-missing-profile: programs the training does not run (tools, other examples).
  # -Wno-restrict -Wno-stringop-overflow: with the profile's inlining, g++ 12 reports overlaps
  # and overflows on paths its range analysis cannot rule out, inside libstdc++'s
  # `"literal" + std::string&&` (src/auth/jws.cpp, src/redis/event_store.cpp) and Boost.JSON's
  # short-string terminator (src/boost_json.cpp, s_.buf[n] with n <= sbo_chars_); the same code
  # compiles without them in every other configuration, where they stay errors (preset ci).
  set(MCP_PROFILE_COMPILE_FLAGS -fprofile-use=${_profile} -fprofile-prefix-path=${CMAKE_BINARY_DIR}
                                -fprofile-partial-training -Wno-missing-profile
                                -Wno-coverage-mismatch -Wno-restrict -Wno-stringop-overflow)
  set(_flag_args "")
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" _type)
    set(_flag_args "-DCMAKE_CXX_FLAGS_${_type}=${CMAKE_CXX_FLAGS_${_type}}")
  endif()
  # With make, the training tree's build shares this build's job slots (-jN).
  if(CMAKE_GENERATOR MATCHES "Makefiles")
    set(_build_command "$(MAKE)" mcp_profile_train)
  else()
    set(_build_command ${CMAKE_COMMAND} --build <BINARY_DIR> --target mcp_profile_train)
  endif()
  # No compiler launcher in the training tree: ccache does not cache -fprofile-prefix-path
  # compilations anyway, and a launcher set or unset would otherwise re-run the training.
  include(ExternalProject)
  ExternalProject_Add(mcp_profile_training
    SOURCE_DIR ${PROJECT_SOURCE_DIR}
    PREFIX ${_train}
    BINARY_DIR ${_train}/build
    CMAKE_ARGS -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE}
               -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
               "-DCMAKE_CXX_FLAGS=${CMAKE_CXX_FLAGS}" ${_flag_args}
               -DMCP_WARNINGS_AS_ERRORS=${MCP_WARNINGS_AS_ERRORS}
               -DMCP_PROFILE_FEEDBACK=OFF -DMCP_PROFILE_GENERATE=${_profile}
               -DMCP_BUILD_TESTS=OFF -DMCP_BUILD_EXAMPLES=ON -DMCP_BUILD_BENCH=OFF
               -DMCP_INSTALL=OFF -DMCP_BUILD_SHARED=OFF -DMCP_BUILD_INSTALL_TESTS=OFF
    BUILD_COMMAND ${_build_command}
    BUILD_BYPRODUCTS ${MCP_PROFILE_STAMP}
    INSTALL_COMMAND ""
    USES_TERMINAL_BUILD ON)
endif()

# mcp_profile_target(target): the profile flags on one of our targets (from mcp_target_defaults).
function(mcp_profile_target target)
  if(NOT MCP_PROFILE_COMPILE_FLAGS)
    return()
  endif()
  target_compile_options(${target} PRIVATE ${MCP_PROFILE_COMPILE_FLAGS})
  if(MCP_PROFILE_LINK_FLAGS)
    target_link_options(${target} PRIVATE ${MCP_PROFILE_LINK_FLAGS})
  endif()
  if(MCP_PROFILE_STAMP)
    add_dependencies(${target} mcp_profile_training)
    # A new profile compiles the target's sources again.
    get_target_property(all_sources ${target} SOURCES)
    set(sources "")
    foreach(source IN LISTS all_sources)
      if(NOT source MATCHES "^\\$<")  # $<TARGET_OBJECTS:…> of the static and shared libraries
        list(APPEND sources ${source})
      endif()
    endforeach()
    if(sources)
      set_property(SOURCE ${sources} TARGET_DIRECTORY ${target} APPEND
                   PROPERTY OBJECT_DEPENDS ${MCP_PROFILE_STAMP})
    endif()
  endif()
endfunction()
