// mcp/oauth.hpp: oauth_client used as an http_authorizer against a mock authorization server and
// resource metadata endpoint on 127.0.0.1 (tests/auth/oauth_mock.hpp): discovery, dynamic
// registration, PKCE S256, the resource parameter, refresh, step-up, refusals with a reason,
// concurrent refusals, pre-registered clients and client metadata documents; the 2026-07-28
// rules (RFC 9207 `iss`, identical metadata issuers, `application_type`, offline_access, the
// scope union, credentials bound to their issuer). The other grants: oauth_grants_test.cpp.
#include <mcp/oauth.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <latch>
#include <thread>

#include "auth/oauth_mock.hpp"
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace oauth_mock;

/// Two requests refused with a 401 at once, on two threads, by `client`: how many may retry.
int retried_of_two_refused_at_once(world& w, auth::oauth_client& client) {
  std::latch start(2);
  std::atomic<int> retried{0};
  auto refuse = [&] {
    start.arrive_and_wait();
    if (client.refused(401, w.challenge(), "")) ++retried;
  };
  { const std::jthread t1(refuse), t2(refuse); }
  return retried.load();
}

// ---- oauth_client against mock servers -----------------------------------------------------

TEST(oauth_client, a_401_runs_discovery_registration_and_the_code_flow_with_pkce) {
  world w;
  const auto client = w.client();
  EXPECT_EQ(client->authorization(), "");
  ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
  EXPECT_EQ(client->last_error(), "");
  EXPECT_EQ(client->authorization(), "Bearer at-1");
  EXPECT_EQ(w.agent->calls, 1);
  // The resource metadata the challenge names, the issuer's metadata, a registration.
  ASSERT_EQ(w.rs.requests().size(), 1U);
  EXPECT_EQ(w.rs.requests()[0].target, "/meta");
  EXPECT_EQ(w.as.requests("/.well-known/oauth-authorization-server").size(), 1U);
  const auto reg = w.as.requests("/register");
  ASSERT_EQ(reg.size(), 1U);
  EXPECT_EQ(json::serialize(json::parse(reg[0].body).as_object().at("redirect_uris")),
            "[\"" + w.agent->redirect + "\"]");
  // The authorization request.
  auto [url, q] = w.agent->last();
  EXPECT_TRUE(url.starts_with(w.as.url("/authorize?"))) << url;
  const auto challenge = at(q, "code_challenge");
  q.erase("code_challenge");
  q.erase("state");
  EXPECT_EQ(q, (form{{"response_type", "code"},
                     {"client_id", "dyn-client"},
                     {"redirect_uri", w.agent->redirect},
                     {"code_challenge_method", "S256"},
                     {"resource", w.resource()},
                     {"scope", "mcp"}}));  // the resource's scopes_supported
  // The token request: the PKCE verifier, the resource, client_secret_basic.
  auto token = w.token_requests();
  ASSERT_EQ(token.size(), 1U);
  EXPECT_EQ(token[0].second, "Basic " + mcp::base64_encode("dyn-client:dyn-secret"));
  auto& f = token[0].first;
  EXPECT_GE(at(f, "code_verifier").size(), 43U);
  EXPECT_EQ(s256(at(f, "code_verifier")), challenge);
  f.erase("code_verifier");
  EXPECT_EQ(f, (form{{"grant_type", "authorization_code"},
                     {"code", "CODE"},
                     {"redirect_uri", w.agent->redirect},
                     {"resource", w.resource()}}));
  const auto c = w.store->load(w.resource());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->authorization_server + " " + c->client_id + " " + c->client_secret + " " +
                c->token_endpoint_auth_method + " " + c->access_token + " " + c->refresh_token +
                " " + c->scope,
            w.issuer() + " dyn-client dyn-secret client_secret_basic at-1 rt-1 mcp");
  EXPECT_GT(c->expires_at, 0);
}

