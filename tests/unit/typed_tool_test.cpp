// mcp/typed_tool.hpp: tools as plain functions over described structs, checked at the wire:
// the inferred schemas in tools/list, validation before the handler, every handler shape and
// every return type through tools/call.
#include <mcp/server.hpp>
#include <mcp/typed_tool.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "reflect/test_types.hpp"
#include "support/wire.hpp"

namespace typed_test {

enum class units { metric, imperial };
BOOST_DESCRIBE_ENUM(units, metric, imperial)

struct outlook_in {
  std::string city;
  int days = 3;
  std::optional<units> unit;
  std::optional<std::string> note;
};
MCP_FIELDS(outlook_in, (city, {.description = "City name", .min_length = 1}),
           (days, {.description = "Days ahead", .defaulted = true, .minimum = 1, .maximum = 16}),
           (unit), (note, {.nullable = true}))

struct outlook_out {
  std::string summary;
  double high = 0;
};
MCP_FIELDS(outlook_out, (summary), (high))

struct count_in {
  int count = 0;
  std::string email;
  int max_tokens = 0;
};
MCP_FIELDS(count_in, (count), (email, {.format = "email"}),
           (max_tokens, {.name = "maxTokens", .defaulted = true}))

struct engine {
  std::string prefix;
  [[nodiscard]] std::string run(const count_in& in) const {
    return prefix + std::to_string(in.count);
  }
  outlook_out ahead(mcp::tool_context&, const outlook_in& in) noexcept {
    return {.summary = prefix + in.city, .high = static_cast<double>(in.days)};
  }
};

std::string free_function(const count_in& in) { return "free " + std::to_string(in.count); }
outlook_out noexcept_function(const outlook_in& in) noexcept {
  return {.summary = in.city + " in " + std::to_string(in.days) + " days", .high = 20};
}

}  // namespace typed_test

namespace {

using mcp::json::array;
using mcp::json::object;
using mcp::test::j;
using mcp::test::wire;
using namespace typed_test;

/// The tool called `name` in tools/list.
mcp::json::object listed(wire& w, std::string_view name) {
  const auto list = w.call("tools/list");
  for (const auto& t : list.at("result").at("tools").as_array()) {
    if (t.at("name").as_string() == name) return t.as_object();
  }
  ADD_FAILURE() << "no tool " << name;
  return {};
}

mcp::json::value call(wire& w, std::string_view name, object args = {}) {
  return w.call("tools/call", object{{"name", name}, {"arguments", std::move(args)}});
}

std::string text_of(const mcp::json::value& response) {
  return std::string(response.at("result").at("content").at(0).at("text").as_string());
}

TEST(typed_tool, the_inferred_schema_says_defaults_ranges_and_optionals) {
  mcp::server s;
  s.add_tool({.name = "outlook", .description = "Outlook"}, &noexcept_function);
  wire w(s);
  w.initialize();
  auto tool = listed(w, "outlook");
  EXPECT_EQ(tool.at("inputSchema"), j(R"({"type":"object","properties":{
      "city":{"type":"string","description":"City name","minLength":1},
      "days":{"type":"integer","description":"Days ahead","minimum":1,"maximum":16,"default":3},
      "unit":{"type":"string","enum":["metric","imperial"]},
      "note":{"type":["string","null"]}},
    "required":["city"]})"));
  EXPECT_EQ(tool.at("outputSchema"), j(R"({"type":"object","properties":{
      "summary":{"type":"string"},"high":{"type":"number"}},"required":["summary","high"]})"));
}

