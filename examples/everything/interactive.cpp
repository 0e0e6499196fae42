// The everything server's tools that ask the client: sampling, elicitation (form and URL mode), SSE
// polling, a slow cancellable call (examples/everything/).
#include <mcp/server.hpp>

#include <string>
#include <thread>
#include <vector>

#include "common.hpp"

namespace everything {

using mcp::json::array;
using mcp::json::object;
using namespace std::chrono_literals;

/// Runs a raw elicitation (URL mode) and describes the answer; a refusal or an error is a tool
/// error.
mcp::call_tool_result elicit_and_report(mcp::tool_context& ctx, object params) {
  auto r = ctx.elicit(std::move(params));
  if (!r) return mcp::tool_error_result("Elicitation failed: " + r.error().message);
  const auto* action = r->if_contains("action");
  const std::string act = action && action->is_string() ? std::string(action->get_string()) : "";
  if (act != "accept")
    return mcp::tool_error_result("The user did not accept (action: " + act + ")");
  const auto* content = r->if_contains("content");
  return text_result("User response: action=accept, content=" +
                     (content ? mcp::to_json_string(*content) : std::string("{}")));
}

/// Describes a typed elicitation's answer; a refusal or an error is a tool error.
template <class T>
mcp::tool_result<std::string> report(const mcp::result<mcp::elicit_result<T>>& r) {
  if (!r) return mcp::tool_error{"Elicitation failed: " + r.error().message};
  if (!r->accepted()) {
    return mcp::tool_error{std::string("The user did not accept (action: ") +
                           (r->action == mcp::elicit_action::decline ? "decline" : "cancel") + ")"};
  }
  return "User response: action=accept, content=" + mcp::to_json_string(mcp::to_json(*r->content));
}

struct prompt_in {
  std::string prompt;
};
MCP_FIELDS(prompt_in, (prompt, "The prompt to send to the model"))

struct message_in {
  std::string message;
};
MCP_FIELDS(message_in, (message, "The message to show the user"))

// What test_elicitation asks the user for.
struct account {
  std::string username;
  std::string email;
};
MCP_FIELDS(account, (username, "User's response"), (email, "User's email address"))

// test_elicitation_sep1034_defaults: a default for every primitive type.
enum class user_status { active, inactive, pending };
BOOST_DESCRIBE_ENUM(user_status, active, inactive, pending)
struct user_form {
  std::string name = "John Doe";
  std::int64_t age = 30;
  double score = 95.5;
  user_status status = user_status::active;
  bool verified = true;
};
MCP_FIELDS(user_form, (name, {.description = "User name", .defaulted = true}),
           (age, {.description = "User age", .defaulted = true}),
           (score, {.description = "User score", .defaulted = true}),
           (status, {.description = "User status", .defaulted = true}),
           (verified, {.description = "Verification status", .defaulted = true}))

struct slow_in {
  double seconds = 5;
};
MCP_FIELDS(slow_in,
           (seconds,
            {.description = "How long to run", .defaulted = true, .minimum = 0, .maximum = 60}))

void add_interactive_tools(mcp::server& s) {
  s.add_tool(
      {.name = "test_tool_with_logging", .description = "Sends three log messages while it runs."},
      [](mcp::tool_context& ctx) {
        for (const char* m :
             {"Tool execution started", "Tool processing data", "Tool execution completed"}) {
          ctx.log(mcp::log_level::info, mcp::json::value(m));
          std::this_thread::sleep_for(50ms);
        }
        return "Tool with logging executed successfully";
      });
  s.add_tool({.name = "test_tool_with_progress",
              .description = "Reports progress 0, 50, 100 of 100 while it runs."},
             [](mcp::tool_context& ctx) {
               for (const double p : {0.0, 50.0, 100.0}) {
                 ctx.progress(p, 100.0, "Completed step " + std::to_string(static_cast<int>(p)));
                 std::this_thread::sleep_for(50ms);
               }
               return "Tool with progress executed successfully";
             });
  s.add_tool(
      {.name = "test_sampling",
       .description = "Asks the client's model to answer a prompt (sampling/createMessage)."},
      [](mcp::tool_context& ctx, const prompt_in& in) -> mcp::tool_result<std::string> {
        auto r = ctx.sample(in.prompt, {.max_tokens = 100});
        if (!r) return mcp::tool_error{"Sampling failed: " + r.error().message};
        return "LLM response: " + *r;
      });
  s.add_tool({.name = "test_elicitation",
              .description = "Asks the user for a username and an email (elicitation/create)."},
             [](mcp::tool_context& ctx, const message_in& in) {
               return report(ctx.elicit<account>(in.message));
             });
  s.add_tool({.name = "test_elicitation_sep1034_defaults",
              .description = "Elicitation whose schema has a default for every primitive type."},
             [](mcp::tool_context& ctx) {
               return report(
                   ctx.elicit<user_form>("Please review and update the form fields with defaults"));
             });
  // The enum styles of 2025-11-25 (titled, legacy enumNames, multi-select): raw JSON on purpose.
  s.add_tool({.name = "test_elicitation_sep1330_enums",
              .description = "Elicitation using every enum style of 2025-11-25."},
             [](mcp::tool_context& ctx) {
               auto schema = mcp::parse_json(R"({"type": "object", "properties": {
          "untitledSingle": {"type": "string", "description": "Untitled single-select",
                             "enum": ["option1", "option2", "option3"]},
          "titledSingle": {"type": "string", "description": "Titled single-select",
                           "oneOf": [{"const": "value1", "title": "First Option"},
                                     {"const": "value2", "title": "Second Option"},
                                     {"const": "value3", "title": "Third Option"}]},
          "legacyEnum": {"type": "string", "description": "Legacy titled enum",
                         "enum": ["opt1", "opt2", "opt3"],
                         "enumNames": ["Option One", "Option Two", "Option Three"]},
          "untitledMulti": {"type": "array", "description": "Untitled multi-select",
                            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
          "titledMulti": {"type": "array", "description": "Titled multi-select",
                          "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                              {"const": "value2", "title": "Second Choice"},
                                              {"const": "value3", "title": "Third Choice"}]}}
        }})");
               return elicit_and_report(ctx, object{{"message", "Please choose from the options"},
                                                    {"requestedSchema", schema->as_object()}});
             });
  s.add_tool({.name = "test_url_elicitation",
              .description = "Asks the user to visit a URL (URL-mode elicitation); answers error "
                             "-32042 when the client cannot do URL mode."},
             [](mcp::tool_context& ctx) -> mcp::result<mcp::call_tool_result> {
               object params{{"mode", "url"},
                             {"elicitationId", "everything-url-1"},
                             {"url", "https://example.com/authorize"},
                             {"message", "Please authorize access at example.com"}};
               const auto* el = ctx.client_capabilities().if_contains("elicitation");
               if (!el || !el->is_object() || !el->get_object().contains("url")) {
                 // a JSON-RPC error (-32042), not a tool failure: the explicit way out
                 throw mcp::protocol_error(mcp::url_elicitation_required(array{params}));
               }
               return elicit_and_report(ctx, std::move(params));
             });
  s.add_tool({.name = "test_reconnection",
              .description = "Closes its SSE stream mid-call, then answers on the resumed "
                             "stream (SSE polling)."},
             [](mcp::tool_context& ctx) {
               ctx.close_sse_stream();
               std::this_thread::sleep_for(100ms);
               return "Reconnection test completed";
             });
  s.add_tool({.name = "test_touch_watched_resource",
              .description = "Announces a change of test://watched-resource to its subscribers.",
              .run_inline = true},
             [&s] {
               s.notify_resource_updated("test://watched-resource");
               return "Subscribers of test://watched-resource were notified";
             });
  s.add_tool(
      {.name = "test_slow_operation",
       .description = "Runs for up to 'seconds' seconds with progress; stops when cancelled."},
      [](mcp::tool_context& ctx, const slow_in& in) -> mcp::tool_result<std::string> {
        const auto steps = static_cast<int>(in.seconds * 10);
        for (int i = 0; i < steps; ++i) {
          if (ctx.cancelled()) return mcp::tool_error{"cancelled"};
          std::this_thread::sleep_for(100ms);
          ctx.progress(i + 1, steps);
        }
        return "Slow operation finished";
      });
}

}  // namespace everything
