// The observation seam in the session engine (server_options::observer,
// client_options::observer): a client and a server of this process, each with the SDK's tracer
// (its spans collected here) or its metrics, over the in-process transport. What the
// conventions ask of each span (name, kind, parent through `_meta`, attributes, outcome), the
// span of a request the server sends inside a call, metrics counts, and the trace id in the
// handler's context and the audit line.
#include <mcp/audit.hpp>
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/observe/metrics.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/server.hpp>
#include <mcp/transport/memory.hpp>
#include <mcp/transport/stdio.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using mcp::json::object;
using mcp::observe::kind;
using mcp::observe::span_record;
using namespace std::chrono_literals;

/// The spans a tracer finished, waitable.
struct collected {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<span_record> spans;

  std::shared_ptr<mcp::observe::observer> tracer(double root_sample_ratio = 1) {
    return mcp::observe::make_tracer({.sink =
                                          [this](std::unique_ptr<span_record> r) {
                                            std::lock_guard lock(mu);
                                            spans.push_back(std::move(*r));
                                            cv.notify_all();
                                          },
                                      .root_sample_ratio = root_sample_ratio});
  }
  /// The span named `name` of kind `side`, waiting up to 5 s for it.
  std::optional<span_record> find(std::string_view name, kind side) {
    std::unique_lock lock(mu);
    std::optional<span_record> out;
    cv.wait_for(lock, 5s, [&] {
      auto it = std::find_if(spans.begin(), spans.end(), [&](const span_record& s) {
        return s.name() == name && s.side() == side;
      });
      if (it != spans.end()) out = *it;
      return out.has_value();
    });
    return out;
  }
};

/// The string value of attribute `key`, or "(none)".
std::string attr(const span_record& s, std::string_view key) {
  std::string out = "(none)";
  s.for_each_attribute([&](std::string_view k, const mcp::observe::attribute_value& v) {
    if (k != key) return;
    if (const auto* t = std::get_if<std::string>(&v)) {
      out = *t;
    } else if (const auto* n = std::get_if<std::int64_t>(&v)) {
      out = std::to_string(*n);
    } else {
      out = std::get<bool>(v) ? "true" : "false";
    }
  });
  return out;
}

void add_tools(mcp::server& s, std::string* seen_trace = nullptr) {
  s.add_tool({.name = "add"}, [seen_trace](mcp::tool_context& ctx) {
    if (seen_trace != nullptr) *seen_trace = ctx.trace_id();
    return std::string("3");
  });
  s.add_tool({.name = "fail"}, [](mcp::tool_context&) -> mcp::call_tool_result {
    return mcp::call_tool_result{.content = {mcp::text_content("no")}, .is_error = true};
  });
  s.add_tool({.name = "ask"}, [](mcp::tool_context& ctx) -> mcp::result<std::string> {
    auto a = ctx.elicit(
        object{{"message", "name?"},
               {"requestedSchema", object{{"type", "object"}, {"properties", object{}}}}});
    if (!a) return a.error();
    return std::string("asked");
  });
}

mcp::client_options client_with(std::shared_ptr<mcp::observe::observer> o) {
  return {.capabilities = object{{"elicitation", object{}}},
          .request_handlers = {{"elicitation/create",
                                [](const object&, std::stop_token) {
                                  return mcp::result<object>(object{{"action", "decline"}});
                                }}},
          .observer = std::move(o)};
}

TEST(engine_observation, a_call_is_a_client_span_whose_child_is_the_server_span) {
  collected server_spans;
  collected client_spans;
  std::string seen_trace;
  mcp::server s({.observer = server_spans.tracer()});
  add_tools(s, &seen_trace);
  auto c = mcp::connect_in_process(s, client_with(client_spans.tracer()));
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->client->call_tool("add"));

  auto client = client_spans.find("tools/call add", kind::client);
  auto server = server_spans.find("tools/call add", kind::server);
  ASSERT_TRUE(client && server);
  EXPECT_EQ(server->context.trace_id, client->context.trace_id);
  EXPECT_EQ(server->parent_span_id, client->context.span_id);
  EXPECT_TRUE(server->parent_remote);
  EXPECT_EQ(attr(*server, "mcp.method.name"), "tools/call");
  EXPECT_EQ(attr(*server, "gen_ai.tool.name"), "add");
  EXPECT_EQ(attr(*server, "gen_ai.operation.name"), "execute_tool");
  EXPECT_EQ(attr(*server, "mcp.protocol.version"), "2025-11-25");
  EXPECT_EQ(attr(*server, "error.type"), "(none)");
  EXPECT_NE(attr(*server, "jsonrpc.request.id"), "(none)");
  EXPECT_EQ(attr(*client, "jsonrpc.request.id"), attr(*server, "jsonrpc.request.id"));
  // The handler saw the trace it ran in.
  EXPECT_EQ(seen_trace, server->context.trace_id_hex());
  // The handshake and its notification were observed too.
  EXPECT_TRUE(server_spans.find("initialize", kind::server));
  EXPECT_TRUE(server_spans.find("notifications/initialized", kind::server));
  EXPECT_TRUE(client_spans.find("notifications/initialized", kind::client));
}