TEST(typed_tool, arguments_are_validated_then_decoded_with_defaults) {
  mcp::server s;
  s.add_tool({.name = "outlook", .description = "Outlook"}, &noexcept_function);
  s.add_tool({.name = "count", .description = "Count"}, [](const count_in& in) {
    return std::to_string(in.count) + "/" + std::to_string(in.max_tokens);
  });
  wire w(s);
  w.initialize();
  EXPECT_EQ(call(w, "outlook", {{"city", "Oslo"}}).at("result").at("structuredContent"),
            j(R"({"summary":"Oslo in 3 days","high":20})"));
  EXPECT_EQ(text_of(call(w, "count", {{"count", 7}, {"email", "a@b.example"}, {"maxTokens", 9}})),
            "7/9");
  for (const auto& [tool, args, message] :
       std::vector<std::tuple<std::string, object, std::string>>{
           {"outlook",
            {{"city", "Oslo"}, {"days", 17}},
            "Invalid arguments for tool \"outlook\": /days: 17 is greater than the maximum 16"},
           {"outlook",
            {{"city", "Oslo"}, {"days", 0}},
            "Invalid arguments for tool \"outlook\": /days: 0 is less than the minimum 1"},
           {"outlook", {{"city", ""}}, "/city"},
           {"outlook", {{"city", "Oslo"}, {"unit", nullptr}}, "/unit: null is not of type string"},
           {"count", {{"count", 1}, {"email", "not an address"}}, "/email"},
           // Valid for the schema (no declared bounds), out of range for int: the decoder says so.
           {"count",
            {{"count", 1e12}, {"email", "a@b.example"}},
            "Invalid arguments for tool \"count\": /count: expected an integer between "
            "-2147483648 and 2147483647, got number 1e+12"},
       }) {
    auto r = call(w, tool, args);
    ASSERT_TRUE(r.at("result").at("isError").as_bool()) << mcp::to_json_string(args);
    EXPECT_NE(text_of(r).find(message), std::string::npos) << text_of(r);
  }
  // A nullable optional takes null.
  auto ok = call(w, "outlook", {{"city", "Oslo"}, {"note", nullptr}});
  EXPECT_FALSE(ok.at("result").as_object().contains("isError")) << mcp::to_json_string(ok);
}

TEST(typed_tool, every_handler_shape) {
  mcp::server s;
  engine eng{.prefix = "engine "};
  const engine ceng{.prefix = "const engine "};
  s.add_tool({.name = "free", .description = "d"}, free_function);
  s.add_tool({.name = "pointer", .description = "d"}, &free_function);
  s.add_tool({.name = "noexcept_lambda", .description = "d"},
             [](const count_in& in) noexcept { return std::to_string(in.count + 1); });
  s.add_tool({.name = "mutable_lambda", .description = "d"},
             [calls = 0](count_in in) mutable { return std::to_string(in.count + ++calls); });
  s.add_tool({.name = "rvalue_input", .description = "d"},
             [](count_in&& in) { return std::move(in.email); });
  s.add_tool({.name = "member", .description = "d"}, &engine::run, &eng);
  s.add_tool({.name = "const_member", .description = "d"}, &engine::run, &ceng);
  s.add_tool({.name = "member_with_context", .description = "d"}, &engine::ahead, &eng);
  s.add_tool({.name = "no_arguments", .description = "d"}, [] { return "none"; });
  s.add_tool({.name = "context_only", .description = "d"},
             [](mcp::tool_context& ctx) { return ctx.protocol_version(); });
  s.add_tool({.name = "context_last", .description = "d"},
             [](const count_in& in, const mcp::tool_context& ctx) {
               return ctx.protocol_version() + " " + std::to_string(in.count);
             });
  s.add_tool({.name = "std_function", .description = "d"},
             std::function<std::string(const count_in&)>(free_function));
  s.add_tool({.name = "json_object", .description = "d"},
             [](const object& args) { return std::to_string(args.size()); });
  wire w(s);
  w.initialize();
  const object args{{"count", 4}, {"email", "e@x.example"}};
  for (const auto& [tool, expected] : std::vector<std::pair<std::string, std::string>>{
           {"free", "free 4"},
           {"pointer", "free 4"},
           {"noexcept_lambda", "5"},
           {"mutable_lambda", "5"},
           {"rvalue_input", "e@x.example"},
           {"member", "engine 4"},
           {"const_member", "const engine 4"},
           {"context_last", "2025-11-25 4"},
           {"std_function", "free 4"},
           {"json_object", "2"},
       }) {
    EXPECT_EQ(text_of(call(w, tool, args)), expected) << tool;
  }
  EXPECT_EQ(text_of(call(w, "mutable_lambda", args)), "6");  // state kept between calls
  EXPECT_EQ(text_of(call(w, "no_arguments")), "none");
  EXPECT_EQ(text_of(call(w, "context_only")), "2025-11-25");
  EXPECT_EQ(call(w, "member_with_context", {{"city", "Oslo"}}).at("result").at("structuredContent"),
            j(R"({"summary":"engine Oslo","high":3})"));
  // No arguments: the recommended closed schema, so stray arguments are refused.
  EXPECT_EQ(listed(w, "no_arguments").at("inputSchema"),
            j(R"({"type":"object","additionalProperties":false})"));
  EXPECT_EQ(listed(w, "json_object").at("inputSchema"), j(R"({"type":"object"})"));
  EXPECT_TRUE(call(w, "no_arguments", {{"x", 1}}).at("result").at("isError").as_bool());
  using pointer = std::string (*)(const count_in&);
  EXPECT_THROW(s.add_tool({.name = "null", .description = "d"}, pointer{nullptr}),
               std::invalid_argument);
  EXPECT_THROW(s.add_tool({.name = "null_object", .description = "d"}, &engine::run,
                          static_cast<engine*>(nullptr)),
               std::invalid_argument);
}

