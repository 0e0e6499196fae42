// The 2026-07-28 revision over Streamable HTTP, at the wire on real sockets (127.0.0.1): the
// headers that must agree with the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-*), each disagreement on its own with its HTTP status and JSON-RPC error; an input
// round end to end (input_required, the retry, and the retries that must be refused); and both
// eras served by one http_server at once.
#include <mcp/http_server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "http_test_util.hpp"
#include "modern_util.hpp"

namespace mcp_test {
namespace {

class ModernHttp : public http_fixture {
 protected:
  ModernHttp() : http_fixture(options()) {}
  static mcp::server_options options(bool single_use = false) {
    mcp::server_options o{.info = {.name = "http-test", .version = "1"}};
    o.input_rounds.single_use = single_use;
    return o;
  }
  explicit ModernHttp(mcp::server_options o) : http_fixture(std::move(o)) {}
  void start_modern() {
    add_modern_tools(server_);
    start();
  }
  response post(const std::string& body, const header_list& h) {
    return request(port_, "POST", body, h);
  }
  /// Expects 400 with a -32020 answer to the request with id `id`.
  static void expect_mismatch(const response& r, const std::string& id, const std::string& what) {
    EXPECT_EQ(r.status, 400U) << what << ": " << r.body;
    const auto a = answer_of(r);
    EXPECT_EQ(error_code(a), -32020) << what << ": " << r.body;
    EXPECT_NE(error_message(a).find("Header mismatch"), std::string::npos) << what;
    const auto* o = a.if_object();
    ASSERT_NE(o, nullptr) << what;
    ASSERT_NE(o->if_contains("id"), nullptr) << what;
    EXPECT_EQ(mcp::to_json_string(o->at("id")), id) << what;
  }
};

// --- the standard headers ----------------------------------------------------------------

TEST_F(ModernHttp, AStatelessCallWithAgreeingHeadersIsAnswered) {
  start_modern();
  auto r = post(modern_call("1", "echo", R"({"text":"hi"})"), modern_headers("tools/call", "echo"));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_TRUE(r.header("mcp-session-id").empty());  // no session is minted
  EXPECT_EQ(r.header("x-accel-buffering"), "no");
  const auto res = result_of(answer_of(r));
  EXPECT_EQ(first_text(res), "hi") << r.body;
  EXPECT_EQ(res.at("resultType"), "complete");
  EXPECT_EQ(res.at("_meta").at("io.modelcontextprotocol/serverInfo").at("name"), "http-test");
  EXPECT_EQ(http_->session_count(), 0U);
}

// The request's `_meta` reaches the tool as sent, member for member and in order, whether the
// body is read without a document (a plain call: src/detail/call_scan.hpp) or parsed (an
// escape in the arguments sends it the general way).
TEST_F(ModernHttp, TheRequestMetaReachesTheToolAsSent) {
  server_.add_tool({.name = "meta", .description = "its request's _meta", .run_inline = true},
                   [](mcp::tool_context& ctx, const text_in& in) -> std::string {
                     return in.text + mcp::to_json_string(mcp::json::value(ctx.request_meta()));
                   });
  start_modern();
  const std::string meta =
      R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":7,)"
      R"("io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},)"
      R"("io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"x":{"y":null,"z":-2}})";
  const auto h = modern_headers("tools/call", "meta");
  auto plain = post(modern_call("1", "meta", R"({"text":"A"})", {}, meta), h);
  auto parsed = post(modern_call("2", "meta", R"({"text":"A"})", {}, meta), h);
  ASSERT_EQ(plain.status, 200U) << plain.body;
  ASSERT_EQ(parsed.status, 200U) << parsed.body;
  const auto seen = first_text(result_of(answer_of(plain)));
  EXPECT_EQ(seen, first_text(result_of(answer_of(parsed))));
  EXPECT_NE(seen.find(R"("progressToken":7,)"), std::string::npos) << seen;
  EXPECT_NE(seen.find(R"("x":{"y":null,"z":-2})"), std::string::npos) << seen;
  EXPECT_EQ(seen.rfind("A{", 0), 0U) << seen;
}