TEST(engine_observation, a_tool_error_and_a_json_rpc_error_are_told_apart) {
  collected server_spans;
  collected client_spans;
  mcp::server s({.observer = server_spans.tracer()});
  add_tools(s);
  auto c = mcp::connect_in_process(s, client_with(client_spans.tracer()));
  ASSERT_TRUE(c) << c.error().message;
  auto failed = c->client->call_tool("fail");
  ASSERT_TRUE(failed);
  auto unknown = c->client->call_tool("nope");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, -32602);

  auto tool_error = server_spans.find("tools/call fail", kind::server);
  ASSERT_TRUE(tool_error);
  EXPECT_EQ(attr(*tool_error, "error.type"), "tool_error");
  EXPECT_EQ(tool_error->status, mcp::observe::span_status::error);
  auto client_tool_error = client_spans.find("tools/call fail", kind::client);
  ASSERT_TRUE(client_tool_error);
  EXPECT_EQ(attr(*client_tool_error, "error.type"), "tool_error");

  // -32602 is the caller's mistake: on the server, a status code but not an error.
  auto invalid = server_spans.find("tools/call nope", kind::server);
  ASSERT_TRUE(invalid);
  EXPECT_EQ(attr(*invalid, "rpc.response.status_code"), "-32602");
  auto client_invalid = client_spans.find("tools/call nope", kind::client);
  ASSERT_TRUE(client_invalid);
  EXPECT_EQ(attr(*client_invalid, "rpc.response.status_code"), "-32602");
  EXPECT_EQ(attr(*client_invalid, "error.type"), "-32602");
}

TEST(engine_observation, a_request_the_server_sends_inside_a_call_is_a_child_of_the_call) {
  collected server_spans;
  collected client_spans;
  mcp::server s({.observer = server_spans.tracer()});
  add_tools(s);
  auto c = mcp::connect_in_process(s, client_with(client_spans.tracer()));
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->client->call_tool("ask"));

  auto call = server_spans.find("tools/call ask", kind::server);
  auto asked = server_spans.find("elicitation/create", kind::client);
  auto answered = client_spans.find("elicitation/create", kind::server);
  ASSERT_TRUE(call && asked && answered);
  EXPECT_EQ(asked->context.trace_id, call->context.trace_id);
  EXPECT_EQ(asked->parent_span_id, call->context.span_id);
  EXPECT_FALSE(asked->parent_remote);
  // The client's handler span continues the trace through the request's _meta.
  EXPECT_EQ(answered->context.trace_id, call->context.trace_id);
  EXPECT_EQ(answered->parent_span_id, asked->context.span_id);
  EXPECT_TRUE(answered->parent_remote);
}

TEST(engine_observation, metrics_count_calls_outcomes_and_sessions) {
  auto metrics = mcp::observe::make_metrics();
  mcp::server s({.observer = metrics});
  add_tools(s);
  {
    auto c = mcp::connect_in_process(s);
    ASSERT_TRUE(c) << c.error().message;
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(c->client->call_tool("add"));
    ASSERT_TRUE(c->client->call_tool("fail"));
    c->client->close();
    c->session->close();
  }
  const auto text = metrics->prometheus_text();
  const auto count_of = [&](std::string_view metric, std::string_view needle) -> std::string {
    std::size_t at = 0;
    while ((at = text.find(metric, at)) != std::string::npos) {
      const auto end = text.find('\n', at);
      const auto line = text.substr(at, end - at);
      at = end;
      if (line.find(needle) != std::string::npos) return line.substr(line.rfind(' ') + 1);
    }
    return "(none)";
  };
  EXPECT_EQ(count_of("mcp_server_operation_duration_seconds_count{", "gen_ai_tool_name=\"add\""),
            "3")
      << text;
  EXPECT_EQ(count_of("mcp_server_operation_duration_seconds_count{", "error_type=\"tool_error\""),
            "1")
      << text;
  EXPECT_EQ(count_of("mcp_server_session_duration_seconds_count{", "mcp_protocol_version"), "1")
      << text;
}