auth::oauth_credentials stored_for(const world& w) {
  auto c = sample("old");
  c.authorization_server = w.issuer();
  c.token_type.clear();  // a Bearer token
  c.dpop_jkt.clear();
  c.refresh_token = "r-old";
  c.expires_at = 0;  // unknown: refreshed when the server says so
  return c;
}

/// A token store on a disk that is full: nothing can be kept.
class full_store final : public auth::token_store {
 public:
  std::optional<auth::oauth_credentials> load(const std::string&) override { return {}; }
  mcp::result<void> save(const std::string&, const auth::oauth_credentials&) override {
    return mcp::error{mcp::errc::connection_closed, "cannot write tokens.json: disk full"};
  }
  mcp::result<void> erase(const std::string& r) override { return save(r, {}); }
};

TEST(oauth_client, an_agent_or_a_store_that_fails_ends_the_flow_with_its_message) {
  world w;
  w.agent->gives_up = true;
  const auto client = w.client();
  EXPECT_FALSE(client->refused(401, w.challenge(), ""));
  EXPECT_NE(client->last_error().find("the user did not come back"), std::string::npos)
      << client->last_error();
  EXPECT_EQ(client->authorization(), "");

  world v;
  auth::oauth_client_options o{.resource_url = v.resource(), .agent = v.agent};
  o.store = std::make_shared<full_store>();
  o.timeout = 3s;
  const auto full = std::make_shared<auth::oauth_client>(std::move(o));
  EXPECT_FALSE(full->refused(401, v.challenge(), ""));
  EXPECT_NE(full->last_error().find("cannot write tokens.json: disk full"), std::string::npos)
      << full->last_error();
  const auto out = full->sign_out();
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, "cannot write tokens.json: disk full");
}

TEST(oauth_client, a_refresh_token_is_used_before_asking_the_user_again) {
  world w;
  ASSERT_TRUE(w.store->save(w.resource(), stored_for(w)));
  const auto client = w.client();
  EXPECT_EQ(client->authorization(), "Bearer old");
  ASSERT_TRUE(client->refused(401, w.challenge(), "Bearer old")) << client->last_error();
  EXPECT_EQ(client->authorization(), "Bearer at-1");
  EXPECT_EQ(w.agent->calls, 0);
  const auto token = w.token_requests();
  ASSERT_EQ(token.size(), 1U);
  EXPECT_EQ(token[0].first, (form{{"grant_type", "refresh_token"},
                                  {"refresh_token", "r-old"},
                                  {"resource", w.resource()}}));
  EXPECT_EQ(token[0].second, "Basic " + mcp::base64_encode("cid:sec"));
  EXPECT_TRUE(w.as.requests("/register").empty());
  EXPECT_EQ(w.store->load(w.resource())->refresh_token, "rt-1");
}

TEST(oauth_client, a_refused_refresh_falls_back_to_the_authorization_code_flow) {
  world w({.refresh_fails = true});
  ASSERT_TRUE(w.store->save(w.resource(), stored_for(w)));
  const auto client = w.client();
  ASSERT_TRUE(client->refused(401, w.challenge(), "Bearer old")) << client->last_error();
  EXPECT_EQ(client->authorization(), "Bearer at-1");
  EXPECT_EQ(w.agent->calls, 1);
  EXPECT_EQ(w.agent->asked("client_id"), "cid");  // the stored registration
  const auto token = w.token_requests();
  ASSERT_EQ(token.size(), 2U);
  EXPECT_EQ(at(token[0].first, "grant_type"), "refresh_token");
  EXPECT_EQ(at(token[1].first, "grant_type"), "authorization_code");
  EXPECT_TRUE(w.as.requests("/register").empty());
}

