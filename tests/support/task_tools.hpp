// Test support: the two task tools the client's task tests call (over the memory transport,
// tests/unit/client_tasks_test.cpp, and over both HTTP eras, client_tasks_modern_test.cpp):
// "sleeper" sleeps `ms` milliseconds (cancellable; a task or not) and answers how many it
// slept; "asker" (a task only) asks the user's name through an elicitation and greets it.
#pragma once

#include <mcp/reflect.hpp>
#include <mcp/server.hpp>

#include <chrono>
#include <string>
#include <thread>

namespace mcp::test {

struct sleep_in {
  int ms = 0;
};
MCP_FIELDS(sleep_in, (ms, {.defaulted = true}))

struct sleep_out {
  int slept = 0;
};
MCP_FIELDS(sleep_out, (slept))

struct name_form {
  std::string name;
};
MCP_FIELDS(name_form, (name))

/// Adds "sleeper" and "asker" to `s`.
inline void add_sleeper_and_asker(mcp::server& s) {
  s.add_tool({.name = "sleeper",
              .description = "Sleeps ms milliseconds (cancellable)",
              .task_support_mode = mcp::task_support::optional},
             [](mcp::tool_context& ctx, const sleep_in& in) -> sleep_out {
               int i = 0;
               for (; i < in.ms && !ctx.cancelled(); ++i) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(1));
               }
               return sleep_out{i};
             });
  s.add_tool({.name = "asker",
              .description = "Greets the name the user gives",
              .task_support_mode = mcp::task_support::required},
             [](mcp::tool_context& ctx) -> mcp::tool_result<std::string> {
               auto a = ctx.elicit<name_form>("Your name?");
               if (!a || !a->accepted()) return mcp::tool_error{"no name"};
               return "hello " + a->content->name;
             });
}

}  // namespace mcp::test