TEST(engine_observation, a_received_request_names_its_tool_prompt_or_resource_only) {
  // The server reads the method's target (tools/call, prompts/get) and resource URI
  // (resources/*) from the params; tools/list is as long as tools/call and differs in its last
  // four bytes: its `name`, were it there, names nothing.
  collected server_spans;
  mcp::server s({.observer = server_spans.tracer()});
  add_tools(s);
  s.add_prompt({.name = "greet"},
               [](const mcp::prompt_request&) -> mcp::result<mcp::get_prompt_result> {
                 return mcp::get_prompt_result{};
               });
  s.add_resource({.uri = "config://app", .name = "app"},
                 [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
                   return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, "x")}};
                 });
  auto c = mcp::connect_in_process(s);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->client->call_tool("add"));
  ASSERT_TRUE(c->client->get_prompt("greet"));
  ASSERT_TRUE(c->client->read_resource("config://app"));
  ASSERT_TRUE(c->client->request("tools/list", object{{"name", "add"}, {"uri", "x://y"}}));
  const auto call = server_spans.find("tools/call add", kind::server);
  ASSERT_TRUE(call);
  EXPECT_EQ(attr(*call, "gen_ai.tool.name"), "add");
  EXPECT_EQ(attr(*call, "mcp.resource.uri"), "(none)");
  const auto prompt = server_spans.find("prompts/get greet", kind::server);
  ASSERT_TRUE(prompt);
  EXPECT_EQ(attr(*prompt, "gen_ai.prompt.name"), "greet");
  const auto read = server_spans.find("resources/read", kind::server);
  ASSERT_TRUE(read);
  EXPECT_EQ(attr(*read, "mcp.resource.uri"), "config://app");
  const auto list = server_spans.find("tools/list", kind::server);
  ASSERT_TRUE(list);
  EXPECT_EQ(attr(*list, "gen_ai.tool.name"), "(none)");
  EXPECT_EQ(attr(*list, "mcp.resource.uri"), "(none)");
  c->client->close();
  c->session->close();
}

TEST(engine_observation, the_audit_line_carries_the_trace_id) {
  collected server_spans;
  std::mutex mu;
  std::vector<std::string> lines;
  mcp::server s({.observer = server_spans.tracer()});
  s.use(mcp::audit({.sink = [&](std::string_view l) {
    std::lock_guard lock(mu);
    lines.emplace_back(l);
  }}));
  add_tools(s);
  auto c = mcp::connect_in_process(s);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->client->call_tool("add"));
  auto call = server_spans.find("tools/call add", kind::server);
  ASSERT_TRUE(call);
  // The line is written when the call's last reference goes, just after the answer.
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard lock(mu);
      if (!lines.empty()) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  std::lock_guard lock(mu);
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_NE(lines[0].find("\"trace_id\":\"" + call->context.trace_id_hex() + "\""),
            std::string::npos)
      << lines[0];
}

TEST(engine_observation, a_notification_sent_inside_a_call_carries_the_call_s_trace) {
  collected server_spans;
  collected client_spans;
  mcp::server s({.observer = server_spans.tracer()});
  s.add_tool({.name = "chatty"}, [](mcp::tool_context& ctx) {
    ctx.log(mcp::log_level::error, "working");
    return std::string("done");
  });
  auto c = mcp::connect_in_process(s, client_with(client_spans.tracer()));
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->client->call_tool("chatty"));

  auto call = server_spans.find("tools/call chatty", kind::server);
  auto sent = server_spans.find("notifications/message", kind::client);
  auto received = client_spans.find("notifications/message", kind::server);
  ASSERT_TRUE(call && sent && received);
  EXPECT_EQ(sent->parent_span_id, call->context.span_id);
  EXPECT_EQ(received->context.trace_id, call->context.trace_id);
  EXPECT_EQ(received->parent_span_id, sent->context.span_id);
  EXPECT_TRUE(received->parent_remote);
}