TEST(oauth_client, a_flow_that_cannot_be_trusted_is_refused_with_a_reason) {
  struct scenario {
    setup s;
    std::function<void(test_agent&)> user;
    std::string why;
  };
  const scenario cases[] = {
      {{.s256 = false}, {}, "does not announce PKCE with S256"},
      {{.prm_resource = "https://other.example/mcp"}, {}, "is for https://other.example/mcp, not"},
      {{}, [](test_agent& a) { a.wrong_state = true; }, "the redirect's state is not the one sent"},
      {{}, [](test_agent& a) { a.deny = true; }, "authorization refused: access_denied"},
      {{},
       [](test_agent& a) { a.suffix = "&iss=https%3A%2F%2Fevil.example"; },
       "the redirect comes from issuer https://evil.example, not"},
      {{.promise_iss = true}, {}, "the redirect comes from issuer (none)"},
      {{.registration = false}, {}, "give a pre-registered client id"},
  };
  for (const auto& sc : cases) {
    SCOPED_TRACE(sc.why);
    world w(sc.s);
    if (sc.user) sc.user(*w.agent);
    const auto client = w.client();
    EXPECT_FALSE(client->refused(401, w.challenge(), ""));
    EXPECT_NE(client->last_error().find(sc.why), npos) << client->last_error();
    EXPECT_EQ(client->refusal_reason(), client->last_error());
    EXPECT_EQ(client->authorization(), "");
    EXPECT_TRUE(w.as.requests("/token").empty());
    EXPECT_FALSE(w.store->load(w.resource()));
  }
}

TEST(oauth_client, a_403_for_a_missing_scope_asks_again_for_both_scopes) {
  world w;
  const auto client = w.client();
  ASSERT_TRUE(client->refused(401, w.challenge(R"(error="invalid_token", scope="a")"), ""));
  EXPECT_EQ(w.agent->asked("scope"), "a");
  const auto step_up = R"(Bearer error="insufficient_scope", scope="b")";
  ASSERT_TRUE(client->refused(403, step_up, "Bearer at-1")) << client->last_error();
  EXPECT_EQ(w.agent->calls, 2);
  const auto asked = " " + w.agent->asked("scope") + " ";
  EXPECT_TRUE(asked.find(" a ") != npos && asked.find(" b ") != npos) << asked;
  EXPECT_EQ(client->authorization(), "Bearer at-2");
  // The challenge named no metadata: the well-known URL with the resource's path.
  EXPECT_EQ(w.rs.requests("/.well-known/oauth-protected-resource/mcp").size(), 1U);
  EXPECT_EQ(w.as.requests("/register").size(), 1U);
  // The token has "b" now: asking again cannot help.
  EXPECT_FALSE(client->refused(403, step_up, "Bearer at-2"));
  EXPECT_NE(client->last_error().find("has the scopes it asks for"), npos);
  EXPECT_EQ(w.agent->calls, 2);
}

TEST(oauth_client, concurrent_refusals_run_one_flow) {
  world w;
  w.agent->delay = 200ms;
  const auto client = w.client();
  const int retried = retried_of_two_refused_at_once(w, *client);
  EXPECT_EQ(retried, 2);
  EXPECT_EQ(w.agent->calls, 1);
  EXPECT_EQ(w.as.requests("/token").size(), 1U);
  EXPECT_EQ(client->authorization(), "Bearer at-1");
}

TEST(oauth_client, a_pre_registered_client_with_client_secret_post_sends_its_secret_in_the_body) {
  world w;
  const auto client = w.client({.resource_url = {},
                                .client_id = "pre",
                                .client_secret = "s3cret",
                                .token_endpoint_auth_method = "client_secret_post"});
  ASSERT_TRUE(client->refused(401, w.challenge(), "")) << client->last_error();
  EXPECT_EQ(w.agent->asked("client_id"), "pre");
  EXPECT_TRUE(w.as.requests("/register").empty());
  const auto token = w.token_requests();
  ASSERT_EQ(token.size(), 1U);
  EXPECT_EQ(token[0].second, "");  // no Basic header
  EXPECT_EQ(at(token[0].first, "client_id"), "pre");
  EXPECT_EQ(at(token[0].first, "client_secret"), "s3cret");
}

