// mcp/tool.hpp: what a handler sees. Typed elicitation (`ctx.elicit<T>`) and sampling
// (`ctx.sample`), driven at the wire: the test answers the server's requests as a client would.
#include <mcp/server.hpp>
#include <mcp/tool.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support/wire.hpp"

namespace tool_test {

enum class status { active, inactive, pending };
BOOST_DESCRIBE_ENUM(status, active, inactive, pending)
enum class topping { cheese, olives, basil };
BOOST_DESCRIBE_ENUM(topping, cheese, olives, basil)

struct profile {
  std::string name = "John Doe";
  int age = 30;
  double score = 95.5;
  status state = status::active;
  bool verified = true;
  std::optional<std::string> email;
  std::vector<topping> toppings;
};
MCP_FIELDS(profile, (name, {.description = "User name", .defaulted = true, .max_length = 40}),
           (age, {.title = "Age", .defaulted = true, .minimum = 0, .maximum = 150}),
           (score, {.description = "User score", .defaulted = true}),
           (state, {.name = "status", .defaulted = true}), (verified, {.defaulted = true}),
           (email, {.format = "email"}), (toppings, {.defaulted = true, .max_items = 2}))

}  // namespace tool_test

namespace {

using mcp::json::object;
using mcp::test::j;
using mcp::test::wire;
using namespace tool_test;

/// A server with the fixtures (a server is pinned: it is handed around by pointer).
std::unique_ptr<mcp::server> make_server() {
  auto owner = std::make_unique<mcp::server>();
  auto& s = *owner;
  s.add_tool({.name = "ask", .description = "Asks for a profile"},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               auto r = ctx.elicit<profile>("Please confirm your profile");
               if (!r) return r.error();
               if (!r->accepted()) {
                 return r->action == mcp::elicit_action::decline ? "declined" : "cancelled";
               }
               const profile& p = *r->content;
               return p.name + "," + std::to_string(p.age) + "," + std::to_string(p.score) + "," +
                      (p.state == status::pending ? "pending" : "other") + "," +
                      (p.verified ? "yes" : "no") + "," + std::to_string(p.toppings.size());
             });
  s.add_tool({.name = "poem", .description = "Asks the client's model"},
             [](mcp::tool_context& ctx) -> mcp::result<std::string> {
               return ctx.sample("Write a haiku", {.system_prompt = "Be brief",
                                                   .max_tokens = 50,
                                                   .temperature = 0.5,
                                                   .model_hints = {"small"}});
             });
  return owner;
}

/// Starts tools/call `name`, answers the server's request to the client with `result`, and
/// returns {the request, the tools/call response}.
std::pair<mcp::json::value, mcp::json::value> answer(wire& w, std::string_view name,
                                                     mcp::json::value result) {
  w.send(object{
      {"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/call"}, {"params", object{{"name", name}}}});
  auto request = w.next();
  if (!request || !request->as_object().contains("method")) return {};
  w.send(object{{"jsonrpc", "2.0"}, {"id", request->at("id")}, {"result", std::move(result)}});
  auto response = w.next_response();
  return {*request, response ? *response : mcp::json::value()};
}

std::string text_of(const mcp::json::value& response) {
  return std::string(response.at("result").at("content").at(0).at("text").as_string());
}

TEST(tool_context, elicit_sends_the_form_of_a_flat_struct) {
  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  w.initialize("2025-11-25", object{{"elicitation", object{}}});
  auto [request, response] =
      answer(w, "ask", j(R"({"action":"accept","content":{"name":"Ada","status":"pending"}})"));
  ASSERT_TRUE(request.is_object());
  EXPECT_EQ(request.at("method"), "elicitation/create");
  EXPECT_EQ(request.at("params"), j(R"({"message":"Please confirm your profile","requestedSchema":{
    "type":"object","properties":{
      "name":{"type":"string","description":"User name","maxLength":40,"default":"John Doe"},
      "age":{"type":"integer","title":"Age","minimum":0,"maximum":150,"default":30},
      "score":{"type":"number","description":"User score","default":95.5},
      "status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
      "verified":{"type":"boolean","default":true},
      "email":{"type":"string","format":"email"},
      "toppings":{"type":"array","items":{"type":"string","enum":["cheese","olives","basil"]},
                  "maxItems":2,"default":[]}}}})"));
  // What the user left out keeps its default.
  EXPECT_EQ(text_of(response), "Ada,30,95.500000,pending,yes,0");
}

TEST(tool_context, elicit_reports_declines_and_checks_the_answer) {
  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  w.initialize("2025-11-25", object{{"elicitation", object{}}});
  EXPECT_EQ(text_of(answer(w, "ask", j(R"({"action":"decline"})")).second), "declined");
  EXPECT_EQ(text_of(answer(w, "ask", j(R"({"action":"cancel"})")).second), "cancelled");
  auto [req, bad] = answer(w, "ask", j(R"({"action":"accept","content":{"age":200}})"));
  // The answer is validated like tool arguments. The handler returns the error (-32602), and
  // by the error rule the model reads it: an isError result naming the field.
  EXPECT_TRUE(bad.at("result").at("isError").as_bool()) << mcp::to_json_string(bad);
  EXPECT_EQ(text_of(bad),
            "the client's elicitation answer does not match the form: /age: 200 is greater than "
            "the maximum 150");
  auto [req2, no_action] = answer(w, "ask", j(R"({"content":{}})"));
  EXPECT_TRUE(no_action.at("result").at("isError").as_bool()) << mcp::to_json_string(no_action);
  EXPECT_EQ(text_of(no_action),
            "the client's elicitation answer has no action accept, decline or cancel");
}

TEST(tool_context, elicit_needs_the_capability) {
  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  w.initialize();
  auto r = w.call("tools/call", object{{"name", "ask"}});
  EXPECT_TRUE(r.at("result").at("isError").as_bool()) << mcp::to_json_string(r);
  EXPECT_NE(text_of(r).find("elicitation"), std::string::npos) << text_of(r);
}

TEST(tool_context, sample_returns_the_text_of_the_answer) {
  auto owner = make_server();
  auto& s = *owner;
  wire w(s);
  w.initialize("2025-11-25", object{{"sampling", object{}}});
  auto [request, response] =
      answer(w, "poem",
             j(R"({"role":"assistant","content":{"type":"text","text":"Old pond"},"model":"m"})"));
  EXPECT_EQ(request.at("method"), "sampling/createMessage");
  EXPECT_EQ(request.at("params"), j(R"({
    "messages":[{"role":"user","content":{"type":"text","text":"Write a haiku"}}],
    "maxTokens":50,"systemPrompt":"Be brief","temperature":0.5,
    "modelPreferences":{"hints":[{"name":"small"}]}})"));
  EXPECT_EQ(text_of(response), "Old pond");
  // 2025-11-25 answers may hold a list of blocks; the text blocks are joined.
  auto [r2, blocks] = answer(w, "poem", j(R"({"role":"assistant","model":"m","content":[
      {"type":"text","text":"a"},{"type":"image","data":"","mimeType":"image/png"},
      {"type":"text","text":"b"}]})"));
  EXPECT_EQ(text_of(blocks), "ab");
  auto [r3, image] = answer(w, "poem", j(R"({"role":"assistant","model":"m",
      "content":{"type":"image","data":"","mimeType":"image/png"}})"));
  EXPECT_EQ(image.at("result"), j(R"({"content":[{"type":"text",
      "text":"the client's sampling answer holds no text"}],"isError":true})"))
      << mcp::to_json_string(image);
}

}  // namespace