TEST(engine_observation, over_http_spans_carry_the_session_and_the_network) {
  collected server_spans;
  collected client_spans;
  auto metrics = mcp::observe::make_metrics();
  mcp::server s({.observer = mcp::observe::combine({server_spans.tracer(), metrics})});
  add_tools(s);
  mcp::http_server http(s, {.port = 0});
  http.start().value();
  auto conn = mcp::make_http_client_connection({.url = http.url()}).value();
  mcp::client_session client(conn, {.observer = client_spans.tracer()});
  conn->on_receive([&client](std::string_view m) { client.receive(m); });
  ASSERT_TRUE(client.initialize());
  ASSERT_TRUE(client.call_tool("add"));

  auto served = server_spans.find("tools/call add", kind::server);
  auto sent = client_spans.find("tools/call add", kind::client);
  ASSERT_TRUE(served && sent);
  EXPECT_EQ(served->parent_span_id, sent->context.span_id);
  EXPECT_FALSE(conn->session_id().empty());
  EXPECT_EQ(attr(*served, "mcp.session.id"), conn->session_id());
  EXPECT_EQ(attr(*sent, "mcp.session.id"), conn->session_id());
  EXPECT_EQ(attr(*served, "network.transport"), "tcp");
  EXPECT_EQ(attr(*served, "network.protocol.name"), "http");
  EXPECT_EQ(attr(*served, "network.protocol.version"), "1.1");
  EXPECT_EQ(attr(*sent, "server.address"), "127.0.0.1");
  EXPECT_EQ(attr(*sent, "server.port"), std::to_string(http.port()));
  // The server side names the client: the address and port of the connection that opened the
  // session (the client's own port is not known here; the raw socket test below checks it).
  EXPECT_EQ(attr(*served, "client.address"), "127.0.0.1");
  EXPECT_NE(attr(*served, "client.port"), "(none)");
  EXPECT_NE(attr(*served, "client.port"), std::to_string(http.port()));
  EXPECT_EQ(attr(*sent, "client.address"), "(none)");
  // The session's GET stream is counted while it is open.
  ASSERT_EQ(conn->open_event_stream(), 200);
  const auto open_streams = [&] {
    const auto text = metrics->prometheus_text();
    const auto at = text.find("\nmcp_server_active_streams");
    if (at == std::string::npos) return std::string("(none)");
    const auto end = text.find('\n', at + 1);
    const auto line = text.substr(at + 1, end - at - 1);
    return line.substr(line.rfind(' ') + 1);
  };
  for (int i = 0; i < 200 && open_streams() != "1"; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(open_streams(), "1") << metrics->prometheus_text();
  conn->close();
  http.stop();
}

/// POSTs `body` to `port`'s /mcp from a socket of its own; returns the socket's local port, and
/// the answer's text in `answer`. 0 when it could not connect.
std::uint16_t post_from_own_socket(std::uint16_t port, const std::string& body,
                                   std::string& answer) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sockaddr_in me{};
  socklen_t len = sizeof me;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&me), &len) != 0) {
    ::close(fd);
    return 0;
  }
  const std::string request = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                              "\r\nContent-Type: application/json\r\n"
                              "Accept: application/json, text/event-stream\r\n"
                              "MCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n"
                              "Content-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return 0;
  }
  std::array<char, 4096> buf{};
  for (ssize_t n = 0; (n = ::recv(fd, buf.data(), buf.size(), 0)) > 0;) {
    answer.append(buf.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return ntohs(me.sin_port);
}

TEST(engine_observation, over_http_the_server_span_names_the_client_s_address_and_port) {
  collected server_spans;
  mcp::server s({.observer = server_spans.tracer()});
  add_tools(s);
  mcp::http_server http(s, {.port = 0, .stateless = true});
  http.start().value();
  std::string answer;
  const auto local_port = post_from_own_socket(
      http.port(),
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{}}})",
      answer);
  ASSERT_NE(local_port, 0);
  EXPECT_NE(answer.find(R"("result")"), std::string::npos) << answer;
  auto served = server_spans.find("tools/call add", kind::server);
  ASSERT_TRUE(served);
  EXPECT_EQ(attr(*served, "client.address"), "127.0.0.1");
  EXPECT_EQ(attr(*served, "client.port"), std::to_string(local_port));
  EXPECT_EQ(attr(*served, "server.address"), "(none)");
  http.stop();
}

TEST(engine_observation, without_an_observer_nothing_is_added_to_the_wire) {
  mcp::server s;
  std::optional<object> meta;
  s.add_tool({.name = "peek"}, [&meta](mcp::tool_context& ctx) {
    meta = ctx.request_meta();
    EXPECT_TRUE(ctx.trace_id().empty());
    return std::string("ok");
  });
  auto c = mcp::connect_in_process(s);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->client->call_tool("peek"));
  ASSERT_TRUE(meta);
  EXPECT_FALSE(meta->contains("traceparent"));
}