TEST_F(ModernHttp, ASessionIdOnAModernRequestIsIgnored) {
  start_modern();
  auto h = with_header(modern_headers("tools/call", "echo"), "Mcp-Session-Id",
                       "00000000000000000000000000000000");
  auto r = post(modern_call("1", "echo", R"({"text":"hi"})"), h);
  EXPECT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(first_text(result_of(answer_of(r))), "hi") << r.body;
}

TEST_F(ModernHttp, ProtocolVersionHeaderMustBeThereAndAgreeWithMeta) {
  start_modern();
  const auto body = modern_call("7", "echo", R"({"text":"hi"})");
  auto h = modern_headers("tools/call", "echo");
  expect_mismatch(post(body, with_header(h, "MCP-Protocol-Version", "")), "7", "missing");
  expect_mismatch(post(body, with_header(h, "MCP-Protocol-Version", "2025-11-25")), "7",
                  "an older revision in the header");
  // The body names an older revision than the header.
  expect_mismatch(
      post(modern_call("7", "echo", R"({"text":"hi"})", {}, modern_meta("{}", "2025-11-25")), h),
      "7", "an older revision in _meta");
}

TEST_F(ModernHttp, AnUnknownRevisionIs32022WithTheSupportedOnes) {
  start_modern();
  auto r = post(modern_call("3", "echo", R"({"text":"hi"})", {}, modern_meta("{}", "2099-01-01")),
                modern_headers("tools/call", "echo", "2099-01-01"));
  EXPECT_EQ(r.status, 400U) << r.body;
  const auto a = answer_of(r);
  ASSERT_EQ(error_code(a), -32022) << r.body;
  const auto& data = a.at("error").at("data").as_object();
  EXPECT_EQ(data.at("requested"), "2099-01-01");
  bool listed = false;
  for (const auto& v : data.at("supported").as_array()) listed = listed || v == modern_version;
  EXPECT_TRUE(listed) << r.body;
}

TEST_F(ModernHttp, MetaWithoutClientCapabilitiesIs32602And400) {
  start_modern();
  const std::string meta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"})";
  auto r = post(modern_call("4", "echo", R"({"text":"hi"})", {}, meta),
                modern_headers("tools/call", "echo"));
  EXPECT_EQ(r.status, 400U) << r.body;
  const auto a = answer_of(r);
  EXPECT_EQ(error_code(a), -32602) << r.body;
  EXPECT_NE(error_message(a).find("clientCapabilities"), std::string::npos) << r.body;
}

TEST_F(ModernHttp, McpMethodMustBeThereAndEqualTheMethod) {
  start_modern();
  const auto body = modern_call("5", "echo", R"({"text":"hi"})");
  auto h = modern_headers("tools/call", "echo");
  expect_mismatch(post(body, with_header(h, "Mcp-Method", "")), "5", "missing");
  expect_mismatch(post(body, with_header(h, "Mcp-Method", "tools/list")), "5", "another method");
  expect_mismatch(post(body, with_header(h, "Mcp-Method", "TOOLS/CALL")), "5",
                  "values are case-sensitive");
  // Its encoded form is the same value.
  auto r = post(body, with_header(h, "Mcp-Method", "=?base64?dG9vbHMvY2FsbA==?="));
  EXPECT_EQ(r.status, 200U) << r.body;
  // A header name in another case is the same header.
  r = post(body, with_header(with_header(h, "Mcp-Method", ""), "mCP-mEThod", "tools/call"));
  EXPECT_EQ(r.status, 200U) << r.body;
}

TEST_F(ModernHttp, McpNameMustBeThereAndEqualTheToolName) {
  start_modern();
  const auto body = modern_call("6", "echo", R"({"text":"hi"})");
  auto h = modern_headers("tools/call", "echo");
  expect_mismatch(post(body, with_header(h, "Mcp-Name", "")), "6", "missing");
  expect_mismatch(post(body, with_header(h, "Mcp-Name", "route")), "6", "another tool");
  expect_mismatch(post(body, with_header(h, "Mcp-Name", "=?base64?not base64?=")), "6",
                  "a bad sentinel");
  expect_mismatch(post(body, with_header(h, "Mcp-Name", "=?base64?cm91dGU=?=")), "6",
                  "another tool, encoded");
  auto r = post(body, with_header(h, "Mcp-Name", "=?base64?ZWNobw==?="));
  EXPECT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(first_text(result_of(answer_of(r))), "hi") << r.body;
  // tools/list has no name: none is needed, and the answer is cacheable.
  r = post(modern_body("8", "tools/list", ""), modern_headers("tools/list"));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto res = result_of(answer_of(r));
  EXPECT_EQ(res.at("resultType"), "complete");
  EXPECT_TRUE(res.at("ttlMs").is_number()) << r.body;
  EXPECT_TRUE(res.at("cacheScope").is_string()) << r.body;
}

