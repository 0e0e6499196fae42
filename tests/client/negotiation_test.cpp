// mcp/client.hpp in both protocol eras, at the wire: our client against our own server over
// stdio (the demo binary, launched) and Streamable HTTP (127.0.0.1), in each negotiation mode;
// against the TypeScript SDK 1.x reference server (2025-11-25 only) for the fallback; and a
// scripted peer for what a real server does not send (unknown resultType, endless rounds, a
// -32022 naming the revision sent, tools with invalid x-mcp-header annotations).
#include <mcp/client.hpp>
#include <mcp/content.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/transport/memory.hpp>
#include <mcp/transport/process.hpp>

#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "client_util.hpp"
#include "modern_util.hpp"
#include "param_headers.hpp"
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using mcp::json::object;

/// Client options answering elicitation with the name "Ada" and sampling with "short".
mcp::client_options answering(mcp::negotiation mode, std::string version = "2025-11-25") {
  mcp::client_options o;
  o.info = {.name = "negotiation-test", .version = "1"};
  o.protocol_version = std::move(version);
  o.negotiate = mode;
  o.on_elicitation = [](const mcp::elicitation_request&, std::stop_token) {
    return mcp::result<mcp::elicitation_answer>(
        mcp::elicitation_answer::accept(object{{"name", "Ada"}}));
  };
  o.on_sampling = [](const mcp::sampling_request&, std::stop_token) {
    return mcp::result<mcp::sampling_answer>(mcp::sampling_answer{
        .role = "assistant", .content = mcp::text_content("short"), .model = "test"});
  };
  return o;
}

std::string text_of(const mcp::result<object>& r) {
  return r ? mcp::client_session::joined_text(*r) : "error: " + r.error().message;
}

// ---- stdio: the demo server, launched ----

using client_test::launch_demo;

TEST(ClientNegotiationStdio, AutoPicks20260728AndAnswersRounds) {
  auto s = launch_demo(answering(mcp::negotiation::automatic));
  ASSERT_TRUE(s) << s.error().message;
  auto& c = *s->client;
  EXPECT_EQ(c.era(), mcp::protocol_era::modern);
  EXPECT_EQ(c.protocol_version(), "2026-07-28");
  auto info = c.server_info();
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->protocol_version, "2026-07-28");
  EXPECT_FALSE(info->server_info.name.empty());
  auto tools = c.list_tools();
  ASSERT_TRUE(tools) << tools.error().message;
  EXPECT_GE(tools->size(), 8U);
  EXPECT_EQ(text_of(c.call_tool("ask_name")), "Hello, Ada!");
  EXPECT_EQ(text_of(c.call_tool("summarize", {{"text", "a long text"}})), "Summary: short");
  auto typed = c.call_tool<std::string>("echo", object{{"text", "typed"}});
  ASSERT_TRUE(typed) << typed.error().message;
  ASSERT_TRUE(typed->ok());
  EXPECT_EQ(typed->value(), "typed");
  c.close();
}

TEST(ClientNegotiationStdio, LegacyStaysIn20251125AndAnswersRequests) {
  auto s = launch_demo(answering(mcp::negotiation::legacy));
  ASSERT_TRUE(s) << s.error().message;
  auto& c = *s->client;
  EXPECT_EQ(c.era(), mcp::protocol_era::legacy);
  EXPECT_EQ(c.protocol_version(), "2025-11-25");
  EXPECT_EQ(text_of(c.call_tool("ask_name")), "Hello, Ada!");
  EXPECT_EQ(text_of(c.call_tool("summarize", {{"text", "a long text"}})), "Summary: short");
  c.close();
}

TEST(ClientNegotiationStdio, PinnedToEachEra) {
  auto modern = launch_demo(answering(mcp::negotiation::pinned, "2026-07-28"));
  ASSERT_TRUE(modern) << modern.error().message;
  EXPECT_EQ(modern->client->era(), mcp::protocol_era::modern);
  modern->client->close();
  auto old = launch_demo(answering(mcp::negotiation::pinned, "2025-06-18"));
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->client->era(), mcp::protocol_era::legacy);
  EXPECT_EQ(old->client->protocol_version(), "2025-06-18");
  old->client->close();
}

