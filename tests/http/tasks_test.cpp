// Tasks over Streamable HTTP on 127.0.0.1: a task is bound to its HTTP session when no
// authenticator is set, and to the authenticated principal (across sessions) when one is.
#include <mcp/json.hpp>

#include "http_test_util.hpp"

namespace mcp_test {
namespace {

/// The JSON-RPC answer in a response: the JSON body, or the last data event of an SSE body.
mcp::json::value answer_of(const response& r) {
  std::string text = r.body;
  if (r.header("content-type").starts_with("text/event-stream")) {
    for (const auto& e : r.events()) {
      if (!e.data.empty()) text = e.data;
    }
  }
  auto v = mcp::parse_json(text);
  return v ? *v : mcp::json::value(mcp::json::string("<not JSON: " + text + ">"));
}

std::string rpc(const std::string& id, const std::string& method, const std::string& params) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":)" + params +
         "}";
}

class HttpTasks : public http_fixture {
 protected:
  void SetUp() override {
    server_.add_tool({.name = "job",
                      .description = "a short job",
                      .task_support_mode = mcp::task_support::optional},
                     [](const text_in& in) { return "did " + in.text; });
  }
  using headers = std::vector<std::pair<std::string, std::string>>;
  mcp::json::value post(const std::string& body, const headers& h) {
    auto r = request(port_, "POST", body, h);
    EXPECT_EQ(r.status, 200U) << r.body;
    return answer_of(r);
  }
  std::string create(const headers& h) {
    auto v =
        post(rpc("10", "tools/call", R"({"name":"job","arguments":{"text":"it"},"task":{}})"), h);
    const auto* task = v.as_object().if_contains("result");
    if (task == nullptr) return "<" + mcp::json::serialize(v) + ">";
    return std::string(task->at("task").at("taskId").as_string());
  }
  static headers with_token(headers h, const std::string& token) {
    h.emplace_back("Authorization", "Bearer " + token);
    return h;
  }
  std::string open_as(const std::string& token) {
    auto r = request(port_, "POST", initialize_body(), with_token(post_headers({}, ""), token));
    const auto sid = r.header("mcp-session-id");
    request(port_, "POST", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
            with_token(post_headers(sid), token));
    return sid;
  }
};

TEST_F(HttpTasks, WithoutAnAuthenticatorATaskBelongsToItsSession) {
  start();
  const auto a = open_session(port_);
  const auto b = open_session(port_);
  const auto id = create(post_headers(a));
  ASSERT_EQ(id.size(), 32U) << id;
  const std::string by_id = R"({"taskId":")" + id + R"("})";
  auto result = post(rpc("11", "tasks/result", by_id), post_headers(a));
  EXPECT_EQ(result.at("result").at("content").at(0).at("text"), "did it") << result;
  EXPECT_EQ(result.at("result").at("_meta").at("io.modelcontextprotocol/related-task").at("taskId"),
            id.c_str());
  for (const char* m : {"tasks/get", "tasks/result", "tasks/cancel"}) {
    auto other = post(rpc("12", m, by_id), post_headers(b));
    EXPECT_EQ(other.at("error").at("code"), -32602) << m << ": " << other;
  }
  EXPECT_TRUE(post(rpc("13", "tasks/list", "{}"), post_headers(b))
                  .at("result")
                  .at("tasks")
                  .as_array()
                  .empty());
  EXPECT_EQ(post(rpc("14", "tasks/list", "{}"), post_headers(a))
                .at("result")
                .at("tasks")
                .at(0)
                .at("taskId"),
            id.c_str());
}

TEST_F(HttpTasks, WithAnAuthenticatorATaskBelongsToThePrincipalAcrossSessions) {
  start({.authenticate = [](const mcp::http_request_view& req) -> std::optional<mcp::principal> {
    const auto auth = req.header("authorization");
    if (auth == "Bearer alice") return mcp::principal{.subject = "alice"};
    if (auth == "Bearer bob") return mcp::principal{.subject = "bob"};
    return std::nullopt;
  }});
  const auto first = open_as("alice");
  const auto second = open_as("alice");
  const auto bobs = open_as("bob");
  const auto id = create(with_token(post_headers(first), "alice"));
  ASSERT_EQ(id.size(), 32U) << id;
  const std::string by_id = R"({"taskId":")" + id + R"("})";
  auto later = post(rpc("11", "tasks/result", by_id), with_token(post_headers(second), "alice"));
  EXPECT_EQ(later.at("result").at("content").at(0).at("text"), "did it") << later;
  auto bob = post(rpc("12", "tasks/get", by_id), with_token(post_headers(bobs), "bob"));
  EXPECT_EQ(bob.at("error").at("code"), -32602) << bob;
}

}  // namespace
}  // namespace mcp_test
