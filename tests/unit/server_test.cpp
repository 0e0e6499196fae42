// Wire-level tests of mcp/server.hpp: lifecycle, negotiation, tools/list, tools/call, the two
// error channels and protocol eras (calls in flight: server_flow_test.cpp).
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include "support/wire.hpp"
#include "unit/server_fixture.hpp"

namespace {

using mcp::json::object;
using mcp::json::value;
using mcp::test::add_echo;
using mcp::test::j;
using mcp::test::make_server;
using mcp::test::wire;
using namespace std::chrono_literals;

TEST(server, initialize_result_is_exact) {
  auto s = make_server();
  wire w(s);
  auto r = w.initialize();
  EXPECT_EQ(r, j(R"({"jsonrpc":"2.0","id":0,"result":{
    "protocolVersion":"2025-11-25",
    "capabilities":{"logging":{}},
    "serverInfo":{"name":"test-server","version":"1.2.3","title":"Test",
      "description":"A server under test","websiteUrl":"https://example.com",
      "icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"]}]},
    "instructions":"Be nice."}})"));
  EXPECT_TRUE(w.session().initialized());
  EXPECT_EQ(w.session().protocol_version(), "2025-11-25");
}

TEST(server, negotiates_supported_versions_and_counter_offers_unknown_ones) {
  auto s = make_server();
  for (const char* v : {"2025-06-18", "2025-03-26", "2024-11-05"}) {
    wire w(s);
    auto r = w.initialize(v);
    EXPECT_EQ(r.at("result").at("protocolVersion"), v);
  }
  wire w(s);
  auto r = w.initialize("1999-01-01");
  EXPECT_EQ(r.at("result").at("protocolVersion"), "2025-11-25");
  // Older eras get only the fields they define.
  wire old(s);
  auto o = old.initialize("2025-03-26");
  EXPECT_FALSE(o.at("result").at("serverInfo").as_object().contains("title"));
  EXPECT_FALSE(o.at("result").at("serverInfo").as_object().contains("icons"));
}

TEST(server, requests_before_initialize_get_an_error_but_ping_works) {
  auto s = make_server();
  wire w(s);
  EXPECT_EQ(w.call("ping", {}, 5), j(R"({"jsonrpc":"2.0","id":5,"result":{}})"));
  auto r = w.call("tools/list", {}, 6);
  EXPECT_EQ(r.at("id"), 6);
  EXPECT_EQ(r.at("error").at("code"), -32600);
  // initialize twice is refused.
  w.initialize();
  auto again = w.call("initialize", object{{"protocolVersion", "2025-11-25"}}, 7);
  EXPECT_EQ(again.at("error").at("code"), -32600);
  auto bad = mcp::test::wire(s).call("initialize", object{{"capabilities", object{}}}, 8);
  EXPECT_EQ(bad.at("error").at("code"), -32602);
}

TEST(server, unknown_method_is_method_not_found) {
  auto s = make_server();
  wire w(s);
  w.initialize();
  auto r = w.call("resources/list", {}, "abc");
  EXPECT_EQ(r.at("id"), "abc");
  EXPECT_EQ(r.at("error").at("code"), -32601);
}