TEST(ClientNegotiation, ParsesTheProtocolOption) {
  auto a = mcp::parse_negotiation("auto");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->first, mcp::negotiation::automatic);
  auto p = mcp::parse_negotiation("2026-07-28");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->first, mcp::negotiation::pinned);
  EXPECT_EQ(p->second, "2026-07-28");
  EXPECT_EQ(mcp::parse_negotiation("legacy")->first, mcp::negotiation::legacy);
  EXPECT_FALSE(mcp::parse_negotiation("2027-01-01"));
}

// ---- Streamable HTTP: our server on 127.0.0.1 ----

class ClientNegotiationHttp : public mcp_test::http_fixture {
 protected:
  void SetUp() override {
    mcp_test::add_modern_tools(server_);
    start();
  }
  mcp::result<mcp::http_server_link> connect(mcp::client_options o) {
    return mcp::connect_http({.url = "http://127.0.0.1:" + std::to_string(port_) + "/mcp"},
                             std::move(o));
  }
};

TEST_F(ClientNegotiationHttp, AutoPicks20260728WithItsHeaders) {
  auto link = connect(answering(mcp::negotiation::automatic));
  ASSERT_TRUE(link) << link.error().message;
  auto& c = *link->client;
  EXPECT_EQ(c.era(), mcp::protocol_era::modern);
  EXPECT_EQ(link->connection->protocol_version(), "2026-07-28");
  EXPECT_TRUE(link->connection->session_id().empty());  // stateless
  // The server refuses a POST whose Mcp-Method / Mcp-Name do not mirror the body: these pass.
  EXPECT_EQ(text_of(c.call_tool("echo", {{"text", "über"}})), "über");
  auto doc = c.read_resource_contents("test://doc");
  ASSERT_TRUE(doc) << doc.error().message;
  ASSERT_EQ(doc->contents.size(), 1U);
  auto prompt = c.get_prompt_messages("hello");
  ASSERT_TRUE(prompt) << prompt.error().message;
  // Mcp-Param-* for the properties `route` marks, a value that needs the base64 sentinel too.
  ASSERT_TRUE(c.list_all_tools());
  EXPECT_EQ(
      text_of(c.call_tool("route", {{"region", " zürich"}, {"priority", 3}, {"urgent", true}})),
      " zürich/3!");
  // An input round, blocking and asynchronous.
  EXPECT_EQ(text_of(c.call_tool("greet", {{"text", "Hi"}})), "Hi, Ada!");
  std::promise<mcp::result<object>> p;
  c.call_tool_async("greet_twice", {{"text", "Hey"}},
                    [&p](mcp::result<object> r) { p.set_value(std::move(r)); });
  EXPECT_EQ(text_of(p.get_future().get()), "Hey, Ada!");
  c.close();
}

TEST_F(ClientNegotiationHttp, LegacyAndPinned) {
  auto legacy = connect(answering(mcp::negotiation::legacy));
  ASSERT_TRUE(legacy) << legacy.error().message;
  EXPECT_EQ(legacy->client->era(), mcp::protocol_era::legacy);
  EXPECT_FALSE(legacy->connection->session_id().empty());
  EXPECT_EQ(text_of(legacy->client->call_tool("greet", {{"text", "Hi"}})), "Hi, Ada!");
  legacy->client->close();
  auto pinned = connect(answering(mcp::negotiation::pinned, "2026-07-28"));
  ASSERT_TRUE(pinned) << pinned.error().message;
  EXPECT_EQ(pinned->client->era(), mcp::protocol_era::modern);
  pinned->client->close();
}

TEST_F(ClientNegotiationHttp, ARoundWithoutAHandlerFailsTheCall) {
  mcp::client_options o;
  o.negotiate = mcp::negotiation::automatic;
  auto link = connect(std::move(o));
  ASSERT_TRUE(link) << link.error().message;
  // Without on_elicitation the client declares no elicitation: the server says -32021.
  auto r = link->client->call_tool("greet", {{"text", "Hi"}});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::missing_required_client_capability)) << r.error().message;
  link->client->close();
}

// ---- header values ----

TEST(ClientHeaders, EncodesWhatAHeaderCannotCarry) {
  using mcp::detail::decode_header_value;
  using mcp::detail::encode_header_value;
  EXPECT_EQ(encode_header_value("tools/call"), "tools/call");
  for (std::string v :
       {"plain", " lead", "trail\t", "ünïcode", "a\nb", "=?base64?abc?=", "", "=?base64?", "x?="}) {
    const auto e = encode_header_value(v);
    for (const char ch : e) {
      const auto u = static_cast<unsigned char>(ch);
      EXPECT_TRUE(u >= 0x20 && u < 0x7f) << v;
    }
    auto d = decode_header_value(e);
    ASSERT_TRUE(d) << v;
    EXPECT_EQ(*d, v);
  }
  EXPECT_EQ(encode_header_value("=?base64?abc?="), "=?base64?PT9iYXNlNjQ/YWJjPz0=?=");
}

