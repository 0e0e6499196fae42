// The demo server binary as an OAuth 2.1 protected resource (--jwks FILE --issuer --audience
// --scope), driven by the HTTP client transport with bearer tokens signed here.
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/transport/process.hpp>

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "http_test_util.hpp"
#include "support/demo_http.hpp"
#include "support/jwt_issuer.hpp"

namespace {

using namespace mcp_test;

constexpr const char* issuer = "https://auth.test";
constexpr const char* audience = "https://demo.test/mcp";

class ProtectedDemo : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(jwks_path_) << jwks_of({&key_});
    server_ = std::make_unique<mcp::test::demo_http_server>(
        std::vector<std::string>{"--task-store", ":memory:", "--jwks", jwks_path_.string(),
                                 "--issuer", issuer, "--audience", audience, "--scope", "mcp"});
    ASSERT_TRUE(server_->error.empty()) << server_->error;
    url_ = server_->url();
    ASSERT_FALSE(url_.empty()) << "the demo server did not say where it listens";
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove(jwks_path_);
  }

  /// A client session with `token` (empty: none); nullopt when initialize fails.
  std::optional<std::string> connect(const std::string& token, std::vector<std::string>& tools) {
    mcp::http_client_options o{.url = url_};
    if (!token.empty()) o.headers.emplace_back("Authorization", "Bearer " + token);
    auto conn = mcp::make_http_client_connection(o).value();
    mcp::client_session client(conn);
    conn->on_receive([&client](std::string_view m) { client.receive(m); });
    auto init = client.initialize();
    if (!init) {
      conn->close();
      return init.error().message;
    }
    auto list = client.list_all_tools();
    if (list) {
      for (const auto& t : *list) tools.emplace_back(t.at("name").as_string());
    }
    auto unlock = client.call_tool("unlock_admin", {});
    conn->close();
    return unlock ? std::string("unlocked") : unlock.error().message;
  }

  std::string token(const std::string& scope) {
    return sign(key_, json::object{{"iss", issuer},
                                   {"aud", audience},
                                   {"sub", "alice"},
                                   {"scope", scope},
                                   {"exp", now_s() + 300}});
  }

  signing_key key_ = make_key("EdDSA", "demo");
  std::filesystem::path jwks_path_ = std::filesystem::temp_directory_path() /
                                     ("mcp-demo-jwks-" + std::to_string(::getpid()) + ".json");
  std::unique_ptr<mcp::test::demo_http_server> server_;  // started with the key's JWKS file
  std::string url_;
};

TEST_F(ProtectedDemo, NeedsATokenForItAndServesScopesPerTool) {
  std::vector<std::string> tools;
  auto refused = connect("", tools);
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused, "Unauthorized");
  refused = connect(sign(key_, json::object{{"iss", issuer},
                                            {"aud", "https://elsewhere.test/mcp"},
                                            {"sub", "alice"},
                                            {"scope", "mcp"},
                                            {"exp", now_s() + 300}}),
                    tools);
  EXPECT_EQ(*refused, "Unauthorized: the token was issued for another resource");

  auto outcome = connect(token("mcp"), tools);
  ASSERT_TRUE(outcome);
  EXPECT_NE(std::find(tools.begin(), tools.end(), "echo"), tools.end());
  EXPECT_EQ(std::find(tools.begin(), tools.end(), "unlock_admin"), tools.end());
  EXPECT_EQ(*outcome, "Forbidden: tool unlock_admin needs scope demo.admin");

  tools.clear();
  outcome = connect(token("mcp demo.admin"), tools);
  EXPECT_NE(std::find(tools.begin(), tools.end(), "unlock_admin"), tools.end());
  EXPECT_EQ(outcome, "unlocked");

  // The metadata document, without a token.
  const auto port = static_cast<std::uint16_t>(
      std::stoi(url_.substr(url_.rfind(':') + 1, url_.rfind('/') - url_.rfind(':') - 1)));
  auto r = request(port, "GET", "", {}, "/.well-known/oauth-protected-resource/mcp");
  ASSERT_EQ(r.status, 200U);
  const auto doc = json::parse(r.body).as_object();
  EXPECT_EQ(doc.at("resource"), audience);
  EXPECT_EQ(doc.at("authorization_servers"), json::array{issuer});
}

TEST(DemoServerFlags, RefusesAnIncompleteAuthorizationSetup) {
  auto proc = mcp::make_process_connection(
      {.argv = {MCP_DEMO_SERVER, "--http", "127.0.0.1:0", "--jwks", "/nonexistent.json"}});
  ASSERT_TRUE(proc);
  (*proc)->start([](std::string_view) {});
  (*proc)->close();
  EXPECT_EQ((*proc)->exit_status(), 2);
}

}  // namespace