TEST_F(ModernHttp, McpNameMirrorsTheUriOfAReadAndTheNameOfAPrompt) {
  start_modern();
  const auto read = modern_body("12", "resources/read", R"("uri":"test://doc")");
  auto r = post(read, modern_headers("resources/read", "test://doc"));
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto res = result_of(answer_of(r));
  EXPECT_EQ(res.at("contents").at(0).at("text"), "doc text") << r.body;
  EXPECT_EQ(res.at("resultType"), "complete");
  expect_mismatch(post(read, modern_headers("resources/read")), "12", "read without Mcp-Name");
  expect_mismatch(post(read, modern_headers("resources/read", "test://other")), "12",
                  "read of another URI");
  // What is not there is -32602 in this revision (not -32002).
  r = post(modern_body("13", "resources/read", R"("uri":"test://none")"),
           modern_headers("resources/read", "test://none"));
  EXPECT_EQ(error_code(answer_of(r)), -32602) << r.body;

  const auto get = modern_body("14", "prompts/get", R"("name":"hello")");
  r = post(get, modern_headers("prompts/get", "hello"));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_NE(r.body.find("hello there"), std::string::npos) << r.body;
  expect_mismatch(post(get, modern_headers("prompts/get")), "14", "prompt without Mcp-Name");
  expect_mismatch(post(get, modern_headers("prompts/get", "Hello")), "14", "prompt in other case");
  // The tasks extension's methods name their task.
  expect_mismatch(
      post(modern_body("15", "tasks/get", R"("taskId":"t-1")"), modern_headers("tasks/get")), "15",
      "tasks/get without Mcp-Name");
  // A header for a parameter the body lacks.
  expect_mismatch(post(modern_body("16", "tools/call", R"("arguments":{})"),
                       modern_headers("tools/call", "echo")),
                  "16", "tools/call without a name");
}

TEST_F(ModernHttp, ABodyWithoutMetaUnderTheModernHeaderIs32602) {
  start_modern();
  auto r = post(call_body("17", "echo", R"({"text":"hi"})"), modern_headers("tools/call", "echo"));
  EXPECT_EQ(r.status, 400U) << r.body;
  EXPECT_EQ(error_code(answer_of(r)), -32602) << r.body;
}

TEST_F(ModernHttp, ANotificationIs202AndABatchIsRefused) {
  start_modern();
  auto r = post(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})",
                modern_headers("notifications/cancelled"));
  EXPECT_EQ(r.status, 202U) << r.body;
  EXPECT_TRUE(r.body.empty());
  const auto one = modern_call("18", "echo", R"({"text":"hi"})");
  r = post("[" + one + "," + one + "]", modern_headers("tools/call", "echo"));
  EXPECT_EQ(r.status, 400U) << r.body;
  EXPECT_EQ(error_code(answer_of(r)), -32600) << r.body;
}

TEST_F(ModernHttp, AnUnknownMethodIs404With32601) {
  start_modern();
  auto r = post(modern_body("9", "no/such", ""), modern_headers("no/such"));
  EXPECT_EQ(r.status, 404U) << r.body;
  EXPECT_EQ(error_code(answer_of(r)), -32601) << r.body;
  // initialize belongs to the older revisions: not a 2026-07-28 method.
  r = post(modern_body("10", "initialize", ""), modern_headers("initialize"));
  EXPECT_EQ(r.status, 404U) << r.body;
  EXPECT_EQ(error_code(answer_of(r)), -32601) << r.body;
}