TEST(typed_tool, every_return_type) {
  mcp::server s;
  s.add_tool({.name = "structured", .description = "d"},
             [] { return outlook_out{.summary = "s", .high = 1.5}; });
  s.add_tool({.name = "text", .description = "d"}, [] { return std::string("t"); });
  s.add_tool({.name = "literal", .description = "d"}, [] { return "c"; });
  s.add_tool({.name = "block", .description = "d"}, [] { return mcp::text_content("b"); });
  s.add_tool({.name = "blocks", .description = "d"}, [] {
    return std::vector<object>{mcp::text_content("1"), mcp::text_content("2")};
  });
  s.add_tool({.name = "whole", .description = "d"}, [] {
    mcp::call_tool_result r;
    r.content.push_back(mcp::text_content("w"));
    r.meta["k"] = 1;
    return r;
  });
  s.add_tool({.name = "nothing", .description = "d"}, [] {});
  s.add_tool({.name = "number", .description = "d"}, [] { return std::vector<int>{1, 2}; });
  s.add_tool({.name = "tool_error", .description = "d"},
             []() -> mcp::tool_result<outlook_out> { return mcp::tool_error{"no data"}; });
  s.add_tool({.name = "protocol_error", .description = "d"}, []() -> mcp::result<outlook_out> {
    throw mcp::protocol_error(mcp::url_elicitation_required(array{object{{"mode", "url"}}}));
  });
  s.add_tool({.name = "local_error", .description = "d"}, []() -> mcp::result<std::string> {
    return mcp::error{mcp::errc::request_timeout, "the user did not answer"};
  });
  s.add_tool({.name = "nested", .description = "d"}, []() -> mcp::result<mcp::result<std::string>> {
    return mcp::result<std::string>{mcp::tool_error{"inner"}};
  });
  s.add_tool({.name = "result_void", .description = "d"}, []() -> mcp::result<void> { return {}; });
  s.add_tool({.name = "throws", .description = "d"},
             []() -> std::string { throw std::runtime_error("Cannot divide by zero"); });
  wire w(s);
  w.initialize();
  EXPECT_EQ(call(w, "structured").at("result"),
            j(R"({"content":[{"type":"text","text":"{\"summary\":\"s\",\"high\":1.5}"}],
                  "structuredContent":{"summary":"s","high":1.5}})"));
  EXPECT_EQ(call(w, "text").at("result"), j(R"({"content":[{"type":"text","text":"t"}]})"));
  EXPECT_EQ(call(w, "literal").at("result"), j(R"({"content":[{"type":"text","text":"c"}]})"));
  EXPECT_EQ(call(w, "block").at("result"), j(R"({"content":[{"type":"text","text":"b"}]})"));
  EXPECT_EQ(call(w, "blocks").at("result"),
            j(R"({"content":[{"type":"text","text":"1"},{"type":"text","text":"2"}]})"));
  EXPECT_EQ(call(w, "whole").at("result"),
            j(R"({"content":[{"type":"text","text":"w"}],"_meta":{"k":1}})"));
  EXPECT_EQ(call(w, "nothing").at("result"), j(R"({"content":[]})"));
  EXPECT_EQ(call(w, "number").at("result"), j(R"({"content":[{"type":"text","text":"[1,2]"}]})"));
  EXPECT_EQ(call(w, "tool_error").at("result"),
            j(R"({"content":[{"type":"text","text":"no data"}],"isError":true})"));
  auto protocol = call(w, "protocol_error");
  EXPECT_EQ(protocol.at("error").at("code"), -32042) << mcp::to_json_string(protocol);
  EXPECT_EQ(call(w, "local_error").at("result"),
            j(R"({"content":[{"type":"text","text":"the user did not answer"}],"isError":true})"));
  EXPECT_EQ(call(w, "nested").at("result"),
            j(R"({"content":[{"type":"text","text":"inner"}],"isError":true})"));
  EXPECT_EQ(call(w, "result_void").at("result"), j(R"({"content":[]})"));
  EXPECT_EQ(call(w, "throws").at("result"),
            j(R"({"content":[{"type":"text","text":"Cannot divide by zero"}],"isError":true})"));
  // Only struct outputs get an outputSchema.
  EXPECT_TRUE(listed(w, "structured").contains("outputSchema"));
  EXPECT_TRUE(listed(w, "tool_error").contains("outputSchema"));
  for (const char* name : {"text", "block", "blocks", "whole", "nothing", "number", "nested"}) {
    EXPECT_FALSE(listed(w, name).contains("outputSchema")) << name;
  }
}