// ---- a scripted peer: what our server does not send ----

/// A server side on a memory pair that answers server/discover and hands every other request to
/// `answer` (the request's id and params; returns the result object).
struct scripted_peer {
  std::shared_ptr<mcp::memory_connection> server_end, client_end;
  std::function<object(std::int64_t, const object&)> answer;
  std::mutex mu;
  std::vector<object> seen;  // params of every request but discover
  int refuse_discover = 0;   // the first ones are answered -32022 naming 2026-07-28
  int discovers = 0;

  scripted_peer() {
    auto [s, c] = mcp::make_memory_pair();
    server_end = s;
    client_end = c;
    server_end->on_receive([this](std::string_view text) {
      auto v = mcp::parse_json(text);
      if (!v || !v->is_object() || !v->get_object().contains("id")) return;
      const auto& m = v->get_object();
      const auto id = m.at("id").as_int64();
      const object params = m.contains("params") ? m.at("params").as_object() : object{};
      object result;
      if (m.at("method") == "server/discover" && discovers++ < refuse_discover) {
        object error{{"code", -32022},
                     {"message", "Unsupported protocol version"},
                     {"data", object{{"supported", mcp::json::array{"2026-07-28"}},
                                     {"requested", "2026-07-28"}}}};
        object reply{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
        server_end->send(mcp::json::serialize(reply), {});
        return;
      }
      if (m.at("method") == "server/discover") {
        result = object{{"resultType", "complete"},
                        {"supportedVersions", mcp::json::array{"2026-07-28"}},
                        {"capabilities", object{{"tools", object{}}}},
                        {"ttlMs", 0},
                        {"cacheScope", "public"}};
      } else {
        {
          std::lock_guard lock(mu);
          seen.push_back(params);
        }
        result = answer(id, params);
      }
      object reply{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
      server_end->send(mcp::json::serialize(reply), {});
    });
  }
};

TEST(ClientRounds, UnknownResultTypeIsAnError) {
  scripted_peer peer;
  peer.answer = [](std::int64_t, const object&) {
    return object{{"resultType", "surprise"}, {"content", mcp::json::array{}}};
  };
  mcp::client_session c(peer.client_end, {.negotiate = mcp::negotiation::automatic});
  peer.client_end->on_receive([&c](std::string_view m) { c.receive(m); });
  ASSERT_TRUE(c.initialize());
  EXPECT_EQ(c.era(), mcp::protocol_era::modern);
  auto r = c.call_tool("x");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("unknown resultType"), std::string::npos) << r.error().message;
  // A missing resultType is complete.
  peer.answer = [](std::int64_t, const object&) {
    return object{{"content", mcp::json::array{object{{"type", "text"}, {"text", "ok"}}}}};
  };
  EXPECT_EQ(text_of(c.call_tool("x")), "ok");
}

TEST(ClientRounds, EchoesStateWithNewIdsAndStopsAtTheBound) {
  scripted_peer peer;
  std::vector<std::int64_t> ids;
  peer.answer = [&ids](std::int64_t id, const object&) {
    ids.push_back(id);
    return object{
        {"resultType", "input_required"},
        {"requestState", "state-" + std::to_string(ids.size()) + " \xC3\xBC"},
        {"inputRequests",
         object{
             {"q", object{{"method", "elicitation/create"},
                          {"params", object{{"message", "again?"},
                                            {"requestedSchema", object{{"type", "object"}}}}}}}}}};
  };
  auto o = answering(mcp::negotiation::automatic);
  o.max_input_rounds = 3;
  mcp::client_session c(peer.client_end, std::move(o));
  peer.client_end->on_receive([&c](std::string_view m) { c.receive(m); });
  ASSERT_TRUE(c.initialize());
  auto r = c.call_tool("x", {{"a", 1}});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::limit_exceeded)) << r.error().message;
  std::lock_guard lock(peer.mu);
  ASSERT_EQ(peer.seen.size(), 4U);  // the first try and three retries
  std::set<std::int64_t> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), ids.size());
  EXPECT_FALSE(peer.seen[0].contains("requestState"));
  for (std::size_t i = 1; i < peer.seen.size(); ++i) {
    const auto& p = peer.seen[i];
    EXPECT_EQ(p.at("requestState").as_string(), "state-" + std::to_string(i) + " \xC3\xBC");
    EXPECT_EQ(p.at("arguments"), (object{{"a", 1}}));  // the original params
    const auto& answer = p.at("inputResponses").at("q").as_object();
    EXPECT_EQ(answer.at("action"), "accept");
    const auto& meta = p.at("_meta").as_object();
    EXPECT_EQ(meta.at("io.modelcontextprotocol/protocolVersion"), "2026-07-28");
    EXPECT_TRUE(
        meta.at("io.modelcontextprotocol/clientCapabilities").as_object().contains("elicitation"));
    EXPECT_EQ(meta.at("io.modelcontextprotocol/clientInfo").at("name"), "negotiation-test");
  }
}