TEST_F(ModernHttp, GetAndDeleteAre405) {
  start_modern();
  for (const char* m : {"GET", "DELETE"}) {
    auto r = request(port_, m, "",
                     {{"Accept", "text/event-stream"}, {"MCP-Protocol-Version", modern_version}});
    EXPECT_EQ(r.status, 405U) << m << ": " << r.body;
    EXPECT_EQ(r.header("allow"), "POST") << m;
  }
}

// --- Mcp-Param-* (x-mcp-header) ----------------------------------------------------------

header_list route_headers(const std::string& region, const std::string& priority,
                          const std::string& urgent) {
  auto h = modern_headers("tools/call", "route");
  if (!region.empty()) h.emplace_back("Mcp-Param-Region", region);
  if (!priority.empty()) h.emplace_back("Mcp-Param-Priority", priority);
  if (!urgent.empty()) h.emplace_back("Mcp-Param-Urgent", urgent);
  return h;
}

TEST_F(ModernHttp, ToolsListShowsTheHeaderAnnotations) {
  start_modern();
  auto r = post(modern_body("1", "tools/list", ""), modern_headers("tools/list"));
  ASSERT_EQ(r.status, 200U);
  bool found = false;
  const auto listed = result_of(answer_of(r));
  for (const auto& t : listed.at("tools").as_array()) {
    if (t.at("name") != "route") continue;
    found = true;
    const auto& props = t.at("inputSchema").at("properties");
    EXPECT_EQ(props.at("region").at("x-mcp-header"), "Region");
    EXPECT_EQ(props.at("priority").at("x-mcp-header"), "Priority");
    EXPECT_EQ(props.at("urgent").at("x-mcp-header"), "Urgent");
  }
  EXPECT_TRUE(found) << r.body;
}

TEST_F(ModernHttp, ParamHeadersThatAgreeAreServed) {
  start_modern();
  const auto body = modern_call("1", "route", R"({"region":"eu-west","priority":7,"urgent":true})");
  auto r = post(body, route_headers("eu-west", "7", "true"));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(first_text(result_of(answer_of(r))), "eu-west/7!") << r.body;
  // Integers compare as numbers; header names in any case; the value trimmed.
  auto h = route_headers("", "007", "true");
  h.emplace_back("mcp-param-REGION", "  eu-west\t");
  r = post(body, h);
  EXPECT_EQ(r.status, 200U) << r.body;
  // What a header cannot hold travels base64-encoded: non-ASCII, edge spaces.
  r = post(modern_call("2", "route", R"({"region":"Zürich","priority":-3,"urgent":false})"),
           route_headers("=?base64?WsO8cmljaA==?=", "-3", "false"));
  EXPECT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(first_text(result_of(answer_of(r))), "Zürich/-3") << r.body;
  r = post(modern_call("3", "route", R"({"region":" x ","priority":1,"urgent":false})"),
           route_headers("=?base64?IHgg?=", "1", "false"));
  EXPECT_EQ(r.status, 200U) << r.body;
  // A plain value that looks like the sentinel is encoded too.
  r = post(modern_call("4", "route", R"({"region":"=?base64?eA==?=","priority":1,"urgent":false})"),
           route_headers("=?base64?PT9iYXNlNjQ/ZUE9PT89?=", "1", "false"));
  EXPECT_EQ(r.status, 200U) << r.body;
}

TEST_F(ModernHttp, EachParamHeaderThatDisagreesIs32020) {
  start_modern();
  const auto body =
      modern_call("11", "route", R"({"region":"eu-west","priority":7,"urgent":true})");
  struct bad_case {
    const char* what;
    header_list headers;
  };
  const std::vector<bad_case> cases{
      {"Region missing", route_headers("", "7", "true")},
      {"Priority missing", route_headers("eu-west", "", "true")},
      {"Urgent missing", route_headers("eu-west", "7", "")},
      {"Region differs", route_headers("us-east", "7", "true")},
      {"Region differs in case", route_headers("EU-WEST", "7", "true")},
      {"Priority differs", route_headers("eu-west", "8", "true")},
      {"Priority not an integer", route_headers("eu-west", "7.0", "true")},
      {"Priority in hex", route_headers("eu-west", "0x7", "true")},
      {"Urgent differs", route_headers("eu-west", "7", "false")},
      {"Urgent not lowercase", route_headers("eu-west", "7", "TRUE")},
      {"Region raw non-ASCII", route_headers("eu-w\xc3\xa9st", "7", "true")},
      {"Region bad base64", route_headers("=?base64?%%%?=", "7", "true")},
      {"Region base64 of another value", route_headers("=?base64?dXMtZWFzdA==?=", "7", "true")},
  };
  for (const auto& c : cases) expect_mismatch(post(body, c.headers), "11", c.what);
  // A header for an argument the call does not have.
  expect_mismatch(post(modern_call("11", "route", R"({"priority":7,"urgent":true})"),
                       route_headers("eu-west", "7", "true")),
                  "11", "a header without its argument");
}