TEST(oauth_client, a_client_id_metadata_document_is_the_client_id_where_the_server_supports_it) {
  const std::string cimd = "https://client.example/mcp-client.json";
  world w({.cimd = true, .promise_iss = true});
  w.agent->suffix = "&iss=" + w.issuer();  // RFC 9207: the right issuer
  ASSERT_TRUE(
      w.client({.resource_url = {}, .client_metadata_url = cimd})->refused(401, w.challenge(), ""));
  EXPECT_EQ(w.agent->asked("client_id"), cimd);
  EXPECT_TRUE(w.as.requests("/register").empty());
  const auto token = w.token_requests();
  ASSERT_EQ(token.size(), 1U);
  EXPECT_EQ(token[0].second, "");
  EXPECT_EQ(at(token[0].first, "client_id"), cimd);
  EXPECT_FALSE(token[0].first.contains("client_secret"));
  // A server without that support: dynamic registration.
  world plain;
  ASSERT_TRUE(plain.client({.resource_url = {}, .client_metadata_url = cimd})
                  ->refused(401, plain.challenge(), ""));
  EXPECT_EQ(plain.agent->asked("client_id"), "dyn-client");
}

TEST(oauth_client, a_token_that_expires_after_use_is_refreshed_however_often) {
  world w;
  ASSERT_TRUE(w.store->save(w.resource(), stored_for(w)));
  const auto client = w.client();
  for (int i = 0; i < 4; ++i) {  // each token serves requests for a while, then expires: 401
    EXPECT_TRUE(client->refused(401, w.challenge(), client->authorization()))
        << "expiry " << i + 1 << ": " << client->last_error();
  }
  EXPECT_EQ(w.agent->calls, 0);
}

TEST(oauth_client, a_resource_that_refuses_every_new_token_is_given_up_on) {
  world w({.refresh_tokens = false});
  const auto client = w.client();  // max_attempts = 3
  for (int i = 0; i < 6 && client->refused(401, w.challenge(), client->authorization()); ++i) {
  }
  EXPECT_LE(w.agent->calls, 3) << "the user was asked " << w.agent->calls << " times";
  EXPECT_NE(client->last_error().find("giving up"), std::string::npos) << client->last_error();
}

TEST(oauth_client, step_up_adds_the_challenged_scope_to_configured_scopes) {
  world w;
  const auto client = w.client({.resource_url = {}, .scopes = {"a"}});
  ASSERT_TRUE(client->refused(401, w.challenge(), ""));
  ASSERT_TRUE(
      client->refused(403, R"(Bearer error="insufficient_scope", scope="b")", "Bearer at-1"));
  EXPECT_EQ(w.agent->asked("scope"), "a b");
}

TEST(oauth_client, a_failed_flow_is_not_run_again_by_the_requests_that_waited_for_it) {
  world w;
  w.agent->wrong_state = true;
  w.agent->delay = 200ms;
  const auto client = w.client();
  const int retried = retried_of_two_refused_at_once(w, *client);
  EXPECT_EQ(retried, 0);
  EXPECT_EQ(w.agent->calls, 1) << "the user was sent to the browser once";
  EXPECT_NE(client->last_error().find("state"), std::string::npos) << client->last_error();
}

TEST(oauth_client, no_token_goes_where_it_could_be_read_or_misused) {
  world w;
  auto client_for = [&](const std::string& resource) {
    return std::make_shared<auth::oauth_client>(auth::oauth_client_options{
        .resource_url = resource, .agent = w.agent, .store = w.store, .timeout = 3s});
  };
  // A remote server whose challenge points at this machine: nothing is fetched.
  const auto remote = client_for("https://mcp.example.test/mcp");
  EXPECT_FALSE(remote->refused(401, w.challenge(), ""));
  EXPECT_NE(remote->last_error().find("is on this machine"), std::string::npos)
      << remote->last_error();
  EXPECT_TRUE(w.rs.requests("/meta").empty());
  // Plain http to another host: no flow at all.
  const auto plain = client_for("http://mcp.example.test/mcp");
  EXPECT_FALSE(plain->refused(401, w.challenge(), ""));
  EXPECT_NE(plain->last_error().find("no token is sent"), std::string::npos) << plain->last_error();
  EXPECT_EQ(w.agent->calls, 0);
}