TEST(ClientNegotiation, RetriesOnceWhenRefusedARevisionTheServerNames) {
  // -32022 naming the very revision sent (the official suite's server refuses the first request
  // so): tried once more, and that is the new era.
  scripted_peer once;
  once.refuse_discover = 1;
  mcp::client_session c(once.client_end, {.negotiate = mcp::negotiation::automatic});
  once.client_end->on_receive([&c](std::string_view m) { c.receive(m); });
  ASSERT_TRUE(c.initialize());
  EXPECT_EQ(c.era(), mcp::protocol_era::modern);
  EXPECT_EQ(once.discovers, 2);
  // Refused again: no third try, and no revision left to speak.
  scripted_peer always;
  always.refuse_discover = 100;
  mcp::client_session d(always.client_end, {.negotiate = mcp::negotiation::automatic});
  always.client_end->on_receive([&d](std::string_view m) { d.receive(m); });
  auto r = d.initialize();
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::not_supported)) << r.error().message;
  EXPECT_EQ(always.discovers, 2);
}

TEST(ClientNegotiation, AnInitializeThatFailsAfterTheFallbackNamesTheProbesErrorToo) {
  // A peer that refuses both: the error says what each answered, so that a user sees why the
  // probe did not settle the era.
  auto [server_end, client_end] = mcp::make_memory_pair();
  std::shared_ptr<mcp::memory_connection> server = server_end;
  server->on_receive([server](std::string_view text) {
    auto v = mcp::parse_json(text);
    if (!v || !v->is_object() || !v->get_object().contains("id")) return;
    const auto& m = v->get_object();
    const bool probe = m.at("method").as_string() == "server/discover";
    object err{{"code", probe ? -32601 : -32603},
               {"message", probe ? "no such method here" : "initialize refused here"}};
    object out{{"jsonrpc", "2.0"}, {"id", m.at("id")}, {"error", std::move(err)}};
    server->send(mcp::json::serialize(out), {});
  });
  mcp::client_session c(client_end, {.negotiate = mcp::negotiation::automatic});
  client_end->on_receive([&c](std::string_view m) { c.receive(m); });
  auto r = c.initialize();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, -32603);
  EXPECT_NE(r.error().message.find("initialize refused here"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("server/discover before it: no such method here"),
            std::string::npos)
      << r.error().message;
  c.close();
}

/// A TCP listener on 127.0.0.1 that reads each request's head (giving up on a connection quiet
/// for 5 s) and closes the connection without an answer, counting the requests.
struct silent_listener {
  struct state {
    int fd = -1;
    std::atomic<bool> stop{false};
    std::atomic<int> requests{0};
  };
  std::shared_ptr<state> st = std::make_shared<state>();
  std::uint16_t port = 0;
  std::thread loop;

  silent_listener() {
    st->fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(st->fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(st->fd, 8) != 0 ||
        ::getsockname(st->fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      return;
    }
    port = ntohs(a.sin_port);
    loop = std::thread([s = st] {
      while (!s->stop) {
        pollfd p{.fd = s->fd, .events = POLLIN, .revents = 0};
        if (::poll(&p, 1, 50) <= 0) continue;
        const int c = ::accept4(s->fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) continue;
        const timeval quiet{.tv_sec = 5, .tv_usec = 0};  // a client that never sends: let go
        ::setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &quiet, sizeof quiet);
        std::string head;
        char buf[4096];
        ssize_t n = 0;
        while (head.find("\r\n\r\n") == std::string::npos && (n = ::read(c, buf, sizeof buf)) > 0) {
          head.append(buf, static_cast<std::size_t>(n));
        }
        if (head.find("\r\n\r\n") != std::string::npos) ++s->requests;
        ::close(c);
      }
    });
  }
  ~silent_listener() {
    st->stop = true;
    if (loop.joinable()) loop.join();
    ::close(st->fd);
  }
};