// The error rule (mcp/typed_tool.hpp): every failure a tool handler returns or throws is an
// isError result with its message; a JSON-RPC error only through protocol_error (or a reply's
// fail_request). One tool per way a failure used to take.
TEST(typed_tool, every_failure_is_an_is_error_result_the_model_reads) {
  mcp::server s;
  auto fails_with = [&s](std::string name, mcp::error e) {
    s.add_tool({.name = name, .description = "d"}, [e]() -> mcp::result<std::string> { return e; });
  };
  fails_with("invalid_params", {mcp::errc::invalid_params, "city must not be empty"});
  fails_with("user_rejected", {mcp::errc::user_rejected, "the user said no"});
  fails_with("parse_error", {mcp::errc::parse_error, "the backend's answer is not JSON"});
  fails_with("url_elicitation", mcp::url_elicitation_required(array{}, "Sign in first"));
  fails_with("not_supported", {mcp::errc::not_supported, "no elicitation capability"});
  s.add_tool({.name = "parsed", .description = "d"}, []() -> mcp::result<std::string> {
    auto v = mcp::parse_json("{not json");
    if (!v) return v.error();
    return std::string("parsed");
  });
  s.add_tool({.name = "value_of_error", .description = "d"}, []() -> std::string {
    mcp::result<std::string> r = mcp::error{mcp::errc::invalid_params, "bad key"};
    return r.value();  // throws error_exception
  });
  s.add_tool({.name = "throws_int", .description = "d"}, []() -> std::string { throw 42; });
  s.add_tool({.name = "reply_fails", .description = "d"}, [](mcp::reply<std::string> reply) {
    reply(mcp::error{mcp::errc::invalid_params, "replied with a failure"});
  });
  s.add_tool({.name = "reply_protocol", .description = "d"}, [](mcp::reply<std::string> reply) {
    reply.fail_request(mcp::error{mcp::errc::invalid_params, "a protocol error on purpose"});
  });
  s.add_tool({.name = "thrown_protocol", .description = "d"}, []() -> std::string {
    throw mcp::protocol_error(mcp::error{mcp::errc::invalid_request, "refused on purpose"});
  });
  wire w(s);
  w.initialize();
  auto is_error_with = [&w](std::string_view tool, std::string_view text) {
    auto r = call(w, tool);
    ASSERT_TRUE(r.as_object().contains("result")) << tool << ": " << mcp::to_json_string(r);
    EXPECT_EQ(r.at("result"), j(R"({"isError":true,"content":[{"type":"text","text":)" +
                                mcp::to_json_string(mcp::json::string(text)) + "}]}"))
        << tool;
  };
  is_error_with("invalid_params", "city must not be empty");
  is_error_with("user_rejected", "the user said no");
  is_error_with("parse_error", "the backend's answer is not JSON");
  is_error_with("url_elicitation", "Sign in first");
  is_error_with("not_supported", "no elicitation capability");
  EXPECT_TRUE(call(w, "parsed").at("result").at("isError").as_bool());
  is_error_with("value_of_error", "bad key");
  is_error_with("throws_int", "the handler failed with an unknown exception");
  is_error_with("reply_fails", "replied with a failure");
  // The explicit ways out are JSON-RPC errors, as they say.
  EXPECT_EQ(call(w, "reply_protocol").at("error"),
            j(R"({"code":-32602,"message":"a protocol error on purpose"})"));
  EXPECT_EQ(call(w, "thrown_protocol").at("error"),
            j(R"({"code":-32600,"message":"refused on purpose"})"));
}