TEST(server, malformed_messages_get_the_right_codes_and_the_session_keeps_serving) {
  auto s = make_server();
  wire w(s);
  w.initialize();
  struct bad_case {
    const char* text;
    int code;
    bool has_id;
  };
  for (const auto& c : {
           bad_case{"{not json", -32700, false},
           bad_case{"\"\xff\xfe\"", -32700, false},
           bad_case{R"({"jsonrpc":"1.0","id":1,"method":"ping"})", -32600, true},
           bad_case{R"({"id":1,"method":"ping"})", -32600, true},
           bad_case{R"({"jsonrpc":"2.0","id":null,"method":"ping"})", -32600, false},
           bad_case{R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", -32600, false},
           bad_case{R"({"jsonrpc":"2.0","id":true,"method":"ping"})", -32600, false},
           bad_case{R"({"jsonrpc":"2.0","id":2})", -32600, true},
           bad_case{R"({"jsonrpc":"2.0","id":3,"method":7})", -32600, true},
           bad_case{R"({"jsonrpc":"2.0","id":4,"method":"ping","params":[1]})", -32600, true},
           bad_case{"[]", -32600, false},
           bad_case{R"([{"jsonrpc":"2.0","id":9,"method":"ping"}])", -32600, false},
           bad_case{"42", -32600, false},
       }) {
    w.send(c.text);
    auto r = w.next();
    ASSERT_TRUE(r) << c.text;
    EXPECT_EQ(r->at("error").at("code"), c.code) << c.text;
    EXPECT_EQ(r->as_object().contains("id"), c.has_id) << c.text;
    EXPECT_EQ(w.call("ping", {}, 100).at("result"), object{}) << "after " << c.text;
  }
}

TEST(server, deep_nesting_is_refused_not_crashed) {
  auto s = make_server();
  wire w(s);
  w.initialize();
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)";
  deep += std::string(10000, '[') + std::string(10000, ']') + "}}";
  w.send(deep);
  auto r = w.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->at("error").at("code"), -32600);
  EXPECT_EQ(w.call("ping", {}, 2).at("result"), object{});
}

TEST(server, notifications_are_never_answered) {
  auto s = make_server();
  wire w(s);
  w.initialize();
  w.send(R"({"jsonrpc":"2.0","method":"notifications/unknown"})");
  w.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}})");
  w.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}})");
  EXPECT_EQ(w.call("ping", {}, 1), j(R"({"jsonrpc":"2.0","id":1,"result":{}})"));
  EXPECT_EQ(w.pending(), 0U);
}

TEST(server, tools_list_pages_with_opaque_cursors) {
  auto s = make_server(2);
  for (int i = 0; i < 5; ++i) add_echo(s, "t" + std::to_string(i));
  wire w(s);
  w.initialize();
  std::vector<std::string> names;
  std::optional<std::string> cursor;
  int pages = 0;
  do {
    object p;
    if (cursor) p["cursor"] = *cursor;
    auto r = w.call("tools/list", p, pages);
    const auto& res = r.at("result").as_object();
    for (const auto& t : res.at("tools").as_array()) {
      names.emplace_back(t.at("name").as_string());
      EXPECT_TRUE(t.as_object().contains("inputSchema"));
      EXPECT_TRUE(t.as_object().contains("description"));
    }
    cursor.reset();
    if (const auto* n = res.if_contains("nextCursor")) cursor = std::string(n->as_string());
    ++pages;
  } while (cursor && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(names, (std::vector<std::string>{"t0", "t1", "t2", "t3", "t4"}));
}

TEST(server, pages_stay_consistent_while_tools_change) {
  auto s = make_server(2);
  for (int i = 0; i < 4; ++i) add_echo(s, "t" + std::to_string(i));
  wire w(s);
  w.initialize();
  auto first = w.call("tools/list", {}, 1);
  const std::string cursor(first.at("result").at("nextCursor").as_string());
  s.remove_tool("t1");  // already listed
  s.remove_tool("t2");  // not yet listed
  add_echo(s, "t9");
  auto second = w.call("tools/list", object{{"cursor", cursor}}, 2);
  std::vector<std::string> names;
  for (const auto& t : second.at("result").at("tools").as_array()) {
    names.emplace_back(t.at("name").as_string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"t3", "t9"}));
}

TEST(server, invalid_or_stale_cursor_is_invalid_params) {
  auto s = make_server(1);
  add_echo(s, "a");
  add_echo(s, "b");
  auto other = make_server(1);
  add_echo(other, "a");
  add_echo(other, "b");
  wire wo(other);
  wo.initialize();
  const std::string foreign(wo.call("tools/list", {}, 1).at("result").at("nextCursor").as_string());
  wire w(s);
  w.initialize();
  for (const value& c : {value("garbage!"), value("Zm9v"), value(foreign), value(12)}) {
    auto r = w.call("tools/list", object{{"cursor", c}}, 3);
    EXPECT_EQ(r.at("error").at("code"), -32602) << mcp::to_json_string(c);
  }
}