TEST(oauth_client, a_token_that_would_break_the_header_is_refused) {
  world w({.header_breaking_token = true});
  const auto client = w.client();
  EXPECT_FALSE(client->refused(401, w.challenge(), ""));
  EXPECT_NE(client->last_error().find("an Authorization header can carry"), std::string::npos)
      << client->last_error();
  EXPECT_EQ(client->authorization(), "");
}

// ---- the 2026-07-28 rules ------------------------------------------------------------------

TEST(oauth_client, the_redirects_iss_is_checked_as_rfc_9207_and_mcp_2026_say) {
  struct row {
    bool promised;
    std::string iss;  ///< "-": absent; "=": the issuer; else appended to the redirect as is
    bool accepted;
  };
  const row rows[] = {
      {true, "=", true},
      {true, "-", false},
      {false, "=", true},
      {false, "-", true},
      {false, "https%3A%2F%2Fevil.example", false},
      {true, "https%3A%2F%2Fevil.example", false},
      {true, "/", false},     // the issuer with a trailing slash: no normalization
      {true, "HTTP", false},  // the scheme in capitals: no case folding
  };
  for (const auto& r : rows) {
    world w({.promise_iss = r.promised});
    std::string iss = w.issuer();
    if (r.iss == "/") iss += "/";
    if (r.iss == "HTTP") iss = "HTTP" + iss.substr(4);
    if (r.iss != "-") w.agent->suffix = "&iss=" + (r.iss.find('%') != npos ? r.iss : iss);
    SCOPED_TRACE((r.promised ? "promised, iss " : "not promised, iss ") + r.iss);
    w.agent->deny = !r.accepted;  // a mix-up attacker's error text is not shown either
    const auto client = w.client();
    EXPECT_EQ(client->refused(401, w.challenge(), ""), r.accepted) << client->last_error();
    if (!r.accepted) {
      EXPECT_NE(client->last_error().find("the redirect comes from issuer"), npos)
          << client->last_error();
      EXPECT_EQ(client->last_error().find("access_denied"), npos);
      EXPECT_TRUE(w.as.requests("/token").empty()) << "the code is not redeemed";
    }
  }
}

TEST(oauth_client, metadata_naming_another_issuer_even_by_a_slash_is_not_used) {
  // RFC 8414 §3.3: identical to the issuer asked for; a trailing slash is another issuer.
  world w({.issuer_suffix = "/"});
  const auto client = w.client();
  EXPECT_FALSE(client->refused(401, w.challenge(), ""));
  EXPECT_NE(client->last_error().find("names issuer " + w.issuer() + "/, not"), npos)
      << client->last_error();
  EXPECT_TRUE(w.as.requests("/register").empty());
  EXPECT_EQ(w.agent->calls, 0);
}

TEST(oauth_client, dynamic_registration_says_what_kind_of_application_this_is) {
  const std::pair<std::string, std::string> cases[] = {
      {"http://127.0.0.1:1/callback", "native"},
      {"http://localhost:8/cb", "native"},
      {"com.example.app:/oauth", "native"},
      {"https://app.example/oauth/callback", "web"}};
  for (const auto& [redirect, type] : cases) {
    SCOPED_TRACE(redirect);
    world w;
    w.agent->redirect = redirect;
    ASSERT_TRUE(w.client()->refused(401, w.challenge(), ""));
    const auto reg = w.as.requests("/register");
    ASSERT_EQ(reg.size(), 1U);
    const auto body = json::parse(reg[0].body).as_object();
    EXPECT_EQ(body.at("application_type").as_string(), type);
    EXPECT_EQ(json::serialize(body.at("grant_types")), R"(["authorization_code","refresh_token"])");
  }
  // An explicit type wins.
  world w;
  ASSERT_TRUE(
      w.client({.resource_url = {}, .application_type = "web"})->refused(401, w.challenge(), ""));
  EXPECT_EQ(json::parse(w.as.requests("/register")[0].body).at("application_type"), "web");
}