TEST_F(ModernHttp, ARepeatedStandardHeaderIsAMismatch) {
  // A header sent twice is one field whose value is both, joined (RFC 9110 5.3): not what the
  // body says, whichever of the two an intermediary reads.
  start_modern();
  const auto body =
      modern_call("19", "route", R"({"region":"eu-west","priority":7,"urgent":true})");
  const auto good = route_headers("eu-west", "7", "true");
  for (const char* name : {"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Param-Region",
                           "Mcp-Param-Priority"}) {
    auto h = good;
    h.emplace_back(name, "other");
    expect_mismatch(post(body, h), "19", std::string(name) + " twice");
    // The same value twice is still two values.
    for (const auto& [k, v] : good) {
      if (k == name) h.back().second = v;
    }
    expect_mismatch(post(body, h), "19", std::string(name) + " twice, equal");
  }
  EXPECT_EQ(post(body, good).status, 200U);
}

// --- an input round ----------------------------------------------------------------------

const std::string elicit_caps = R"({"elicitation":{}})";

/// The first round of greet: its answer's result, which must ask for input.
mcp::json::object first_round(std::uint16_t port, const std::string& tool,
                              const std::string& text) {
  auto r =
      request(port, "POST",
              modern_call("1", tool, R"({"text":")" + text + R"("})", {}, modern_meta(elicit_caps)),
              modern_headers("tools/call", tool));
  EXPECT_EQ(r.status, 200U) << r.body;
  return result_of(answer_of(r));
}

/// The retry of greet with the name "Ada" and `state`, as request `id`.
response retry(std::uint16_t port, const std::string& id, const std::string& tool,
               const std::string& text, const std::string& state) {
  const std::string extra =
      R"("inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}},"requestState":)" +
      mcp::to_json_string(mcp::json::value(mcp::json::string(state)));
  return request(
      port, "POST",
      modern_call(id, tool, R"({"text":")" + text + R"("})", extra, modern_meta(elicit_caps)),
      modern_headers("tools/call", tool));
}

std::string state_of(const mcp::json::object& res) {
  const auto* s = res.if_contains("requestState");
  return s != nullptr && s->is_string() ? std::string(s->get_string()) : std::string();
}

TEST_F(ModernHttp, AnInputRoundEndToEnd) {
  start_modern();
  const auto first = first_round(port_, "greet", "Hello");
  ASSERT_EQ(first.at("resultType"), "input_required") << mcp::to_json_string(first);
  const auto& ask = first.at("inputRequests").at("who").as_object();
  EXPECT_EQ(ask.at("method"), "elicitation/create");
  EXPECT_EQ(ask.at("params").at("message"), "What is your name?");
  EXPECT_TRUE(ask.at("params").at("requestedSchema").at("properties").as_object().contains("name"));
  EXPECT_EQ(first.at("_meta").at("io.modelcontextprotocol/serverInfo").at("name"), "http-test");
  const auto state = state_of(first);
  ASSERT_FALSE(state.empty());
  EXPECT_EQ(state.find("Hello"), std::string::npos);  // sealed: nothing readable in it

  auto r = retry(port_, "2", "greet", "Hello", state);
  ASSERT_EQ(r.status, 200U) << r.body;
  const auto done = result_of(answer_of(r));
  EXPECT_EQ(done.at("resultType"), "complete") << r.body;
  EXPECT_EQ(first_text(done), "Hello, Ada!") << r.body;
  EXPECT_FALSE(done.contains("requestState"));
  // Without single use, the same retry is served again (a client that lost the answer).
  r = retry(port_, "3", "greet", "Hello", state);
  EXPECT_EQ(first_text(result_of(answer_of(r))), "Hello, Ada!") << r.body;
}

