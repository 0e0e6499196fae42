// Shared pieces of the libFuzzer targets: a connection that discards what it is sent, an
// executor that runs posted work when the target drains it (deterministic, one thread), and a
// server with one of each feature so that every method has something to reach.
#pragma once

#include <mcp/server.hpp>
#include <mcp/transport.hpp>

#include <boost/json/parse.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace mcp_fuzz {

/// Counts and drops every message (the target checks nothing escapes; the sanitizers check the
/// rest).
class sink_connection final : public mcp::connection {
 public:
  void send(std::string message, const mcp::send_context&) override { bytes += message.size(); }
  void close() override {}
  std::size_t bytes = 0;
};

/// Work posted by the server runs when `drain` is called, on the caller's thread.
class queue_executor final : public mcp::executor {
 public:
  void post(mcp::unique_function<void()> work) override {
    std::lock_guard lock(mu_);
    q_.push_back(std::move(work));
  }
  /// Runs queued work (and what it queues) up to `limit` items.
  void drain(int limit = 10000) {
    for (int i = 0; i < limit; ++i) {
      mcp::unique_function<void()> f;
      {
        std::lock_guard lock(mu_);
        if (q_.empty()) return;
        f = std::move(q_.front());
        q_.pop_front();
      }
      f();
    }
  }

 private:
  std::mutex mu_;
  std::deque<mcp::unique_function<void()>> q_;
};

struct echo_in {
  std::string text;
  int times = 1;
};
MCP_FIELDS(echo_in, (text, {.max_length = 1000}),
           (times, {.defaulted = true, .minimum = 1, .maximum = 3}))

/// A server with a typed tool (it may run as a task), a raw tool with a pattern, a resource, a
/// template and a prompt, whose handlers run on `exec`.
inline std::unique_ptr<mcp::server> make_server(std::shared_ptr<queue_executor> exec) {
  // Tasks expire at once (and are swept every 256 creations): the server lives for the whole
  // run and must not keep what millions of inputs created.
  auto s = std::make_unique<mcp::server>(
      mcp::server_options{.info = {.name = "fuzz", .version = "1"},
                          .handler_executor = exec,
                          .task_default_ttl = std::chrono::milliseconds(1),
                          .task_max_ttl = std::chrono::milliseconds(1)});
  s->add_tool(
      {.name = "echo", .description = "Echoes", .task_support_mode = mcp::task_support::optional},
      [](const echo_in& in) {
        std::string out;
        for (int i = 0; i < in.times; ++i) out += in.text;
        return out;
      });
  s->add_tool({.name = "code",
               .description = "Checks a code",
               .input_schema = mcp::json::parse(R"({"type":"object","properties":{
                   "code":{"type":"string","pattern":"^[A-Z]{2}-\\d{3,5}$"},
                   "tags":{"type":"array","items":{"enum":["a","b"]},"uniqueItems":true}},
                   "required":["code"]})")
                                   .as_object(),
               .scopes = {"admin"}},  // over a protected HTTP server: 403 step-up without it
              [](mcp::tool_context&, const mcp::json::object&) { return mcp::call_tool_result{}; });
  s->add_resource({.uri = "test://a", .name = "a"},
                  [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
                    return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, "a")}};
                  });
  s->add_resource_template(
      {.uri_template = "file:///{dir}/{name}{?q}", .name = "files"},
      [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
        std::string text;
        for (const auto& [k, v] : r.variables) text += k + "=" + v + ";";
        return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, text)}};
      });
  s->add_prompt({.name = "greet", .arguments = {{.name = "who", .required = true}}},
                [](const mcp::prompt_request& r) -> mcp::result<mcp::get_prompt_result> {
                  mcp::get_prompt_result out;
                  out.messages.push_back(
                      mcp::prompt_message::user(mcp::text_content("hi " + r.arguments.at("who"))));
                  return out;
                });
  return s;
}

}  // namespace mcp_fuzz