TEST(server, tools_call_protocol_errors) {
  auto s = make_server();
  add_echo(s);
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("tools/call", object{{"name", "nope"}}).at("error"),
            j(R"({"code":-32602,"message":"Unknown tool: nope"})"));
  EXPECT_EQ(w.call("tools/call", object{}).at("error").at("code"), -32602);
  EXPECT_EQ(w.call("tools/call", object{{"name", 3}}).at("error").at("code"), -32602);
  EXPECT_EQ(
      w.call("tools/call", object{{"name", "echo"}, {"arguments", "x"}}).at("error").at("code"),
      -32602);
  EXPECT_EQ(w.call("tools/call", object{{"name", "echo"}, {"arguments", mcp::json::array{}}})
                .at("error")
                .at("code"),
            -32602);
}

TEST(server, arguments_failing_the_input_schema_are_a_tool_error_naming_the_field) {
  auto s = make_server();
  add_echo(s);
  wire w(s);
  w.initialize();
  auto r = w.call("tools/call", object{{"name", "echo"}, {"arguments", object{{"text", 5}}}});
  const auto& res = r.at("result");
  EXPECT_EQ(res.at("isError"), true);
  const std::string text(res.at("content").at(0).at("text").as_string());
  EXPECT_NE(text.find("echo"), std::string::npos) << text;
  EXPECT_NE(text.find("/text"), std::string::npos) << text;
  EXPECT_NE(text.find("string"), std::string::npos) << text;
  // Missing arguments means {}: the required property is reported.
  auto m = w.call("tools/call", object{{"name", "echo"}}, 2);
  EXPECT_EQ(m.at("result").at("isError"), true);
  const std::string mt(m.at("result").at("content").at(0).at("text").as_string());
  EXPECT_NE(mt.find("text"), std::string::npos) << mt;
}

TEST(server, handler_exceptions_and_errors) {
  auto s = make_server();
  s.add_tool({.name = "throws", .description = "throws"},
             [](mcp::tool_context&, const object&) -> mcp::call_tool_result {
               throw std::runtime_error("disk on fire");
             });
  s.add_async_tool({.name = "protocol_error", .description = "fails"},
                   [](mcp::tool_context&, const object&, const mcp::responder& done) {
                     done.fail(mcp::error{mcp::errc::internal_error, "backend unavailable"});
                   });
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("tools/call", object{{"name", "throws"}}).at("result"),
            j(R"({"content":[{"type":"text","text":"disk on fire"}],"isError":true})"));
  EXPECT_EQ(w.call("tools/call", object{{"name", "protocol_error"}}).at("error"),
            j(R"({"code":-32603,"message":"backend unavailable"})"));
}

TEST(server, structured_content_is_checked_against_the_output_schema) {
  auto s = make_server();
  const object out_schema{{"type", "object"},
                          {"properties", object{{"n", object{{"type", "integer"}}}}},
                          {"required", mcp::json::array{"n"}}};
  s.add_tool({.name = "good", .description = "d", .output_schema = out_schema},
             [](mcp::tool_context&, const object&) {
               mcp::call_tool_result r;
               r.structured_content = object{{"n", 1}};
               r.content.push_back(mcp::text_content(R"({"n":1})"));
               return r;
             });
  s.add_tool({.name = "bad", .description = "d", .output_schema = out_schema},
             [](mcp::tool_context&, const object&) {
               mcp::call_tool_result r;
               r.structured_content = object{{"n", "one"}};
               return r;
             });
  s.add_tool({.name = "missing", .description = "d", .output_schema = out_schema},
             [](mcp::tool_context&, const object&) { return mcp::call_tool_result{}; });
  s.add_tool({.name = "error_ok", .description = "d", .output_schema = out_schema},
             [](mcp::tool_context&, const object&) { return mcp::tool_error_result("nope"); });
  // A typed tool's text output has no structuredContent either: refused the same way, also
  // where the answer would be written from the text alone.
  s.add_tool({.name = "text", .description = "d", .output_schema = out_schema, .run_inline = true},
             [](const object&) -> std::string { return R"({"n":1})"; });
  s.add_tool({.name = "text_pool", .description = "d", .output_schema = out_schema},
             [](const object&) -> std::string { return R"({"n":1})"; });
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("tools/call", object{{"name", "good"}}).at("result").at("structuredContent"),
            j(R"({"n":1})"));
  auto bad = w.call("tools/call", object{{"name", "bad"}});
  EXPECT_EQ(bad.at("error").at("code"), -32603);
  EXPECT_NE(std::string(bad.at("error").at("message").as_string()).find("/n"), std::string::npos);
  EXPECT_EQ(w.call("tools/call", object{{"name", "missing"}}).at("error").at("code"), -32603);
  EXPECT_EQ(w.call("tools/call", object{{"name", "error_ok"}}).at("result").at("isError"), true);
  for (const char* name : {"text", "text_pool"}) {
    auto text = w.call("tools/call", object{{"name", name}});
    ASSERT_TRUE(text.as_object().contains("error")) << name;
    EXPECT_EQ(text.at("error").at("code"), -32603);
    EXPECT_NE(std::string(text.at("error").at("message").as_string()).find("no structuredContent"),
              std::string::npos);
  }
}