TEST(typed_tool, a_given_schema_is_kept_and_the_decoder_still_runs) {
  mcp::server s;
  s.add_tool(
      {.name = "custom_schema",
       .description = "User schema kept",
       .input_schema =
           object{{"type", "object"},
                  {"properties", object{{"city", object{{"type", "string"}, {"minLength", 2}}}}}}},
      [](const outlook_in& in) { return outlook_out{.summary = in.city}; });
  wire w(s);
  w.initialize();
  EXPECT_EQ(
      listed(w, "custom_schema").at("inputSchema").at("properties").at("city").at("minLength"), 2);
  EXPECT_TRUE(call(w, "custom_schema", {{"city", "X"}}).at("result").at("isError").as_bool());
  auto r = call(w, "custom_schema", {{"days", 2}});  // the schema allows it; the decoder does not
  EXPECT_EQ(text_of(r),
            "Invalid arguments for tool \"custom_schema\": /city: required property is missing");
}

}  // namespace

namespace {

// Every field keyword through tools/list and tools/call: the listed inputSchema is exactly the
// inferred one, and one bad value per keyword is refused before the handler runs.
TEST(typed_tool, every_field_keyword_reaches_the_wire_and_is_enforced) {
  mcp::server s;
  int ran = 0;
  s.add_tool({.name = "book", .description = "Book"}, [&ran](const reflect_test::booking& b) {
    ++ran;
    return b.guest;
  });
  wire w(s);
  w.initialize();
  const auto tool = listed(w, "book");
  EXPECT_EQ(mcp::to_json_string(tool.at("inputSchema")),
            mcp::to_json_string(mcp::schema_for<reflect_test::booking>()));
  const object valid = j(R"({"guest":"Hansen","scores":[1]})").as_object();
  EXPECT_EQ(text_of(call(w, "book", valid)), "Hansen");
  ASSERT_EQ(ran, 1);
  for (const auto& [key, bad] : std::vector<std::pair<const char*, const char*>>{
           {"guest", R"("H")"},                      // minLength
           {"guest", R"("Haaaaaaaaaaaaaaaaaaaa")"},  // maxLength
           {"guest", R"("hansen")"},                 // pattern
           {"nights", "0"},                          // minimum
           {"nights", "31"},                         // maximum
           {"budget", "0"},                          // exclusiveMinimum
           {"budget", "100000"},                     // exclusiveMaximum
           {"budget", "1.25"},                       // multipleOf
           {"room", R"("tent")"},                    // enum (list)
           {"tags", R"(["a","b","c","d"])"},         // maxItems
           {"tags", R"(["a","a"])"},                 // uniqueItems
           {"scores", "[]"},                         // minItems
           {"scores", "[1,2,3,4,5]"},                // maxItems
           {"level", R"("urgent")"},                 // enum (described)
           {"note", "null"},                         // not nullable
           {"floor", "41"},                          // maximum
           {"maxTokens", "1.5"},                     // JSON name, type
       }) {
    object o = valid;
    o[key] = j(bad);
    const auto r = call(w, "book", o);
    EXPECT_EQ(r.at("result").at("isError"), true) << key << "=" << bad << ": " << r;
    EXPECT_NE(text_of(r).find(std::string("/") + key), std::string::npos) << text_of(r);
  }
  EXPECT_EQ(ran, 1);  // no bad call reached the handler
}

}  // namespace
