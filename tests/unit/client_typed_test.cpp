// mcp/client.hpp: typed tools/call and the client's outputSchema checks, against a real server
// and against a scripted one that breaks its own contract.
#include <mcp/client.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>

namespace {

using mcp::json::object;

struct forecast_in {
  std::string city;
  int days = 3;
};
MCP_FIELDS(forecast_in, (city, {.min_length = 1}), (days, {.minimum = 1, .maximum = 16}))

struct forecast_out {
  std::string city;
  double high = 0;
};
MCP_FIELDS(forecast_out, (city), (high, {.maximum = 60}))

struct wire_pair {
  explicit wire_pair(mcp::server& s) {
    auto [server_end, client_end] = mcp::make_memory_pair();
    session = s.open_session(server_end);
    server_end->on_receive([ss = session](std::string_view m) { ss->receive(m); });
    client = std::make_unique<mcp::client_session>(client_end);
    client_end->on_receive([c = client.get()](std::string_view m) { c->receive(m); });
    EXPECT_TRUE(client->initialize());
  }
  std::shared_ptr<mcp::server_session> session;
  std::unique_ptr<mcp::client_session> client;
};

/// A server with the fixtures (a server is pinned: it is handed around by pointer).
std::unique_ptr<mcp::server> make_server() {
  auto owner =
      std::make_unique<mcp::server>(mcp::server_options{.info = {.name = "srv", .version = "1"}});
  auto& s = *owner;
  s.add_tool({.name = "forecast", .description = "d"},
             [](const forecast_in& in) -> mcp::result<forecast_out> {
               if (in.city == "Atlantis") return mcp::error{400, "no such city"};
               return forecast_out{.city = in.city, .high = 10.0 + in.days};
             });
  s.add_tool({.name = "greet", .description = "d"},
             [](const forecast_in& in) { return "hello " + in.city; });
  return owner;
}

TEST(client_typed, encodes_the_input_and_decodes_the_structured_result) {
  auto owner = make_server();
  auto& s = *owner;
  wire_pair w(s);
  auto r = w.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo", .days = 5});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok()) << r->tool_error();
  EXPECT_EQ(r->value().city, "Oslo");
  EXPECT_EQ(r->value().high, 15.0);
  EXPECT_TRUE(r->raw().contains("structuredContent"));
}

TEST(client_typed, a_tool_error_is_a_reply_not_a_protocol_error) {
  auto owner = make_server();
  auto& s = *owner;
  wire_pair w(s);
  auto r = w.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Atlantis"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->ok());
  EXPECT_NE(r->tool_error().find("no such city"), std::string::npos) << r->tool_error();
  // Invalid arguments are a tool error too (the server validates them).
  auto bad = w.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo", .days = 20});
  ASSERT_TRUE(bad);
  EXPECT_FALSE(bad->ok());
  EXPECT_NE(bad->tool_error().find("/days"), std::string::npos) << bad->tool_error();
  // An unknown tool is a protocol error.
  auto unknown = w.client->call_tool<forecast_out>("nope", forecast_in{.city = "Oslo"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, -32602);
}

TEST(client_typed, a_text_tool_decodes_as_a_string) {
  auto owner = make_server();
  auto& s = *owner;
  wire_pair w(s);
  auto r = w.client->call_tool<std::string>("greet", forecast_in{.city = "Oslo"});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok());
  EXPECT_EQ(r->value(), "hello Oslo");
}

/// A server that answers tools/list and tools/call with what the test scripts.
struct scripted_server {
  scripted_server() {
    auto [server_end, client_end] = mcp::make_memory_pair();
    end = server_end;
    server_end->on_receive([this](std::string_view text) {
      auto msg = mcp::json::parse(text).as_object();
      const auto* id = msg.if_contains("id");
      if (id == nullptr) return;
      std::string method(msg.at("method").as_string());
      object result;
      if (method == "initialize") {
        result = object{{"protocolVersion", "2025-11-25"},
                        {"capabilities", object{{"tools", object{}}}},
                        {"serverInfo", object{{"name", "scripted"}, {"version", "1"}}}};
      } else if (method == "tools/list") {
        ++lists;
        result = object{{"tools", mcp::json::array{tool}}};
      } else if (method == "tools/call") {
        result = call_result;
      }
      end->send(mcp::json::serialize(object{{"jsonrpc", "2.0"}, {"id", *id}, {"result", result}}),
                {});
    });
    client = std::make_unique<mcp::client_session>(client_end);
    client_end->on_receive([c = client.get()](std::string_view m) { c->receive(m); });
    EXPECT_TRUE(client->initialize());
  }
  std::shared_ptr<mcp::memory_connection> end;
  std::unique_ptr<mcp::client_session> client;
  object tool{{"name", "forecast"},
              {"inputSchema", object{{"type", "object"}}},
              {"outputSchema", mcp::json::parse(R"({"type":"object","properties":{"high":
                                  {"type":"number"}},"required":["high"]})")}};
  object call_result;
  std::atomic<int> lists{0};
};

/// The client's refusal of structuredContent whose `high` breaks the scripted outputSchema.
void expect_refused_at_high(const mcp::error& e) {
  EXPECT_EQ(e.code, -32602);
  EXPECT_NE(e.message.find("does not match its outputSchema"), std::string::npos) << e.message;
  ASSERT_TRUE(e.data);
  EXPECT_EQ(e.data->at("path"), "/high");
}

TEST(client_typed, structured_content_breaking_the_output_schema_is_refused) {
  scripted_server s;
  s.call_result = object{{"content", mcp::json::array{}},
                         {"structuredContent", object{{"city", "Oslo"}, {"high", "warm"}}}};
  auto r = s.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"});
  ASSERT_FALSE(r);
  expect_refused_at_high(r.error());
  EXPECT_EQ(s.lists.load(), 1);  // the typed call listed the tools to learn the schema
  // The untyped call checks too, now that the schema is known, without listing again.
  auto raw = s.client->call_tool("forecast", object{{"city", "Oslo"}});
  ASSERT_FALSE(raw);
  EXPECT_EQ(raw.error().code, -32602);
  EXPECT_EQ(s.lists.load(), 1);
}

TEST(client_typed, missing_structured_content_and_undecodable_results_are_refused) {
  scripted_server s;
  s.call_result = object{{"content", mcp::json::array{}}};
  auto missing = s.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no structuredContent"), std::string::npos);
  // Valid for the server's schema, but not for the caller's type (`high` is at most 60).
  s.call_result = object{{"content", mcp::json::array{}},
                         {"structuredContent", object{{"city", "Oslo"}, {"high", 99}}}};
  auto out_of_range = s.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"});
  ASSERT_FALSE(out_of_range);
  EXPECT_EQ(out_of_range.error().code, -32602);
  EXPECT_NE(out_of_range.error().message.find("/high"), std::string::npos)
      << out_of_range.error().message;
}

TEST(client_typed, an_output_schema_that_does_not_compile_is_reported) {
  scripted_server s;
  s.tool["outputSchema"] = object{{"type", "object"}, {"pattern", 5}, {"minLength", -1}};
  s.call_result = object{{"content", mcp::json::array{}}, {"structuredContent", object{}}};
  auto r = s.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("does not compile"), std::string::npos) << r.error().message;
  // A server's pattern nesting 30,000 groups (once a stack overflow in the client) is refused.
  s.tool["outputSchema"] =
      object{{"type", "object"},
             {"properties", object{{"city", object{{"type", "string"},
                                                   {"pattern", std::string(30000, '(') + "a" +
                                                                   std::string(30000, ')')}}}}}};
  s.end->send(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})", {});
  auto deep = s.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"});
  ASSERT_FALSE(deep);
  EXPECT_NE(deep.error().message.find("nests groups"), std::string::npos) << deep.error().message;
}