TEST(ClientNegotiation, NoHttpAnswerToTheProbeIsTheErrorNotAServerOfTheOldEra) {
  // The spec's HTTP rule falls back on a 400 without a modern error; a connection closed with
  // no answer tells of no era: the probe's failure is reported, no initialize follows.
  silent_listener server;
  ASSERT_NE(server.port, 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port) + "/mcp";
  auto link = mcp::connect_http({.url = url}, answering(mcp::negotiation::automatic));
  ASSERT_FALSE(link);
  EXPECT_TRUE(link.error().is(mcp::errc::connection_closed)) << link.error().message;
  EXPECT_NE(link.error().message.find("HTTP re"), std::string::npos) << link.error().message;
  EXPECT_EQ(link.error().message.find("server/discover before it"), std::string::npos)
      << link.error().message;
  EXPECT_EQ(server.st->requests.load(), 1);
}

/// The memory pair's client end, saying it is Streamable HTTP (where x-mcp-header matters).
class http_facts final : public mcp::connection {
 public:
  explicit http_facts(std::shared_ptr<mcp::memory_connection> c) : c_(std::move(c)) {}
  void send(std::string m, const mcp::send_context& ctx) override { c_->send(std::move(m), ctx); }
  void close() override { c_->close(); }
  [[nodiscard]] mcp::connection_facts facts() const override {
    return {.network_transport = "tcp", .protocol_name = "http", .protocol_version = "1.1"};
  }

 private:
  std::shared_ptr<mcp::memory_connection> c_;
};

object tool_with(std::string name, object property) {
  return object{{"name", std::move(name)},
                {"inputSchema", object{{"type", "object"},
                                       {"properties", object{{"a", std::move(property)},
                                                             {"b", object{{"type", "string"}}}}}}}};
}

TEST(ClientHeaders, ToolsWithInvalidAnnotationsAreLeftOutOverHttp) {
  const auto listing = [](std::int64_t, const object&) {
    mcp::json::array tools{
        tool_with("good", object{{"type", "string"}, {"x-mcp-header", "Region"}}),
        tool_with("empty", object{{"type", "string"}, {"x-mcp-header", ""}}),
        tool_with("spaced", object{{"type", "string"}, {"x-mcp-header", "My Region"}}),
        tool_with("number", object{{"type", "number"}, {"x-mcp-header", "Rate"}}),
        tool_with("plain", object{{"type", "string"}})};
    object twice = tool_with("twice", object{{"type", "string"}, {"x-mcp-header", "Id"}});
    twice["inputSchema"].as_object()["properties"].as_object()["b"].as_object()["x-mcp-header"] =
        "ID";
    tools.emplace_back(std::move(twice));
    return object{{"tools", std::move(tools)}};
  };
  scripted_peer peer;
  peer.answer = listing;
  std::vector<std::string> warnings;
  mcp::client_options o{.negotiate = mcp::negotiation::automatic};
  o.on_warning = [&warnings](std::string_view w) { warnings.emplace_back(w); };
  mcp::client_session c(std::make_shared<http_facts>(peer.client_end), std::move(o));
  peer.client_end->on_receive([&c](std::string_view m) { c.receive(m); });
  ASSERT_TRUE(c.initialize());
  auto tools = c.list_tools();
  ASSERT_TRUE(tools) << tools.error().message;
  std::vector<std::string> names;
  for (const auto& t : *tools) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"good", "plain"}));
  ASSERT_EQ(warnings.size(), 4U);
  for (const auto* bad : {"\"empty\"", "\"spaced\"", "\"number\"", "\"twice\""}) {
    EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(), [bad](const std::string& w) {
      return w.find(bad) != std::string::npos;
    })) << bad;
  }
  // Over stdio the annotations may be ignored: every tool is listed.
  scripted_peer stdio;
  stdio.answer = listing;
  mcp::client_session d(stdio.client_end, {.negotiate = mcp::negotiation::automatic});
  stdio.client_end->on_receive([&d](std::string_view m) { d.receive(m); });
  ASSERT_TRUE(d.initialize());
  auto all = d.list_tools();
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->size(), 6U);
}

