// A long job as a task (MCP 2025-11-25): a client that sends `tools/call` with `params.task`
// gets a task id at once and the result later (`tasks/result`), sees progress while it runs
// and may stop it with `tasks/cancel`, which fires the handler's stop token. Without
// `params.task` the same tool runs as a plain call (`task_support::optional`).
// Tasks live in memory here; `make_sqlite_task_store(path)` in `server_options::task_store`
// keeps them, with their results, across a restart.
//
//   mcp-cpp tools call crunch steps=20 --task -- build/ci/examples/long_task
#include <mcp/server.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

struct crunch_in {
  int steps = 10;
  int step_ms = 100;
};
MCP_FIELDS(
    crunch_in,
    (steps, {.description = "Steps of work", .defaulted = true, .minimum = 1, .maximum = 1000}),
    (step_ms,
     {.description = "Milliseconds per step", .defaulted = true, .minimum = 1, .maximum = 60000}))

int main() {
  mcp::server server({.info = {.name = "long-task", .version = "1.0.0"}});
  server.add_tool({.name = "crunch",
                   .description = "A long computation: steps x step_ms milliseconds, with progress",
                   .annotations = {.read_only_hint = true},
                   .task_support_mode = mcp::task_support::optional},
                  [](mcp::tool_context& ctx, const crunch_in& in) -> mcp::tool_result<std::string> {
                    std::mutex mu;
                    std::condition_variable_any wake;  // woken at once by a cancellation
                    for (int i = 0; i < in.steps; ++i) {
                      std::unique_lock lock(mu);
                      // One step of "work": waits step_ms, or less when the task is cancelled.
                      wake.wait_for(lock, ctx.stop_token(), std::chrono::milliseconds(in.step_ms),
                                    [] { return false; });
                      if (ctx.cancelled())
                        return mcp::tool_error{"stopped after " + std::to_string(i)};
                      ctx.progress(i + 1, in.steps, "step " + std::to_string(i + 1));
                    }
                    return "crunched " + std::to_string(in.steps) + " steps";
                  });
  return server.serve_stdio();
}
