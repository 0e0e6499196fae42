// The everything server's tools that run as tasks (2025-11-25 task-augmented calls; the
// 2026-07-28 tasks extension, where the server decides), after the fixtures of the conformance
// suite's tasks scenarios (examples/everything/).
#include <mcp/server.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "common.hpp"

namespace everything {

struct greet_in {
  std::string name;
};
MCP_FIELDS(greet_in, (name, "Who to greet"))
struct compute_in {
  double seconds = 1;
  std::string label;
};
MCP_FIELDS(compute_in, (seconds, {.description = "How long to work", .minimum = 0, .maximum = 600}),
           (label, {.description = "A label for the job", .defaulted = true}))
struct file_in {
  std::string filename;
};
MCP_FIELDS(file_in, (filename, "The file to delete"))
struct confirm_form {
  bool confirm = false;
};
MCP_FIELDS(confirm_form, (confirm))
struct named_form {
  std::string name;
  bool confirm = false;
};
MCP_FIELDS(named_form, (name, {.defaulted = true}), (confirm, {.defaulted = true}))
struct user_form {
  std::string name;
};
MCP_FIELDS(user_form, (name))

namespace {

/// Sleeps `seconds`, waking early when the call is cancelled; false when it was.
bool work(const mcp::tool_context& ctx, double seconds) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  while (std::chrono::steady_clock::now() < until) {
    if (ctx.cancelled()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace

void add_task_tools(mcp::server& s) {
  using mcp::task_support;
  s.add_tool({.name = "greet", .description = "Greets someone, at once (never a task)."},
             [](const greet_in& in) { return "Hello, " + in.name + "!"; });
  s.add_tool({.name = "slow_compute",
              .description = "Works for a while; runs as a task when the client can take one.",
              .task_support_mode = task_support::optional},
             [](mcp::tool_context& ctx, const compute_in& in) -> mcp::result<std::string> {
               if (!work(ctx, in.seconds)) return mcp::tool_error{"cancelled"};
               return "computed " + in.label;
             });
  s.add_tool({.name = "failing_job",
              .description = "Runs only as a task, and fails (isError) after a second.",
              .task_support_mode = task_support::required},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               work(ctx, 1);
               return mcp::tool_error{"failing_job failed, as it always does"};
             });
  s.add_tool({.name = "protocol_error_job",
              .description = "Runs as a task that ends with a JSON-RPC error.",
              .task_support_mode = task_support::optional},
             []() -> std::string {
               throw mcp::protocol_error(
                   mcp::error{mcp::errc::internal_error, "protocol_error_job broke on purpose"});
             });
  s.add_tool({.name = "confirm_delete",
              .description = "Asks for a confirmation before deleting a file (it deletes nothing).",
              .task_support_mode = task_support::optional},
             [](mcp::tool_context& ctx, const file_in& in) -> mcp::result<std::string> {
               auto ok = ctx.elicit<confirm_form>("Delete " + in.filename + "?");
               if (!ok) return ok.error();
               if (!ok->accepted() || !ok->content->confirm) return "kept " + in.filename;
               return "deleted " + in.filename;
             });
  s.add_tool({.name = "multi_input",
              .description = "Asks two questions at once.",
              .task_support_mode = task_support::optional},
             [](mcp::tool_context& ctx, mcp::reply<std::string> reply) {
               // Both asked before either is answered: the task waits on the two together.
               struct both {
                 std::mutex mu;
                 int left = 2;
                 std::string names;
               };
               auto b = std::make_shared<both>();
               auto answered = [b, reply](const mcp::result<mcp::elicit_result<named_form>>& r) {
                 std::lock_guard lock(b->mu);
                 if (r && r->accepted()) b->names += r->content->name + " ";
                 if (--b->left == 0) reply("answered: " + b->names);
               };
               ctx.elicit_async<named_form>("First question", answered, {.key = "first"});
               ctx.elicit_async<named_form>("Second question", answered, {.key = "second"});
             });
  s.add_tool({.name = "test_tool_with_task",
              .description = "Asks the user's name first, then works on as a task.",
              .task_support_mode = task_support::required,
              .deferred_task = true},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto who = ctx.elicit<user_form>("What is your name?", {.key = "user_name"});
               if (!who) return who.error();
               if (!who->accepted()) return mcp::tool_error{"The user did not answer"};
               ctx.become_task();  // the request is answered with the task; the rest runs in it
               work(ctx, 0.5);
               return "Hello, " + who->content->name + ", from a task";
             });
}

}  // namespace everything
