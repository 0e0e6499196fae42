// examples/http_auth on an ephemeral port of 127.0.0.1: no token or an unknown one is 401, a
// known one reaches the tools, and the policy file refuses bob the destructive tool.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "examples/http_example.hpp"
#include <unistd.h>

namespace {

using mcp::json::object;
using mcp::json::value;
using mcp::test::answer_of;
using mcp::test::http_example;
using mcp::test::initialize_params;
using mcp::test::rpc;

class example_http_auth : public ::testing::Test {
 protected:
  example_http_auth() {
    dir_ = std::filesystem::temp_directory_path() /
           ("mcp_example_http_auth_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "tokens.json") << R"({"alice-secret": "alice", "bob-secret": "bob"})";
    server_ = std::make_unique<http_example>(
        std::vector<std::string>{MCP_EXAMPLE_HTTP_AUTH, (dir_ / "tokens.json").string(),
                                 MCP_SOURCE_DIR "/examples/http_auth/policy.json", "127.0.0.1:0"});
  }
  ~example_http_auth() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  /// Opens a session with `token`; its id.
  std::string open(const std::string& token) {
    const auto r = server_->post(rpc(0, "initialize", initialize_params()), bearer(token));
    EXPECT_EQ(r.status, 200U) << r.body;
    const auto sid = r.header("mcp-session-id");
    const auto ack = server_->post(
        object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, bearer(token), sid);
    EXPECT_EQ(ack.status, 202U);
    return sid;
  }
  value call(const std::string& token, const std::string& sid, int id, std::string_view method,
             object params) {
    return answer_of(server_->post(rpc(id, method, std::move(params)), bearer(token), sid));
  }
  static std::vector<std::pair<std::string, std::string>> bearer(const std::string& token) {
    return {{"Authorization", "Bearer " + token}};
  }

  std::filesystem::path dir_;
  std::unique_ptr<http_example> server_;
};

TEST_F(example_http_auth, refuses_requests_without_a_known_bearer_token) {
  ASSERT_NE(server_->port, 0);
  const auto none = server_->post(rpc(0, "initialize", initialize_params()), {});
  EXPECT_EQ(none.status, 401U) << none.body;
  EXPECT_TRUE(none.header("www-authenticate").starts_with("Bearer"))
      << none.header("www-authenticate");
  const auto wrong = server_->post(rpc(0, "initialize", initialize_params()), bearer("guess"));
  EXPECT_EQ(wrong.status, 401U);
  const auto basic =
      server_->post(rpc(0, "initialize", initialize_params()), {{"Authorization", "Basic YTpi"}});
  EXPECT_EQ(basic.status, 401U);

  // A session opened with a token answers nobody else.
  const auto sid = open("alice-secret");
  const auto stolen = server_->post(rpc(1, "tools/list", {}), {}, sid);
  EXPECT_EQ(stolen.status, 401U);
}

TEST_F(example_http_auth, a_known_token_calls_tools_as_its_subject) {
  ASSERT_NE(server_->port, 0);
  const auto sid = open("alice-secret");
  ASSERT_FALSE(sid.empty());
  const auto r =
      call("alice-secret", sid, 1, "tools/call", {{"name", "notes.read"}, {"arguments", object{}}});
  EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "notes for alice") << r;
  const auto cleared = call("alice-secret", sid, 2, "tools/call",
                            {{"name", "notes.clear"}, {"arguments", object{}}});
  EXPECT_EQ(cleared.at("result").at("content").at(0).at("text"), "cleared") << cleared;
}

TEST_F(example_http_auth, the_policy_refuses_bob_the_destructive_tool) {
  ASSERT_NE(server_->port, 0);
  const auto sid = open("bob-secret");
  const auto listed = call("bob-secret", sid, 1, "tools/list", {});
  const auto& tools = listed.at("result").at("tools").as_array();
  ASSERT_EQ(tools.size(), 1U) << listed;  // bob does not see what he may not call
  EXPECT_EQ(tools[0].at("name"), "notes.read");

  const auto refused =
      call("bob-secret", sid, 2, "tools/call", {{"name", "notes.clear"}, {"arguments", object{}}});
  EXPECT_EQ(refused.at("result").at("isError"), true) << refused;
  const std::string why(refused.at("result").at("content").at(0).at("text").as_string());
  EXPECT_NE(why.find("editor"), std::string::npos) << why;
  EXPECT_EQ(
      call("bob-secret", sid, 3, "tools/call", {{"name", "notes.read"}, {"arguments", object{}}})
          .at("result")
          .at("content")
          .at(0)
          .at("text"),
      "notes for bob");
}

}  // namespace
