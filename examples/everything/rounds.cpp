// The everything server's fixtures for asking the client for input, written once for both
// revisions: with a 2025-11-25 client each question is a request to it and the call waits;
// with a 2026-07-28 client a question ends the round with an input_required result, and the
// retry, carrying the answers, runs the handler again (examples/everything/). Also the
// diagnostic tools of the 2026-07-28 conformance scenarios (a capability the request lacks, no
// logs without a log level, list changes for subscriptions/listen) and a tool whose argument
// travels in an HTTP header too (x-mcp-header).
#include <mcp/server.hpp>

#include <string>

#include "common.hpp"

namespace everything {

using mcp::json::object;

struct name_form {
  std::string name;
};
MCP_FIELDS(name_form, (name))
struct color_form {
  std::string color;
};
MCP_FIELDS(color_form, (color))
struct ok_form {
  bool ok = false;
};
MCP_FIELDS(ok_form, (ok))
struct context_form {
  std::string context;
};
MCP_FIELDS(context_form, (context))
struct region_in {
  std::string region;
};
MCP_FIELDS(region_in, (region, "Where to run"))

namespace {

/// The names of the roots in a ListRootsResult, joined.
std::string root_names(const object& r) {
  std::string out;
  if (const auto* roots = r.if_contains("roots"); roots != nullptr && roots->is_array()) {
    for (const auto& root : roots->get_array()) {
      const auto* o = root.if_object();
      const auto* uri = o != nullptr ? o->if_contains("uri") : nullptr;
      if (uri == nullptr || !uri->is_string()) continue;
      if (!out.empty()) out += ", ";
      out += uri->get_string();
    }
  }
  return out;
}

template <class T>
mcp::result<T> accepted(mcp::result<mcp::elicit_result<T>>&& r) {
  if (!r) return r.error();
  if (!r->accepted()) return mcp::tool_error{"The user did not accept"};
  return std::move(*r->content);
}

}  // namespace

void add_round_tools(mcp::server& s) {
  s.add_tool({.name = "test_input_required_result_elicitation",
              .description = "Asks the user's name (elicitation), then greets them."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto who =
                   accepted(ctx.elicit<name_form>("What is your name?", {.key = "user_name"}));
               if (!who) return who.error();
               return "Hello, " + who->name + "!";
             });
  s.add_tool({.name = "test_input_required_result_sampling",
              .description = "Asks the client's model a question (sampling)."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto answer = ctx.sample("What is the capital of France?",
                                        {.max_tokens = 100, .key = "capital_question"});
               if (!answer) return answer.error();
               return "The model said: " + *answer;
             });
  s.add_tool({.name = "test_input_required_result_list_roots",
              .description = "Asks the client for its roots."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto roots = ctx.list_roots({.key = "client_roots"});
               if (!roots) return roots.error();
               return "Roots: " + root_names(*roots);
             });
  s.add_tool({.name = "test_input_required_result_request_state",
              .description = "Asks for a confirmation, keeping its own state across the round."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               // Work done before the question is kept in the round's state, not redone.
               const bool resumed = ctx.round_state() != nullptr;
               if (!resumed) ctx.save_round_state(object{{"prepared", true}});
               auto ok = accepted(ctx.elicit<ok_form>("Please confirm", {.key = "confirm"}));
               if (!ok) return ok.error();
               if (!ok->ok) return mcp::tool_error{"not confirmed"};
               return resumed ? "state-ok" : "confirmed (no state was needed)";
             });
  s.add_tool(
      {.name = "test_input_required_result_multiple_inputs",
       .description = "Asks three things at once: a name, a greeting, the roots."},
      [](mcp::tool_context& ctx) -> mcp::result<std::string> {
        // Asked together: in 2026-07-28 one round carries all three.
        auto who = accepted(ctx.elicit<name_form>("What is your name?", {.key = "user_name"}));
        auto greeting = ctx.sample("Generate a greeting", {.max_tokens = 50, .key = "greeting"});
        auto roots = ctx.list_roots({.key = "client_roots"});
        if (!who) return who.error();
        if (!greeting) return greeting.error();
        if (!roots) return roots.error();
        return *greeting + " " + who->name + " (roots: " + root_names(*roots) + ")";
      });
  s.add_tool({.name = "test_input_required_result_multi_round",
              .description = "Asks two questions, one after the other."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto who =
                   accepted(ctx.elicit<name_form>("Step 1: What is your name?", {.key = "step1"}));
               if (!who) return who.error();
               auto color = accepted(ctx.elicit<color_form>("Step 2: What is your favorite color?",
                                                            {.key = "step2"}));
               if (!color) return color.error();
               return who->name + " likes " + color->color;
             });
  s.add_tool({.name = "test_input_required_result_tampered_state",
              .description = "Asks for a confirmation; a changed requestState is refused."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto ok = accepted(ctx.elicit<ok_form>("Please confirm", {.key = "confirm"}));
               if (!ok) return ok.error();
               return ok->ok ? "confirmed" : "not confirmed";
             });
  s.add_tool({.name = "test_input_required_result_capabilities",
              .description = "Asks only what the client can answer."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               const auto caps = ctx.client_capabilities();
               std::string out;
               if (caps.contains("elicitation")) {
                 auto who = accepted(ctx.elicit<name_form>("What is your name?"));
                 if (!who) return who.error();
                 out += "name: " + who->name + "; ";
               }
               if (caps.contains("sampling")) {
                 auto a = ctx.sample("Say hello", {.max_tokens = 20});
                 if (!a) return a.error();
                 out += "model: " + *a + "; ";
               }
               if (caps.contains("roots")) {
                 auto r = ctx.list_roots();
                 if (!r) return r.error();
                 out += "roots: " + root_names(*r);
               }
               return out.empty() ? "the client can answer nothing" : out;
             });
  s.add_prompt({.name = "test_input_required_result_prompt",
                .description = "A prompt that asks the user for context first"},
               [](mcp::request_context& ctx) -> mcp::result<std::string> {
                 auto c = accepted(ctx.elicit<context_form>("What context should the prompt use?",
                                                            {.key = "user_context"}));
                 if (!c) return c.error();
                 return "Answer with this context in mind: " + c->context;
               });
}

void add_diagnostic_tools(mcp::server& s) {
  s.add_tool({.name = "test_missing_capability",
              .description = "Needs the client's sampling capability (2026-07-28: -32021 when the "
                             "request does not declare it)."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto a = ctx.sample("Reply with one word", {.max_tokens = 10});
               if (!a) return a.error();
               return *a;
             });
  s.add_tool({.name = "test_streaming_elicitation",
              .description = "Asks the user something (never as a request on a 2026-07-28 "
                             "response stream)."},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto who = accepted(ctx.elicit<name_form>("What is your name?"));
               if (!who) return who.error();
               return "Hello, " + who->name;
             });
  s.add_tool({.name = "test_logging_tool",
              .description = "Logs at info (2026-07-28: only when the request sets a log level)."},
             [](mcp::tool_context& ctx) {
               ctx.log(mcp::log_level::info, "test_logging_tool ran");
               return "logged";
             });
  // Toggle a tool (or a prompt): every subscriber to the list hears it changed.
  s.add_tool({.name = "test_trigger_tool_change", .description = "Changes the list of tools."},
             [&s] {
               if (!s.remove_tool("test_dynamic_tool")) {
                 s.add_tool({.name = "test_dynamic_tool", .description = "Comes and goes."},
                            [] { return "dynamic"; });
               }
               return "tools changed";
             });
  s.add_tool({.name = "test_trigger_prompt_change", .description = "Changes the list of prompts."},
             [&s] {
               if (!s.remove_prompt("test_dynamic_prompt")) {
                 s.add_prompt({.name = "test_dynamic_prompt", .description = "Comes and goes."},
                              [] { return "dynamic"; });
               }
               return "prompts changed";
             });
  // Its `region` is also sent as the header Mcp-Param-Region (2026-07-28 Streamable HTTP).
  auto schema = mcp::schema_for<region_in>();
  schema["properties"].as_object()["region"].as_object()["x-mcp-header"] = "Region";
  s.add_tool({.name = "test_header_param",
              .description = "Echoes its region, which HTTP clients also send as a header.",
              .input_schema = std::move(schema)},
             [](const region_in& in) { return "region: " + in.region; });
}

}  // namespace everything
