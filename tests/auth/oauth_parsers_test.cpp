// mcp/oauth.hpp, what the OAuth client reads and keeps: the WWW-Authenticate Bearer (and DPoP)
// challenge parser; Protected Resource Metadata, authorization server metadata (parsing, and the
// URLs they are looked for at) and token endpoint answers; stored credentials and the token
// stores; the loopback redirect agent, driven by a "browser" thread.
#include <mcp/oauth.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <latch>
#include <thread>

#include "auth/oauth_mock.hpp"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace oauth_mock;

// ---- parse_bearer_challenge, metadata documents and where they are looked for -------------

/// "error|error_description|scope|resource_metadata" of the Bearer challenge, or "none".
std::string read(std::string_view header) {
  const auto c = auth::parse_bearer_challenge(header);
  return c ? c->error + "|" + c->error_description + "|" + c->scope + "|" + c->resource_metadata
           : "none";
}

TEST(bearer_challenge, the_forms_servers_send_are_read) {
  const std::pair<const char*, const char*> cases[] = {
      {R"(Bearer error="invalid_token", error_description="Missing Authorization header", )"
       R"(resource_metadata="http://x/.well-known/oauth-protected-resource/mcp")",
       "invalid_token|Missing Authorization header||http://x/.well-known/"
       "oauth-protected-resource/mcp"},
      {R"(Bearer scope="a b", resource_metadata="http://x/m", error="insufficient_scope")",
       "insufficient_scope||a b|http://x/m"},
      {R"(bearer realm="mcp", ERROR=invalid_token)", "invalid_token|||"},
      {R"(Basic abc==, Bearer scope="x")", "||x|"},
      {R"(Basic realm="r", error="not-mine", Bearer error="e")", "e|||"},
      {R"(Bearer error_description="say \"hi\"", error="e")", R"(e|say "hi"||)"},
      {R"(Bearer scope="first", Bearer scope="second")", "||first|"},
      {R"(Basic realm="r")", "none"},
      {"", "none"},
      // An unterminated quote: what was read before it stays.
      {R"(Bearer error="invalid_token", scope="a b)", "invalid_token|||"},
      {R"(Basic realm="r\)", "none"},
  };
  for (const auto& [header, want] : cases) EXPECT_EQ(read(header), want) << header;
}