TEST_F(ModernHttp, WithoutTheElicitationCapabilityTheCallNeedsIt) {
  start_modern();
  auto r =
      post(modern_call("1", "greet", R"({"text":"Hello"})"), modern_headers("tools/call", "greet"));
  EXPECT_EQ(r.status, 400U) << r.body;
  const auto a = answer_of(r);
  ASSERT_EQ(error_code(a), -32021) << r.body;
  EXPECT_TRUE(
      a.at("error").at("data").at("requiredCapabilities").as_object().contains("elicitation"));
}

TEST_F(ModernHttp, ARoundOpenedOnlyWhenTheHandlerAsksKeepsItsStateAndItsRefusals) {
  // The round of a request that carries nothing into it is opened when the handler first asks or
  // saves its state: what it saved comes back with the answers, and a question the request's
  // capabilities do not allow is still -32021.
  server_.add_tool({.name = "remember", .description = "saves its text, asks a name"},
                   [](mcp::tool_context& ctx, const text_in& in) -> mcp::result<std::string> {
                     std::string before = "nothing";
                     if (const auto* saved = ctx.round_state();
                         saved != nullptr && saved->is_string()) {
                       before = std::string(saved->get_string());
                     }
                     ctx.save_round_state(mcp::json::value(in.text));
                     auto who = ctx.elicit<name_answer>("What is your name?", {.key = "who"});
                     if (!who) return who.error();
                     if (!who->accepted()) return mcp::tool_error{"declined"};
                     return before + ", " + who->content->name;
                   });
  start_modern();
  const auto first = first_round(port_, "remember", "Hello");
  ASSERT_EQ(first.at("resultType"), "input_required") << mcp::to_json_string(first);
  auto r = retry(port_, "2", "remember", "Hello", state_of(first));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(first_text(result_of(answer_of(r))), "Hello, Ada") << r.body;

  r = post(modern_call("3", "remember", R"({"text":"Hi"})"),
           modern_headers("tools/call", "remember"));
  EXPECT_EQ(r.status, 400U) << r.body;
  EXPECT_EQ(error_code(answer_of(r)), -32021) << r.body;
  // A handler that asks nothing answers without a round.
  r = post(modern_call("4", "echo", R"({"text":"plain"})"), modern_headers("tools/call", "echo"));
  ASSERT_EQ(r.status, 200U) << r.body;
  EXPECT_EQ(first_text(result_of(answer_of(r))), "plain") << r.body;
}

/// Expects the answer to be -32602 naming requestState and saying `why`.
void expect_refused(const response& r, const std::string& why) {
  const auto a = answer_of(r);
  EXPECT_EQ(error_code(a), -32602) << why << ": " << r.body;
  const auto msg = error_message(a);
  EXPECT_NE(msg.find("requestState"), std::string::npos) << msg;
  EXPECT_NE(msg.find(why), std::string::npos) << msg;
  EXPECT_EQ(a.at("error").as_object().if_contains("data"), nullptr) << r.body;
}

TEST_F(ModernHttp, ATamperedStateIsRefused) {
  start_modern();
  const auto state = state_of(first_round(port_, "greet", "Hello"));
  ASSERT_GT(state.size(), 20U);
  for (const std::size_t at : {state.size() / 2, state.size() - 2}) {
    auto bad = state;
    bad[at] = bad[at] == 'A' ? 'B' : 'A';
    expect_refused(retry(port_, "2", "greet", "Hello", bad), "altered");
  }
  expect_refused(retry(port_, "3", "greet", "Hello", state.substr(0, state.size() - 4)),
                 "not one this server issued");
  expect_refused(retry(port_, "4", "greet", "Hello", "mrtr1.AAAA"), "not one this server issued");
  expect_refused(retry(port_, "5", "greet", "Hello", ""), "not one this server issued");
  // The genuine state still works after all that.
  EXPECT_EQ(first_text(result_of(answer_of(retry(port_, "6", "greet", "Hello", state)))),
            "Hello, Ada!");
}