TEST(engine_observation,
     an_unsampled_call_propagates_a_valid_context_flagged_00_and_exports_nothing) {
  collected server_spans;
  collected client_spans;
  mcp::server s({.observer = server_spans.tracer()});  // follows the caller's flag
  std::optional<object> meta;
  std::string seen_trace;
  s.add_tool({.name = "peek"}, [&](mcp::tool_context& ctx) {
    meta = ctx.request_meta();
    seen_trace = ctx.trace_id();
    return std::string("ok");
  });
  auto c = mcp::connect_in_process(s, client_with(client_spans.tracer(0)));
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->client->call_tool("peek"));
  ASSERT_TRUE(meta && meta->contains("traceparent"));
  auto parsed = mcp::observe::parse_traceparent(meta->at("traceparent").as_string());
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(parsed->valid());
  EXPECT_EQ(parsed->flags, 0);
  EXPECT_EQ(seen_trace, parsed->trace_id_hex());  // the handler's log lines correlate
  ASSERT_TRUE(c->client->call_tool("peek"));
  c->client->close();
  std::scoped_lock lock(server_spans.mu, client_spans.mu);
  // The server recorded only what came without a context (the initialized notification: a new
  // trace of its own, sampled by its ratio); the client nothing.
  for (const auto& r : server_spans.spans) {
    EXPECT_EQ(r.name(), "notifications/initialized");
  }
  for (const auto& r : client_spans.spans) ADD_FAILURE() << "client span " << r.name();
}

/// Every operation's start and end as the engine hands them to an observer (unset: the default).
struct clock_observer final : mcp::observe::observer {
  struct times {
    std::string method;
    std::chrono::steady_clock::time_point start;
    std::chrono::steady_clock::time_point end;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::vector<times> seen;  // by span: `word` is its index

  mcp::observe::span on_start(const mcp::observe::operation& op) override {
    std::lock_guard lock(mu);
    seen.push_back({std::string(op.method), op.start, {}});
    mcp::observe::span s;
    s.active = true;
    s.word = seen.size() - 1;
    return s;
  }
  void on_end(mcp::observe::span& s, const mcp::observe::outcome& o) override {
    std::lock_guard lock(mu);
    seen[s.word].end = o.end;
    s.active = false;
    cv.notify_all();
  }
  /// Waits up to 5 s until `n` operations ended.
  bool ended(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 5s, [&] {
      return seen.size() >= n && std::all_of(seen.begin(), seen.end(), [](const times& t) {
               return t.end != std::chrono::steady_clock::time_point{};
             });
    });
  }
};

struct swallow final : mcp::connection {
  void send(std::string, const mcp::send_context&) override {}
  void close() override {}
};

TEST(engine_observation, messages_read_together_share_one_clock_reading_and_end_in_order) {
  auto observer = std::make_shared<clock_observer>();
  mcp::server s({.observer = observer});
  add_tools(s);
  auto session = s.open_session(std::make_shared<swallow>(), {});
  std::array<int, 2> fds{};
  ASSERT_EQ(::pipe2(fds.data(), O_CLOEXEC), 0);
  const std::string batch =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
      R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add"}})"
      "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add"}})"
      "\n";
  ASSERT_EQ(::write(fds[1], batch.data(), batch.size()), static_cast<ssize_t>(batch.size()));
  ::close(fds[1]);  // one read takes the four messages, the next one the end of file
  const auto before = std::chrono::steady_clock::now();
  EXPECT_EQ(mcp::read_lines(fds[0], {}, [&](std::string_view l) { session->receive(l); }), 0);
  ::close(fds[0]);
  ASSERT_TRUE(observer->ended(4));
  const auto after = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(observer->mu);
    ASSERT_EQ(observer->seen.size(), 4U);
    for (std::size_t i = 0; i < 4; ++i) {
      const auto& t = observer->seen[i];
      SCOPED_TRACE(t.method);
      // The engine read the clock: the batch's reading (or a previous end) and the end.
      EXPECT_GE(t.start, before);
      EXPECT_LE(t.start, t.end);
      EXPECT_LE(t.end, after);
      if (i > 0) {
        EXPECT_GE(t.start, observer->seen[i - 1].start);  // arrival order
      }
    }
    // Answered on the reading thread, `initialize` ended before the next message started.
    EXPECT_LE(observer->seen[0].end, observer->seen[1].start);
  }
  // Outside a reader, the engine leaves the start to the observer.
  session->receive(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add"}})");
  ASSERT_TRUE(observer->ended(5));
  std::lock_guard lock(observer->mu);
  EXPECT_EQ(observer->seen[4].start, std::chrono::steady_clock::time_point{});
  EXPECT_NE(observer->seen[4].end, std::chrono::steady_clock::time_point{});
  session->close();
}

}  // namespace