TEST(oauth_client, offline_access_is_asked_only_of_a_server_that_lists_it) {
  world lists({.as_scopes = {"mcp", "offline_access"}});
  ASSERT_TRUE(lists.client()->refused(401, lists.challenge(), ""));
  EXPECT_EQ(lists.agent->asked("scope"), "mcp offline_access");
  // Not listed: not asked, even when the resource names it.
  world silent({.as_scopes = {"mcp"}});
  ASSERT_TRUE(silent.client()->refused(
      401, silent.challenge(R"(error="invalid_token", scope="mcp offline_access")"), ""));
  EXPECT_EQ(silent.agent->asked("scope"), "mcp");
  // Turned off.
  world off({.as_scopes = {"mcp", "offline_access"}});
  ASSERT_TRUE(
      off.client({.resource_url = {}, .offline_access = false})->refused(401, off.challenge(), ""));
  EXPECT_EQ(off.agent->asked("scope"), "mcp");
}

TEST(oauth_client, step_up_asks_for_what_was_asked_before_plus_the_challenge) {
  // The server granted less than was asked ("a" of "a b"); the union keeps asking for "b".
  world w({.granted_scope = "a"});
  const auto client = w.client();
  ASSERT_TRUE(client->refused(401, w.challenge(R"(error="invalid_token", scope="a b")"), ""));
  ASSERT_TRUE(
      client->refused(403, R"(Bearer error="insufficient_scope", scope="c")", "Bearer at-1"))
      << client->last_error();
  EXPECT_EQ(w.agent->asked("scope"), "a b c");
  EXPECT_EQ(w.store->load(w.resource())->requested_scope, "a b c");
}

TEST(oauth_client, a_new_authorization_server_gets_a_new_registration_and_none_of_the_old) {
  world w1;
  world w2({.client_id = "as2-client"});
  const auto client = w1.client();
  ASSERT_TRUE(client->refused(401, w1.challenge(), ""));
  EXPECT_EQ(w1.store->load(w1.resource())->client_id, "dyn-client");
  // The resource moves to another authorization server; its token is refused.
  w1.point_to(w2.issuer());
  ASSERT_TRUE(client->refused(401, w1.challenge(), "Bearer at-1")) << client->last_error();
  EXPECT_EQ(w2.as.requests("/register").size(), 1U);
  EXPECT_EQ(w1.token_requests().size(), 1U) << "no refresh at the old server";
  for (const auto& r : w2.as.requests()) {
    EXPECT_EQ(r.target.find("dyn-client"), npos) << r.target;
    EXPECT_EQ(r.body.find("dyn-client"), npos) << r.body;
  }
  EXPECT_EQ(w1.agent->asked("client_id"), "as2-client");
  const auto c = w1.store->load(w1.resource());
  EXPECT_EQ(c->authorization_server, w2.issuer());
  EXPECT_EQ(c->client_id, "as2-client");
}

TEST(oauth_client, pre_registered_credentials_go_to_their_own_issuer_only) {
  world w;
  const auto client = w.client({.resource_url = {},
                                .client_id = "pre",
                                .client_secret = "s",
                                .client_issuer = "https://as.elsewhere.example"});
  EXPECT_FALSE(client->refused(401, w.challenge(), ""));
  EXPECT_NE(client->last_error().find("is registered with https://as.elsewhere.example"), npos)
      << client->last_error();
  EXPECT_EQ(w.agent->calls, 0);
  EXPECT_TRUE(w.as.requests("/token").empty());
  // Its own issuer: used.
  const auto right = w.client(
      {.resource_url = {}, .client_id = "pre", .client_secret = "s", .client_issuer = w.issuer()});
  EXPECT_TRUE(right->refused(401, w.challenge(), "")) << right->last_error();
  EXPECT_EQ(w.agent->asked("client_id"), "pre");
}

}  // namespace