TEST_F(ModernHttp, AStateFromAnotherCallIsRefused) {
  start_modern();
  const auto state = state_of(first_round(port_, "greet", "Hello"));
  ASSERT_FALSE(state.empty());
  expect_refused(retry(port_, "2", "greet", "Goodbye", state), "another request");
  expect_refused(retry(port_, "3", "greet_twice", "Hello", state), "another request");
}

TEST_F(ModernHttp, AStateFromAnotherServerIsRefused) {
  start_modern();
  mcp::server other({.info = {.name = "other", .version = "1"}});
  add_modern_tools(other);
  mcp::http_server other_http(other);
  other_http.start().value();
  const auto state = state_of(first_round(other_http.port(), "greet", "Hello"));
  ASSERT_FALSE(state.empty());
  expect_refused(retry(port_, "2", "greet", "Hello", state), "altered");
  other_http.stop();
}

class ModernHttpSingleUse : public ModernHttp {
 protected:
  ModernHttpSingleUse() : ModernHttp(options(true)) {}
};

TEST_F(ModernHttpSingleUse, AReplayedStateIsRefused) {
  start_modern();
  const auto state = state_of(first_round(port_, "greet", "Hello"));
  ASSERT_FALSE(state.empty());
  auto r = retry(port_, "2", "greet", "Hello", state);
  EXPECT_EQ(first_text(result_of(answer_of(r))), "Hello, Ada!") << r.body;
  expect_refused(retry(port_, "3", "greet", "Hello", state), "used already");
  // A new round gets a new state, good once.
  const auto again = state_of(first_round(port_, "greet", "Hello"));
  ASSERT_FALSE(again.empty());
  EXPECT_NE(again, state);
  r = retry(port_, "4", "greet", "Hello", again);
  EXPECT_EQ(first_text(result_of(answer_of(r))), "Hello, Ada!") << r.body;
}

// --- both eras at once -------------------------------------------------------------------

TEST_F(ModernHttp, BothErasAreServedAtOnceEachInItsOwn) {
  start_modern();
  constexpr std::size_t threads_per_era = 3;
  constexpr int calls = 15;
  std::atomic<int> legacy_ok{0};
  std::atomic<int> modern_ok{0};
  std::atomic<int> wrong{0};
  std::vector<std::string> failures(2 * threads_per_era);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < threads_per_era; ++t) {
    threads.emplace_back([&, t] {
      const auto sid = open_session(port_);
      if (sid.empty()) {
        failures[t] = "no session";
        return;
      }
      for (int i = 0; i < calls; ++i) {
        const auto text = "legacy-" + std::to_string(t) + "-" + std::to_string(i);
        auto r = request(port_, "POST",
                         call_body(std::to_string(i + 2), "echo", R"({"text":")" + text + R"("})"),
                         post_headers(sid));
        const auto res = result_of(answer_of(r));
        if (r.status == 200 && first_text(res) == text && !res.contains("resultType") &&
            !res.contains("_meta")) {
          ++legacy_ok;
        } else {
          ++wrong;
          failures[t] = r.body;
        }
      }
    });
    threads.emplace_back([&, t] {
      for (int i = 0; i < calls; ++i) {
        const auto text = "modern-" + std::to_string(t) + "-" + std::to_string(i);
        auto r = request(port_, "POST",
                         modern_call(std::to_string(i), "echo", R"({"text":")" + text + R"("})"),
                         modern_headers("tools/call", "echo"));
        const auto res = result_of(answer_of(r));
        const auto* meta = res.if_contains("_meta");
        if (r.status == 200 && first_text(res) == text && res.contains("resultType") &&
            res.at("resultType") == "complete" && meta != nullptr && meta->is_object() &&
            meta->get_object().contains("io.modelcontextprotocol/serverInfo") &&
            r.header("mcp-session-id").empty()) {
          ++modern_ok;
        } else {
          ++wrong;
          failures[threads_per_era + t] = r.body;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& f : failures) EXPECT_TRUE(f.empty()) << f;
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(legacy_ok.load(), static_cast<int>(threads_per_era) * calls);
  EXPECT_EQ(modern_ok.load(), static_cast<int>(threads_per_era) * calls);
  // The legacy sessions are still there; the modern requests left none behind.
  EXPECT_EQ(http_->session_count(), threads_per_era);
}

}  // namespace
}  // namespace mcp_test