TEST(client_typed, list_changed_makes_the_next_typed_call_list_again) {
  scripted_server s;
  s.call_result = object{{"content", mcp::json::array{}},
                         {"structuredContent", object{{"city", "Oslo"}, {"high", 12}}}};
  ASSERT_TRUE(s.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"}));
  ASSERT_TRUE(s.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"}));
  EXPECT_EQ(s.lists.load(), 1);
  s.end->send(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})", {});
  auto r = s.client->call_tool<forecast_out>("forecast", forecast_in{.city = "Oslo"});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok());
  EXPECT_EQ(r->value().high, 12.0);
  EXPECT_EQ(s.lists.load(), 2);
}

TEST(client_typed, an_async_call_checks_structured_content_once_the_schema_is_listed) {
  scripted_server s;
  s.call_result = object{{"content", mcp::json::array{}},
                         {"structuredContent", object{{"city", "Oslo"}, {"high", "warm"}}}};
  const auto async_call = [&] {
    std::promise<mcp::result<object>> outcome;
    EXPECT_NE(
        s.client->call_tool_async("forecast", object{{"city", "Oslo"}},
                                  [&](mcp::result<object> r) { outcome.set_value(std::move(r)); }),
        0);
    auto done = outcome.get_future();
    EXPECT_EQ(done.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    return done.get();
  };
  // No listing yet, and an async call fetches none: the result is not checked.
  ASSERT_TRUE(async_call());
  EXPECT_EQ(s.lists.load(), 0);
  // Listed: the same result is refused as a blocking call refuses it.
  ASSERT_TRUE(s.client->tools());
  auto r = async_call();
  ASSERT_FALSE(r);
  expect_refused_at_high(r.error());
  s.call_result = object{{"content", mcp::json::array{}}};
  auto missing = async_call();
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no structuredContent"), std::string::npos);
  s.call_result = object{{"content", mcp::json::array{}},
                         {"structuredContent", object{{"city", "Oslo"}, {"high", 12}}}};
  auto ok = async_call();
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->at("structuredContent").as_object().at("high"), 12);
  EXPECT_EQ(s.lists.load(), 1);
}

}  // namespace