TEST(ClientHeaders, TheListingAfterAHeaderRefusalLeavesThemOutToo) {
  // A tools/call refused for its headers (-32020) lists the tools anew before its one retry:
  // that listing leaves out a tool whose annotations became invalid, as every listing does.
  client_test::scripted_peer peer;
  std::atomic<int> listings{0};
  peer.answer = [&listings](const std::string& method, const object&) -> client_test::reply {
    if (method == "tools/call") return client_test::reply::failure(-32020, "Header mismatch");
    mcp::json::array tools{
        tool_with("good", object{{"type", "string"}, {"x-mcp-header", "Region"}})};
    if (listings++ > 0) {
      tools.emplace_back(
          tool_with("spaced", object{{"type", "string"}, {"x-mcp-header", "My Region"}}));
    }
    return client_test::reply::success(object{{"tools", std::move(tools)}});
  };
  std::mutex mu;
  std::vector<std::string> warnings;
  mcp::client_options o{.negotiate = mcp::negotiation::automatic};
  o.on_warning = [&](std::string_view w) {
    std::lock_guard lock(mu);
    warnings.emplace_back(w);
  };
  mcp::client_session c(std::make_shared<http_facts>(peer.client_end), std::move(o));
  peer.client_end->on_receive([&c](std::string_view m) { c.receive(m); });
  ASSERT_TRUE(c.initialize());
  auto first = c.list_tools();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->size(), 1U);
  auto r = c.call_tool("good", {{"a", "north"}});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(mcp::errc::header_mismatch)) << r.error().message;
  EXPECT_EQ(listings.load(), 2);  // listed anew once
  std::lock_guard lock(mu);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("left out"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("\"spaced\""), std::string::npos) << warnings[0];
}

// ---- the TypeScript SDK 1.x reference server: 2025-11-25 only ----

using client_test::ts_ref_server;

std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST(ClientNegotiationLegacyPeer, AutoFallsBackOverStdioAndPinnedSaysWhy) {
  const auto ref = ts_ref_server();
  if (ref.empty()) GTEST_SKIP() << "needs node and ../shared/bench (setup.sh): skipped";
  auto s = mcp::launch_server({.argv = {"node", ref, "stdio", "--sdk", "v1"}},
                              answering(mcp::negotiation::automatic));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->client->era(), mcp::protocol_era::legacy);
  EXPECT_EQ(s->client->protocol_version(), "2025-11-25");
  EXPECT_EQ(text_of(s->client->call_tool("echo", {{"text", "fallback"}})), "fallback");
  s->client->close();
  auto pinned = mcp::launch_server({.argv = {"node", ref, "stdio", "--sdk", "v1"}},
                                   answering(mcp::negotiation::pinned, "2026-07-28"));
  ASSERT_FALSE(pinned);
  EXPECT_TRUE(pinned.error().is(mcp::errc::not_supported)) << pinned.error().message;
  EXPECT_NE(pinned.error().message.find("2026-07-28"), std::string::npos);
}

TEST(ClientNegotiationLegacyPeer, AutoFallsBackOverHttp) {
  const auto ref = ts_ref_server();
  if (ref.empty()) GTEST_SKIP() << "needs node and ../shared/bench (setup.sh): skipped";
  for (const char* state : {"--stateful", "--stateless"}) {
    const auto port = free_port();
    auto proc = mcp::make_process_connection(
        {.argv = {"node", ref, "http", "--sdk", "v1", "--port", std::to_string(port), state},
         .on_stderr = [](std::string_view) {},
         .grace = std::chrono::milliseconds(100)});
    ASSERT_TRUE(proc) << proc.error().message;
    (*proc)->start([](std::string_view) {});
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
    mcp::result<mcp::http_server_link> link = mcp::error{mcp::errc::internal_error, "not tried"};
    for (int i = 0; i < 100; ++i) {  // until it listens
      link = mcp::connect_http({.url = url}, answering(mcp::negotiation::automatic));
      if (link || link.error().message.find("HTTP request failed") == std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(link) << state << ": " << link.error().message;
    EXPECT_EQ(link->client->era(), mcp::protocol_era::legacy) << state;
    EXPECT_EQ(text_of(link->client->call_tool("echo", {{"text", "over http"}})), "over http");
    link->client->close();
    auto pinned =
        mcp::connect_http({.url = url}, answering(mcp::negotiation::pinned, "2026-07-28"));
    ASSERT_FALSE(pinned) << state;
    EXPECT_TRUE(pinned.error().is(mcp::errc::not_supported)) << pinned.error().message;
    (*proc)->close();
  }
}

}  // namespace