TEST(bearer_challenge, huge_headers_of_garbage_are_read_quickly) {
  const auto started = std::chrono::steady_clock::now();
  std::string garbage(std::size_t{1} << 20U, ' ');
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = "\"=,\\ aB\t"[i % 8];
  (void)read(garbage);
  (void)read("Bearer " + garbage);
  // The quote is cut at 8 KiB: unterminated. A challenge after the first 8 KiB is not read.
  EXPECT_EQ(read("Bearer scope=\"" + std::string(std::size_t{1} << 20U, 'x')), "|||");
  EXPECT_EQ(read(std::string(9000, ' ') + R"(Bearer scope="x")"), "none");
  // Linear work is milliseconds (ASan on a loaded machine included); quadratic work on 1 MiB
  // would take hours.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

/// The error's message, or "(parsed)". Bad input is an error, never an exception: a throw
/// fails the test. Its code is invalid_params, or limit_exceeded for an oversized document.
template <class Doc>
std::string parse_error(const std::string& text) {
  const auto r = Doc::parse(text);
  if (r) return "(parsed)";
  const bool big = r.error().message.find("larger than") != std::string::npos;
  EXPECT_TRUE(r.error().is(big ? mcp::errc::limit_exceeded : mcp::errc::invalid_params))
      << r.error().code << " " << r.error().message;
  return r.error().message;
}

TEST(resource_metadata, a_document_is_read_and_errors_name_the_member) {
  const auto m = *auth::resource_metadata::parse(
      R"({"resource":"https://mcp.example/mcp","authorization_servers":["https://as.example",)"
      R"("https://as2.example/t"],"scopes_supported":["a","b"],"bearer_methods_supported":[]})");
  EXPECT_EQ(m.resource, "https://mcp.example/mcp");
  EXPECT_EQ(m.authorization_servers,
            (std::vector<std::string>{"https://as.example", "https://as2.example/t"}));
  EXPECT_EQ(m.scopes_supported, (std::vector<std::string>{"a", "b"}));
  const std::string ok = R"({"resource":"https://r","authorization_servers":["https://as"],"p":")";
  EXPECT_EQ(parse_error<auth::resource_metadata>(ok + std::string(250000, 'x') + "\"}"),
            "(parsed)");
  const std::pair<std::string, std::string> bad[] = {
      {R"({"authorization_servers":["https://as"]})", "no resource"},
      {R"({"resource":42,"authorization_servers":["https://as"]})", "resource is not a string"},
      {R"({"resource":"mcp.example/mcp","authorization_servers":["https://as"]})",
       "resource is not an absolute http(s) URL"},
      {R"({"resource":"https://r"})", "no authorization_servers"},
      {R"({"resource":"https://r","authorization_servers":[]})", "no authorization_servers"},
      {R"({"resource":"https://r","authorization_servers":[1]})",
       "authorization_servers holds a non-string"},
      {R"({"resource":"https://r","authorization_servers":"https://as"})",
       "authorization_servers is not an array"},
      {R"({"resource":"https://r","authorization_servers":["ftp://as"]})",
       "authorization server is not an absolute http(s) URL"},
      {"[1]", "not a JSON object"},
      {"{", "protected resource metadata: "},
      {ok + std::string(256 * 1024, 'x') + "\"}", "larger than 256 KiB"},
  };
  for (const auto& [doc, why] : bad) {
    const auto e = parse_error<auth::resource_metadata>(doc);
    EXPECT_NE(e.find(why), npos) << doc.substr(0, 80) << " -> " << e;
  }
}

TEST(server_metadata, a_document_is_read_and_errors_name_the_member) {
  const std::string base =
      R"({"issuer":"https://as.example/t","authorization_endpoint":"https://as.example/a",)"
      R"("token_endpoint":"https://as.example/token")";
  auto m = *auth::server_metadata::parse(
      base + R"(,"registration_endpoint":"https://as.example/reg","scopes_supported":["a"],)"
             R"("code_challenge_methods_supported":["plain","S256"],)"
             R"("token_endpoint_auth_methods_supported":["none"],)"
             R"("client_id_metadata_document_supported":true,)"
             R"("authorization_response_iss_parameter_supported":true})");
  EXPECT_EQ(m.issuer + " " + m.authorization_endpoint + " " + m.token_endpoint + " " +
                m.registration_endpoint,
            "https://as.example/t https://as.example/a https://as.example/token "
            "https://as.example/reg");
  EXPECT_EQ(m.scopes_supported, std::vector<std::string>{"a"});
  EXPECT_EQ(m.code_challenge_methods_supported, (std::vector<std::string>{"plain", "S256"}));
  EXPECT_EQ(m.token_endpoint_auth_methods_supported, std::vector<std::string>{"none"});
  EXPECT_TRUE(m.client_id_metadata_document_supported);
  EXPECT_TRUE(m.authorization_response_iss_parameter_supported);
  m = *auth::server_metadata::parse(base + R"(,"client_id_metadata_document_supported":"true"})");
  EXPECT_EQ(m.registration_endpoint, "");
  EXPECT_FALSE(m.client_id_metadata_document_supported);  // not a boolean true
  EXPECT_FALSE(m.authorization_response_iss_parameter_supported);
  const std::pair<std::string, std::string> bad[] = {
      {R"({"authorization_endpoint":"https://a/a","token_endpoint":"https://a/t"})", "no issuer"},
      {R"({"issuer":"https://a","token_endpoint":"https://a/t"})", "no authorization_endpoint"},
      {R"({"issuer":"https://a","authorization_endpoint":"https://a/a"})", "no token_endpoint"},
      {R"({"issuer":"https://a","authorization_endpoint":"https://a/a","token_endpoint":5})",
       "token_endpoint is not a string"},
      {R"({"issuer":"https://a","authorization_endpoint":"https://a/a","token_endpoint":"/t"})",
       "token_endpoint is not an absolute http(s) URL"},
      {base + R"(,"registration_endpoint":"x"})", "registration_endpoint is not an absolute"},
      {base + R"(,"code_challenge_methods_supported":"S256"})",
       "code_challenge_methods_supported is not an array"},
      {R"("https://as")", "not a JSON object"},
      {base + R"(,"pad":")" + std::string(256 * 1024, 'x') + "\"}", "larger than 256 KiB"},
  };
  for (const auto& [doc, why] : bad) {
    const auto e = parse_error<auth::server_metadata>(doc);
    EXPECT_NE(e.find(why), npos) << doc.substr(0, 80) << " -> " << e;
  }
}

TEST(server_metadata, the_grants_and_algorithms_of_the_other_flows_are_read) {
  const auto m = *auth::server_metadata::parse(
      R"({"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t",)"
      R"("grant_types_supported":["client_credentials"],)"
      R"("token_endpoint_auth_signing_alg_values_supported":["ES256","RS256"],)"
      R"("dpop_signing_alg_values_supported":["ES256"]})");
  EXPECT_EQ(m.grant_types_supported, std::vector<std::string>{"client_credentials"});
  EXPECT_EQ(m.token_endpoint_auth_signing_alg_values_supported,
            (std::vector<std::string>{"ES256", "RS256"}));
  EXPECT_EQ(m.dpop_signing_alg_values_supported, std::vector<std::string>{"ES256"});
  const auto e = parse_error<auth::server_metadata>(
      R"({"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t",)"
      R"("dpop_signing_alg_values_supported":[1]})");
  EXPECT_NE(e.find("dpop_signing_alg_values_supported holds a non-string"), npos) << e;
}

TEST(token_response, answers_are_read_and_errors_name_the_member) {
  auto t = *auth::token_response::parse(
      R"({"access_token":"eyJ.a.b","token_type":"DPoP","expires_in":3600,"refresh_token":"r",)"
      R"("scope":"a b","issued_token_type":"urn:x","extra":{"n":[1]}})");
  EXPECT_EQ(t.access_token + "|" + t.token_type + "|" + t.refresh_token + "|" + t.scope + "|" +
                t.issued_token_type,
            "eyJ.a.b|DPoP|r|a b|urn:x");
  EXPECT_EQ(t.expires_in, 3600);
  EXPECT_EQ(auth::token_response::parse(R"({"access_token":"x","expires_in":"120"})")->expires_in,
            120);
  EXPECT_EQ(auth::token_response::parse(R"({"access_token":"x","expires_in":59.9})")->expires_in,
            59);
  for (const auto* odd :
       {R"({"access_token":"x","expires_in":-5})", R"({"access_token":"x","expires_in":1e300})",
        R"({"access_token":"x","expires_in":0})", R"({"access_token":"x","expires_in":null})"}) {
    EXPECT_EQ(auth::token_response::parse(odd)->expires_in, 0) << odd;  // not said
  }
  const std::pair<std::string, std::string> bad[] = {
      {R"({"token_type":"Bearer"})", "no access_token"},
      {R"({"access_token":""})", "empty access_token"},
      {R"({"access_token":7})", "access_token is not a string"},
      {R"({"access_token":"x","token_type":1})", "token_type is not a string"},
      {R"({"access_token":"x","refresh_token":{}})", "refresh_token is not a string"},
      {R"({"access_token":"x","expires_in":"soon"})", "expires_in is not a number"},
      {R"({"access_token":"x","expires_in":"99999999999"})", "expires_in is not a number"},
      {R"(["x"])", "not a JSON object"},
      {R"({"access_token":"x")", "the token endpoint's answer"},
      {R"({"access_token":")" + std::string(256 * 1024, 'x') + "\"}", "larger than 256 KiB"},
  };
  for (const auto& [doc, why] : bad) {
    const auto e = parse_error<auth::token_response>(doc);
    EXPECT_NE(e.find(why), npos) << doc.substr(0, 80) << " -> " << e;
  }
}

TEST(bearer_challenge, a_dpop_challenge_is_read_by_its_scheme) {
  const std::string h =
      R"(Bearer realm="x", DPoP algs="ES256 RS256", error="use_dpop_nonce", )"
      R"(error_description="Resource server requires nonce", resource_metadata="https://r/m")";
  const auto d = auth::parse_challenge(h, "dpop");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->error + "|" + d->resource_metadata, "use_dpop_nonce|https://r/m");
  const auto b = auth::parse_bearer_challenge(h);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->error, "") << "the DPoP challenge's parameters are not the Bearer one's";
  EXPECT_FALSE(auth::parse_challenge(R"(Bearer error="x")", "DPoP"));
}

TEST(metadata_urls, resource_and_issuer_urls_are_looked_for_where_the_specs_say) {
  using v = std::vector<std::string>;
  EXPECT_EQ(*auth::resource_metadata_urls("http://h:1/mcp"),
            (v{"http://h:1/.well-known/oauth-protected-resource/mcp",
               "http://h:1/.well-known/oauth-protected-resource"}));
  EXPECT_EQ(*auth::resource_metadata_urls("https://h/"),
            v{"https://h/.well-known/oauth-protected-resource"});
  EXPECT_EQ(*auth::server_metadata_urls("https://as/tenant1"),
            (v{"https://as/.well-known/oauth-authorization-server/tenant1",
               "https://as/.well-known/openid-configuration/tenant1",
               "https://as/tenant1/.well-known/openid-configuration"}));
  EXPECT_EQ(*auth::server_metadata_urls("https://as"),
            (v{"https://as/.well-known/oauth-authorization-server",
               "https://as/.well-known/openid-configuration"}));
  // A URL from the command line or a peer that is not absolute http(s): an error, no throw.
  const auto ftp = auth::resource_metadata_urls("ftp://h/mcp");
  ASSERT_FALSE(ftp);
  EXPECT_TRUE(ftp.error().is(mcp::errc::invalid_params));
  EXPECT_EQ(ftp.error().message, "not an absolute http(s) URL: ftp://h/mcp");
  const auto bare = auth::server_metadata_urls("as.example");
  ASSERT_FALSE(bare);
  EXPECT_TRUE(bare.error().is(mcp::errc::invalid_params));
  EXPECT_EQ(bare.error().message, "not an absolute http(s) URL: as.example");
  EXPECT_FALSE(auth::server_metadata_urls(""));
  EXPECT_FALSE(auth::resource_metadata_urls("https://"));
}

// ---- Credentials and token stores ----------------------------------------------------------

std::string text_of(const auth::oauth_credentials& c) { return json::serialize(c.to_json()); }

TEST(oauth_credentials, to_json_and_from_json_round_trip) {
  const auto o = sample("t").to_json();
  for (const char* k :
       {"authorization_server", "client_id", "client_secret", "token_endpoint_auth_method",
        "access_token", "token_type", "dpop_jkt", "refresh_token", "scope", "requested_scope"}) {
    EXPECT_TRUE(o.contains(k)) << k;
  }
  EXPECT_EQ(o.at("expires_at"), 1700000000);
  EXPECT_EQ(text_of(auth::oauth_credentials::from_json(o)), text_of(sample("t")));
  const auto odd = auth::oauth_credentials::from_json({{"client_id", 7}, {"expires_at", "soon"}});
  EXPECT_EQ(text_of(odd), "{}");  // not strings, not a number: left empty
}

struct temp_dir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("mcp-oauth-test-" + std::to_string(::getpid()) + "-" +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

TEST(token_store, a_file_store_keeps_resources_side_by_side_for_its_owner_only) {
  const temp_dir d;
  const auto file = d.path / "state" / "tokens.json";
  auth::file_token_store a(file);
  EXPECT_FALSE(a.load("https://r1/mcp"));
  ASSERT_TRUE(a.save("https://r1/mcp", sample("t1")));
  ASSERT_TRUE(a.save("https://r2/mcp", sample("t2")));
  auth::file_token_store b(file);  // another store object (another process) on the same file
  ASSERT_TRUE(b.load("https://r1/mcp"));
  EXPECT_EQ(text_of(*b.load("https://r1/mcp")), text_of(sample("t1")));
  EXPECT_EQ(b.load("https://r2/mcp")->access_token, "t2");
  ASSERT_TRUE(b.save("https://r1/mcp", sample("t1b")));
  EXPECT_EQ(a.load("https://r1/mcp")->access_token, "t1b");
  EXPECT_EQ(a.load("https://r2/mcp")->access_token, "t2");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777U, 0600U);
  ASSERT_EQ(::stat(file.parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777U, 0700U);
  ASSERT_TRUE(b.erase("https://r1/mcp"));
  EXPECT_FALSE(a.load("https://r1/mcp"));
  EXPECT_TRUE(a.load("https://r2/mcp"));
  EXPECT_TRUE(b.erase("https://unknown/mcp"));
}

TEST(token_store, a_corrupt_file_loads_as_nothing_and_is_replaced_on_save) {
  const temp_dir d;
  std::filesystem::create_directories(d.path);
  const auto file = d.path / "tokens.json";
  std::ofstream(file) << R"({"https://r/mcp": {"access_token": )";
  auth::file_token_store s(file);
  EXPECT_FALSE(s.load("https://r/mcp"));
  ASSERT_TRUE(s.save("https://r/mcp", sample("t")));
  EXPECT_EQ(s.load("https://r/mcp")->access_token, "t");
  std::ostringstream text;
  text << std::ifstream(file).rdbuf();
  const auto v = mcp::parse_json(text.str());
  ASSERT_TRUE(v && v->is_object()) << text.str();
  EXPECT_TRUE(v->get_object().contains("https://r/mcp"));
}

TEST(token_store, a_file_that_cannot_be_written_is_an_error_not_an_exception) {
  const temp_dir d;
  std::filesystem::create_directories(d.path);
  std::ofstream(d.path / "plain") << "a file, not a directory";
  auth::file_token_store s(d.path / "plain" / "tokens.json");  // its "directory" is a file
  const auto saved = s.save("https://r/mcp", sample("t"));
  ASSERT_FALSE(saved);
  EXPECT_EQ(saved.error().code, static_cast<int>(mcp::errc::connection_closed));
  EXPECT_TRUE(saved.error().message.starts_with("cannot ")) << saved.error().message;
  EXPECT_NE(saved.error().message.find((d.path / "plain").string()), std::string::npos)
      << saved.error().message;
  EXPECT_FALSE(s.load("https://r/mcp"));
  // A lock file that cannot be made: the token file's directory is there, its lock is a
  // directory.
  auth::file_token_store t(d.path / "tokens.json");
  std::filesystem::create_directories(d.path / "tokens.json.lock");
  std::ofstream(d.path / "tokens.json") << "{}";
  const auto erased = t.erase("https://r/mcp");
  ASSERT_FALSE(erased);
  EXPECT_NE(erased.error().message.find("tokens.json.lock"), std::string::npos)
      << erased.error().message;
}

TEST(token_store, the_default_path_honours_xdg_state_home) {
  std::vector<std::pair<const char*, std::optional<std::string>>> saved;
  for (const char* name : {"XDG_STATE_HOME", "HOME"}) {
    const char* v = std::getenv(name);
    saved.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
  }
  ::setenv("XDG_STATE_HOME", "/tmp/xdg-state", 1);
  EXPECT_EQ(auth::file_token_store::default_path(), "/tmp/xdg-state/mcp-cpp/oauth-tokens.json");
  ::setenv("HOME", "/home/someone", 1);
  ::setenv("XDG_STATE_HOME", "relative/state", 1);  // not absolute: ignored (the XDG spec)
  EXPECT_EQ(auth::file_token_store::default_path(),
            "/home/someone/.local/state/mcp-cpp/oauth-tokens.json");
  ::unsetenv("XDG_STATE_HOME");
  EXPECT_EQ(auth::file_token_store::default_path(),
            "/home/someone/.local/state/mcp-cpp/oauth-tokens.json");
  for (const auto& [name, value] : saved) {
    value ? (void)::setenv(name, value->c_str(), 1) : (void)::unsetenv(name);
  }
}

// ---- loopback_agent ----------------------------------------------------------------------

TEST(loopback_agent, the_browsers_redirect_to_the_listener_is_returned) {
  std::uint16_t port = 0;
  std::atomic<int> favicon{0}, callback{0};
  std::string opened;
  std::jthread browser;
  auth::loopback_agent agent(auth::loopback_options{.open = [&](const std::string& url) {
    opened = url;
    browser = std::jthread([&] {
      favicon = http_get(port, "/favicon.ico");
      callback = http_get(port, "/callback?code=c&state=s");
    });
  }});
  const auto uri = agent.redirect_uri().value();
  ASSERT_TRUE(uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback")) << uri;
  EXPECT_EQ(agent.redirect_uri().value(), uri);
  port = static_cast<std::uint16_t>(std::stoi(uri.substr(17, uri.rfind('/') - 17)));
  const auto back = agent.authorize("https://as.example/authorize?x=1");
  browser.join();
  EXPECT_EQ(opened, "https://as.example/authorize?x=1");
  EXPECT_EQ(favicon, 404);
  EXPECT_EQ(callback, 200);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, uri + "?code=c&state=s");
  EXPECT_EQ(agent.redirect_uri().value(), uri);
}

TEST(loopback_agent, no_redirect_within_the_timeout_is_an_error) {
  auth::loopback_agent agent(auth::loopback_options{.timeout = 1s, .open = [](auto&) {}});
  const auto started = std::chrono::steady_clock::now();
  const auto back = agent.authorize("https://as.example/authorize");
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().code, static_cast<int>(mcp::errc::request_timeout));
  EXPECT_NE(back.error().message.find("no redirect reached http://127.0.0.1:"), std::string::npos)
      << back.error().message;
  EXPECT_GE(took, 900ms);
  EXPECT_LT(took, 2s);
}

TEST(loopback_agent, a_port_taken_by_another_listener_is_an_error_not_an_exception) {
  // Another program listens on the port the agent is told to use.
  const int other = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(other, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(other, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(other, 1), 0);
  ASSERT_EQ(::getsockname(other, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::uint16_t port = ntohs(addr.sin_port);
  auth::loopback_agent agent(auth::loopback_options{.port = port, .open = [](auto&) {}});
  const auto uri = agent.redirect_uri();
  ASSERT_FALSE(uri);
  EXPECT_EQ(uri.error().code, static_cast<int>(mcp::errc::connection_closed));
  EXPECT_NE(uri.error().message.find("cannot listen on 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << uri.error().message;
  EXPECT_FALSE(agent.authorize("https://as.example/authorize?state=s"));
  ::close(other);
  // Once the port is free the same agent listens on it.
  EXPECT_EQ(agent.redirect_uri().value(), "http://127.0.0.1:" + std::to_string(port) + "/callback");
}

TEST(bearer_challenge, a_token68_with_a_slash_does_not_hide_the_bearer_challenge) {
  EXPECT_EQ(read(R"(Basic dXNlcjpw/Y=, Bearer scope="x")"), "||x|");
  EXPECT_EQ(read(R"(Negotiate a+b/c==, Bearer error="invalid_token")"), "invalid_token|||");
}

TEST(loopback_agent, a_redirect_outside_authorize_is_not_taken_for_the_next_one) {
  std::uint16_t port = 0;
  std::jthread browser;
  auth::loopback_agent agent(auth::loopback_options{.open = [&](const std::string& url) {
    browser = std::jthread([&port, url] { (void)http_get(port, "/callback?" + url); });
  }});
  const auto uri = agent.redirect_uri().value();
  port = static_cast<std::uint16_t>(std::stoi(uri.substr(17, uri.rfind('/') - 17)));
  EXPECT_EQ(agent.authorize("code=1&state=1").value(), uri + "?code=1&state=1");
  browser.join();
  // A late request (a reload, a second click) between two flows finds no listener.
  EXPECT_LT(http_get(port, "/callback?code=old&state=old"), 200);
  EXPECT_EQ(agent.authorize("code=2&state=2").value(), uri + "?code=2&state=2");
}

TEST(loopback_agent, only_the_redirect_with_the_flows_state_ends_the_wait) {
  std::uint16_t port = 0;
  std::atomic<int> forged{0}, real{0};
  std::jthread browser;
  auth::loopback_agent agent(auth::loopback_options{.open = [&](const std::string&) {
    browser = std::jthread([&] {
      forged = http_get(port, "/callback?code=evil&state=other");
      real = http_get(port, "/callback?code=good&state=s1");
    });
  }});
  const auto uri = agent.redirect_uri().value();
  port = static_cast<std::uint16_t>(std::stoi(uri.substr(17, uri.rfind('/') - 17)));
  EXPECT_EQ(agent.authorize("https://as.example/authorize?state=s1&x=1").value(),
            uri + "?code=good&state=s1");
  browser.join();
  EXPECT_EQ(forged, 400);
  EXPECT_EQ(real, 200);
}

}  // namespace