TEST(server, registration_errors_throw) {
  auto s = make_server();
  add_echo(s);
  EXPECT_THROW(add_echo(s), std::invalid_argument);  // duplicate
  for (const std::string& bad :
       std::vector<std::string>{"", "has space", "comma,", "slash/", std::string(129, 'a')}) {
    EXPECT_THROW(add_echo(s, bad), std::invalid_argument) << bad;
  }
  add_echo(s, std::string(128, 'a'));
  add_echo(s, "a.b-c_D9");
  auto raw = [](mcp::tool_context&, const object&) { return mcp::call_tool_result{}; };
  EXPECT_THROW(s.add_tool({.name = "arr", .input_schema = object{{"type", "array"}}}, raw),
               std::invalid_argument);
  EXPECT_THROW(s.add_tool({.name = "bad_schema",
                           .input_schema = object{{"type", "object"}, {"minProperties", "x"}}},
                          raw),
               std::invalid_argument);
  EXPECT_THROW(s.add_tool({.name = "out", .output_schema = object{{"type", "string"}}}, raw),
               std::invalid_argument);
}

TEST(server, tool_object_fields_per_era) {
  auto s = make_server();
  s.add_tool({.name = "full",
              .title = "Full",
              .description = "All fields",
              .icons = {{.src = "data:image/png;base64,AAAA", .theme = "dark"}},
              .output_schema = object{{"type", "object"}},
              .annotations = {.read_only_hint = false, .open_world_hint = true},
              .task_support_mode = mcp::task_support::forbidden,
              .meta = object{{"com.example/x", 1}}},
             [](mcp::tool_context&, const object&) {
               mcp::call_tool_result r;
               r.structured_content = object{};
               return r;
             });
  wire w(s);
  w.initialize();
  EXPECT_EQ(w.call("tools/list").at("result").at("tools").at(0), j(R"({
    "name":"full","title":"Full","description":"All fields",
    "icons":[{"src":"data:image/png;base64,AAAA","theme":"dark"}],
    "inputSchema":{"type":"object"},"outputSchema":{"type":"object"},
    "annotations":{"readOnlyHint":false,"openWorldHint":true},
    "execution":{"taskSupport":"forbidden"},"_meta":{"com.example/x":1}})"));
  wire old(s);
  old.initialize("2025-03-26");
  EXPECT_EQ(old.call("tools/list").at("result").at("tools").at(0), j(R"({
    "name":"full","description":"All fields","inputSchema":{"type":"object"},
    "annotations":{"readOnlyHint":false,"openWorldHint":true}})"));
  auto r = old.call("tools/call", object{{"name", "full"}}, 2);
  EXPECT_FALSE(r.at("result").as_object().contains("structuredContent"));
  wire oldest(s);
  oldest.initialize("2024-11-05");
  EXPECT_EQ(oldest.call("tools/list").at("result").at("tools").at(0),
            j(R"({"name":"full","description":"All fields","inputSchema":{"type":"object"}})"));
}

}  // namespace
