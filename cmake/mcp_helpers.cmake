# Warnings, sanitizers and small helpers. Flags are applied PRIVATE to each of our own targets
# (mcp_target_defaults) so that they never reach consumers of the installed library.
set(MCP_WARNING_FLAGS
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Woverloaded-virtual
  -Wimplicit-fallthrough -Wconversion -Wsign-conversion -Wdouble-promotion
  # g++ 12 reports std::optional members of aggregates built with designated initializers as
  # maybe-uninitialized at -O2 (GCC bug 105593 family); the warning is unreliable there.
  $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
if(MCP_WARNINGS_AS_ERRORS)
  list(APPEND MCP_WARNING_FLAGS -Werror)
endif()
set(MCP_SANITIZE_FLAGS "")
if(MCP_SANITIZE)
  set(MCP_SANITIZE_FLAGS -fsanitize=${MCP_SANITIZE} -fno-sanitize-recover=all
                         -fno-omit-frame-pointer)
endif()
if(MCP_SANITIZE MATCHES "undefined" AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang"
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 15)
  # clang 14 cannot compile a coroutine with UBSan's function type check (-fsanitize=function
  # puts data before each part a coroutine is split into, which the backend cannot emit: "Cannot
  # represent a difference across sections", llvm/llvm-project#49689). Coroutine handlers
  # (mcp/asio.hpp) are in tests, examples and users' code alike, so that one check is left out
  # of this configuration; the rest of UBSan and ASan still apply everywhere.
  list(APPEND MCP_SANITIZE_FLAGS -fno-sanitize=function)
endif()
if(MCP_SANITIZE MATCHES "thread" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # Asio's fenced blocks use std::atomic_thread_fence, which TSan does not model; g++ says so
  # for every use. The fences only order what Asio's own locks already order.
  list(APPEND MCP_SANITIZE_FLAGS -Wno-tsan)
endif()
if(MCP_FUZZ)
  # Coverage instrumentation for libFuzzer in every target; the fuzz executables link the
  # fuzzer's main (tests/fuzz).
  list(APPEND MCP_SANITIZE_FLAGS -fsanitize=fuzzer-no-link)
endif()

# Code generation for the call path (measured on the stdio echo call under callgrind, per call;
# bench/RESULTS.md): -fno-semantic-interposition 15,790 -> 15,336 instructions and 669 -> 640
# L1i misses, then -fno-plt 15,292 -> 15,211 and 638 -> 616.
# -fno-semantic-interposition: the libraries are position-independent (they may go into a shared
#   object), and without it GCC treats every exported function as replaceable at load time, so it
#   neither inlines nor specialises calls to them inside the library. Nothing in the SDK relies
#   on interposing its own functions.
# -fno-plt: calls into shared libraries (operator new, memcpy) go through the GOT directly instead
#   of a PLT stub: one jump fewer, and no stub lines in the instruction cache.
set(MCP_CODEGEN_FLAGS $<$<CXX_COMPILER_ID:GNU,Clang>:-fno-semantic-interposition -fno-plt>)

# mcp_target_defaults(target): the project's warnings, code generation and sanitizers on one of
# our targets.
function(mcp_target_defaults target)
  target_compile_options(${target} PRIVATE ${MCP_WARNING_FLAGS} ${MCP_CODEGEN_FLAGS}
                                           ${MCP_SANITIZE_FLAGS})
  mcp_profile_target(${target})  # cmake/mcp_profile.cmake
  if(MCP_SANITIZE)
    target_link_options(${target} PRIVATE -fsanitize=${MCP_SANITIZE})
  endif()
endfunction()

# mcp_add_executable(name SOURCES...): an executable linked to mcp::mcp with the defaults.
function(mcp_add_executable name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE mcp::mcp)
  mcp_target_defaults(${name})
endfunction()
