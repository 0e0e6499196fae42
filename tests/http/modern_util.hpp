// Helpers for the 2026-07-28 Streamable HTTP tests: request bodies with the per-request `_meta`,
// the standard headers that mirror them (MCP-Protocol-Version, Mcp-Method, Mcp-Name), the
// answer of a POST read back as JSON (from a JSON body or the last event of an SSE stream), and
// the tools the tests call: ones that ask the user (input rounds) and one whose arguments travel
// in Mcp-Param-* headers too.
#pragma once

#include <mcp/json.hpp>
#include <mcp/server.hpp>

#include <string>
#include <utility>
#include <vector>

#include "http_test_util.hpp"

namespace mcp_test {

inline constexpr const char* modern_version = "2026-07-28";

/// The `_meta` of a 2026-07-28 request.
inline std::string modern_meta(const std::string& caps = "{}",
                               const std::string& version = modern_version) {
  return R"("_meta":{"io.modelcontextprotocol/protocolVersion":")" + version +
         R"(","io.modelcontextprotocol/clientCapabilities":)" + caps + "}";
}

/// A request whose params are `params` (members without braces, may be empty) plus `meta`.
inline std::string modern_body(const std::string& id, const std::string& method,
                               const std::string& params, const std::string& meta = modern_meta()) {
  std::string p = params.empty() ? meta : params + "," + meta;
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":{)" + p +
         "}}";
}

/// A tools/call of `tool` with `args` (a JSON object) and `extra` params members.
inline std::string modern_call(const std::string& id, const std::string& tool,
                               const std::string& args, const std::string& extra = {},
                               const std::string& meta = modern_meta()) {
  std::string p = R"("name":")" + tool + R"(","arguments":)" + args;
  if (!extra.empty()) p += "," + extra;
  return modern_body(id, "tools/call", p, meta);
}

using header_list = std::vector<std::pair<std::string, std::string>>;

/// The headers of a 2026-07-28 POST: an empty value leaves the header out.
inline header_list modern_headers(const std::string& method, const std::string& name = {},
                                  const std::string& version = modern_version) {
  header_list h{{"Content-Type", "application/json"},
                {"Accept", "application/json, text/event-stream"}};
  if (!version.empty()) h.emplace_back("MCP-Protocol-Version", version);
  if (!method.empty()) h.emplace_back("Mcp-Method", method);
  if (!name.empty()) h.emplace_back("Mcp-Name", name);
  return h;
}

/// `h` with header `name` set to `value` (replaced, or added; an empty value removes it).
inline header_list with_header(header_list h, const std::string& name, const std::string& value) {
  std::erase_if(h, [&](const auto& kv) { return kv.first == name; });
  if (!value.empty()) h.emplace_back(name, value);
  return h;
}

/// The JSON-RPC message that answered a POST: the body, or the last event of an SSE stream.
inline mcp::json::value answer_of(const response& r) {
  std::string text = r.body;
  if (r.header("content-type").rfind("text/event-stream", 0) == 0) {
    const auto events = r.events();
    text = events.empty() ? std::string() : events.back().data;
  }
  auto v = mcp::parse_json(text);
  return v ? std::move(*v) : mcp::json::value(mcp::json::string("<not JSON: " + text + ">"));
}

/// The `result` of an answer (an empty object when it has none).
inline mcp::json::object result_of(const mcp::json::value& answer) {
  const auto* o = answer.if_object();
  const auto* r = o != nullptr ? o->if_contains("result") : nullptr;
  return r != nullptr && r->is_object() ? r->get_object() : mcp::json::object{};
}

/// The error code of an answer (0 when it is no error).
inline std::int64_t error_code(const mcp::json::value& answer) {
  const auto* o = answer.if_object();
  const auto* e = o != nullptr ? o->if_contains("error") : nullptr;
  const auto* c = e != nullptr && e->is_object() ? e->get_object().if_contains("code") : nullptr;
  return c != nullptr && c->is_int64() ? c->get_int64() : 0;
}

/// The error message of an answer (empty when it is no error).
inline std::string error_message(const mcp::json::value& answer) {
  const auto* o = answer.if_object();
  const auto* e = o != nullptr ? o->if_contains("error") : nullptr;
  const auto* m = e != nullptr && e->is_object() ? e->get_object().if_contains("message") : nullptr;
  return m != nullptr && m->is_string() ? std::string(m->get_string()) : std::string();
}

/// The text of a tool result's first content block.
inline std::string first_text(const mcp::json::object& result) {
  const auto* c = result.if_contains("content");
  if (c == nullptr || !c->is_array() || c->get_array().empty()) return {};
  const auto* b = c->get_array().front().if_object();
  const auto* t = b != nullptr ? b->if_contains("text") : nullptr;
  return t != nullptr && t->is_string() ? std::string(t->get_string()) : std::string();
}

struct name_answer {
  std::string name;
};
BOOST_DESCRIBE_STRUCT(name_answer, (), (name))
struct route_in {
  std::string region;
  std::int64_t priority = 0;
  bool urgent = false;
};
BOOST_DESCRIBE_STRUCT(route_in, (), (region, priority, urgent))

/// Tools of the 2026-07-28 tests: greet and greet_twice ask the user's name (elicitation, key
/// "who") and answer "<text>, <name>!"; route's region, priority and urgent are marked
/// `x-mcp-header` Region, Priority and Urgent. Also the resource test://doc ("doc text") and
/// the prompt hello ("hello there").
inline void add_modern_tools(mcp::server& s) {
  auto greet = [](mcp::tool_context& ctx, const text_in& in) -> mcp::result<std::string> {
    auto who = ctx.elicit<name_answer>("What is your name?", {.key = "who"});
    if (!who) return who.error();
    if (!who->accepted()) return mcp::tool_error{"declined"};
    return in.text + ", " + who->content->name + "!";
  };
  s.add_tool({.name = "greet", .description = "asks a name, greets"}, greet);
  s.add_tool({.name = "greet_twice", .description = "asks a name, greets"}, greet);
  auto schema = mcp::schema_for<route_in>();
  auto& props = schema["properties"].as_object();
  props["region"].as_object()["x-mcp-header"] = "Region";
  props["priority"].as_object()["x-mcp-header"] = "Priority";
  props["urgent"].as_object()["x-mcp-header"] = "Urgent";
  s.add_tool({.name = "route",
              .description = "routes by region",
              .input_schema = std::move(schema),
              .run_inline = true},
             [](const route_in& in) {
               return in.region + "/" + std::to_string(in.priority) + (in.urgent ? "!" : "");
             });
  s.add_resource({.uri = "test://doc", .name = "doc", .mime_type = "text/plain"},
                 [] { return std::string("doc text"); });
  s.add_prompt({.name = "hello", .description = "says hello"},
               [] { return std::string("hello there"); });
}

}  // namespace mcp_test
