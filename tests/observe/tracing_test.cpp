// Spans by the conventions (mcp/observe/tracing.hpp): names, kinds, parents from `_meta` and
// from the span an operation runs within, propagation, status and error attributes, sampling,
// and the callback observer that bridges another tracer.
#include <mcp/observe/tracing.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "observe/span_node.hpp"
#include "support/forked_child.hpp"

namespace {

using namespace mcp::observe;

constexpr std::string_view remote = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

struct collected {
  std::mutex mu;
  std::vector<span_record> spans;
  std::function<void(std::unique_ptr<span_record>)> sink() {
    return [this](std::unique_ptr<span_record> r) {
      std::lock_guard lock(mu);
      spans.push_back(std::move(*r));
    };
  }
};

/// The attribute `key` of `r` (its shape's or its own), if it has one.
std::optional<attribute_value> find(const span_record& r, std::string_view key) {
  std::optional<attribute_value> out;
  r.for_each_attribute([&](std::string_view k, const attribute_value& v) {
    if (k == key) out = v;
  });
  return out;
}

std::string str(const span_record& r, std::string_view key) {
  const auto a = find(r, key);
  return !a ? "<none>" : std::get<std::string>(*a);
}

TEST(Tracer, ServerSpanParentedByMeta) {
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  auto s = t->on_start({.side = kind::server,
                        .method = "tools/call",
                        .target = "get-weather",
                        .request_id = "7",
                        .transport = network_transport::pipe,
                        .remote = {remote, "rojo=00f067aa0ba902b7", "userId=alice"}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s.context.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_NE(s.context.span_id_hex(), "00f067aa0ba902b7");
  EXPECT_EQ(s.context.trace_state, "rojo=00f067aa0ba902b7");
  EXPECT_EQ(s.baggage, "userId=alice");
  t->on_end(s, {.status = status::tool_error});
  ASSERT_EQ(c.spans.size(), 1U);
  const auto& r = c.spans[0];
  EXPECT_EQ(r.name(), "tools/call get-weather");
  EXPECT_EQ(r.side(), kind::server);
  EXPECT_TRUE(r.parent_remote);
  EXPECT_EQ(r.parent_span_id,
            (std::array<std::uint8_t, 8>{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}));
  EXPECT_EQ(r.context.span_id, s.context.span_id);
  EXPECT_GE(r.end_unix_ns, r.start_unix_ns);
  EXPECT_EQ(str(r, attr::method_name), "tools/call");
  EXPECT_EQ(str(r, attr::tool_name), "get-weather");
  EXPECT_EQ(str(r, attr::operation_name), "execute_tool");
  EXPECT_EQ(str(r, attr::request_id), "7");
  EXPECT_EQ(str(r, attr::network_transport), "pipe");
  EXPECT_EQ(str(r, attr::error_type), "tool_error");
  EXPECT_EQ(r.status, span_status::error);
}

TEST(Tracer, ClientSpanInsideAServerSpanSharesItsTrace) {
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  auto outer = t->on_start({.side = kind::server,
                            .method = "tools/call",
                            .target = "ask",
                            .remote = {remote, "", "k=v"}});
  auto inner = t->on_start({.side = kind::client,
                            .method = "sampling/createMessage",
                            .request_id = "1",
                            .parent = &outer});
  EXPECT_EQ(inner.context.trace_id, outer.context.trace_id);
  EXPECT_EQ(inner.baggage, "k=v");
  mcp::json::object meta;
  t->inject(inner, meta);
  EXPECT_EQ(meta.at("traceparent").as_string(), inner.context.traceparent());
  EXPECT_EQ(meta.at("baggage").as_string(), "k=v");
  t->on_end(inner, {.status = status::rpc_error, .code = -32602, .message = "bad params"});
  t->on_end(outer, {});
  ASSERT_EQ(c.spans.size(), 2U);
  const auto& r = c.spans[0];
  EXPECT_EQ(r.name(), "sampling/createMessage");
  EXPECT_EQ(r.side(), kind::client);
  EXPECT_FALSE(r.parent_remote);
  EXPECT_EQ(r.parent_span_id, outer.context.span_id);
  // On the client side every JSON-RPC error is an error.
  EXPECT_EQ(str(r, attr::error_type), "-32602");
  EXPECT_EQ(str(r, attr::status_code), "-32602");
  EXPECT_EQ(r.status, span_status::error);
  EXPECT_EQ(r.status_message, "bad params");
  EXPECT_EQ(c.spans[1].status, span_status::unset);
  EXPECT_FALSE(find(c.spans[1], attr::error_type));
}

TEST(Tracer, ServerAnsweringTheCallersMistakeIsNoError) {
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  auto s = t->on_start({.side = kind::server, .method = "tools/call", .target = "nope"});
  t->on_end(s, {.status = status::rpc_error, .code = -32602, .message = "Unknown tool"});
  ASSERT_EQ(c.spans.size(), 1U);
  EXPECT_FALSE(find(c.spans[0], attr::error_type));
  EXPECT_EQ(str(c.spans[0], attr::status_code), "-32602");
  EXPECT_EQ(c.spans[0].status, span_status::unset);
  EXPECT_FALSE(c.spans[0].parent_remote);
  EXPECT_EQ(c.spans[0].parent_span_id, (std::array<std::uint8_t, 8>{}));  // a root
}

TEST(Tracer, InvalidMetaStartsANewTrace) {
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  auto s = t->on_start({.method = "ping", .remote = {"00-bad", "a=1", ""}});
  EXPECT_TRUE(s.context.valid());
  EXPECT_NE(s.context.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_TRUE(s.context.trace_state.empty());
  t->on_end(s, {});
  EXPECT_FALSE(c.spans[0].parent_remote);
}

TEST(Tracer, SamplingFollowsTheParentAndTheRatio) {
  collected c;
  auto never = make_tracer({.sink = c.sink(), .root_sample_ratio = 0});
  auto root = never->on_start({.method = "ping"});
  EXPECT_TRUE(root.context.valid());  // propagated even when not recorded
  EXPECT_FALSE(root.context.sampled());
  never->on_end(root, {});
  auto child = never->on_start({.method = "ping", .remote = {remote, "", ""}});
  EXPECT_TRUE(child.context.sampled());  // the parent sampled it
  never->on_end(child, {});
  EXPECT_EQ(c.spans.size(), 1U);
  auto always = make_tracer({.sink = c.sink()});
  auto unsampled = always->on_start(
      {.method = "ping", .remote = {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"}});
  EXPECT_FALSE(unsampled.context.sampled());
  always->on_end(unsampled, {});
  EXPECT_EQ(c.spans.size(), 1U);
  auto half = make_tracer({.sink = c.sink(), .root_sample_ratio = 0.5});
  int sampled = 0;
  for (int i = 0; i < 2000; ++i) {
    auto s = half->on_start({.method = "ping"});
    sampled += s.context.sampled() ? 1 : 0;
    half->on_end(s, {});
  }
  EXPECT_GT(sampled, 850);
  EXPECT_LT(sampled, 1150);
}

TEST(Tracer, AnUnsampledSpanHasIdsToPropagateAndNothingElse) {
  collected c;
  auto never = make_tracer({.sink = c.sink(), .root_sample_ratio = 0});
  std::set<std::array<std::uint8_t, 16>> traces;
  std::set<std::array<std::uint8_t, 8>> spans;
  for (int i = 0; i < 5000; ++i) {
    auto s = never->on_start({.method = "ping"});
    ASSERT_TRUE(s);  // handed back to on_end, which has nothing to do
    ASSERT_TRUE(s.context.valid());
    EXPECT_EQ(s.context.flags, 0);
    // No clock read for it: the start is what the engine gave (here none).
    EXPECT_EQ(s.start, std::chrono::steady_clock::time_point{});
    EXPECT_EQ(s.context.traceparent().substr(52), "-00");
    traces.insert(s.context.trace_id);
    spans.insert(s.context.span_id);
    never->on_end(s, {});
    EXPECT_FALSE(s);
  }
  EXPECT_EQ(traces.size(), 5000U);
  EXPECT_EQ(spans.size(), 5000U);
  // A parent's 00 is followed, its trace kept, the span given an id of its own.
  auto child = never->on_start(
      {.method = "ping",
       .remote = {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", "k=v", "b=1"}});
  EXPECT_EQ(child.context.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_NE(child.context.span_id_hex(), "00f067aa0ba902b7");
  EXPECT_EQ(child.context.trace_state, "k=v");
  EXPECT_EQ(child.baggage, "b=1");
  never->on_end(child, {});
  EXPECT_TRUE(c.spans.empty());
}

TEST(Tracer, ARecordsRoomReusedForALaterSpanCarriesNothingOver) {
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  for (int i = 0; i < 3; ++i) {  // each span's room is the one the span before it used
    auto full = t->on_start({.side = kind::server,
                             .method = "resources/read",
                             .request_id = "r",
                             .resource_uri = "file:///a",
                             .session_id = "s",
                             .peer_address = "10.0.0.1",
                             .peer_port = 9,
                             .remote = {remote, "k=v", ""}});
    t->on_end(full, {.status = status::rpc_error, .code = -32603, .message = "boom"});
    auto bare = t->on_start({.side = kind::client, .method = "ping"});
    t->on_end(bare, {});
  }
  ASSERT_EQ(c.spans.size(), 6U);
  for (std::size_t i = 0; i < c.spans.size(); i += 2) {
    const auto& full = c.spans[i];
    EXPECT_EQ(full.resource_uri, "file:///a");
    EXPECT_EQ(full.peer_port, 9);
    EXPECT_EQ(full.status_message, "boom");
    const auto& bare = c.spans[i + 1];
    EXPECT_EQ(bare.name(), "ping");
    EXPECT_EQ(bare.parent_span_id, (std::array<std::uint8_t, 8>{}));
    EXPECT_FALSE(bare.parent_remote);
    EXPECT_TRUE(bare.context.trace_state.empty());
    EXPECT_EQ(bare.request_id, mcp::jsonrpc::request_id(std::string()));
    EXPECT_TRUE(bare.session_id.empty());
    EXPECT_TRUE(bare.peer_address.empty());
    EXPECT_EQ(bare.peer_port, 0);
    EXPECT_TRUE(bare.resource_uri.empty());
    EXPECT_TRUE(bare.error_type.empty());
    EXPECT_TRUE(bare.status_code.empty());
    EXPECT_EQ(bare.status, span_status::unset);
    EXPECT_TRUE(bare.status_message.empty());
  }
}

TEST(SpanNode, ASpareRecordKeepsTheRoomOfShortTextsOnly) {
  span_record r;
  r.shape = make_span_shape("ping", kind::client, {});
  const std::string long_text(4 * mcp::observe::detail::max_kept_text, 'x');
  r.context.trace_state = long_text;
  r.request_id = "7";
  r.session_id = long_text;
  r.peer_address.assign(100, 'p');  // on the heap, within what is kept
  r.resource_uri = long_text;
  r.error_type = long_text;
  r.status_code = long_text;
  r.status_message = long_text;
  const auto* short_room = r.peer_address.data();
  mcp::observe::detail::trim(r);
  EXPECT_EQ(r.shape, nullptr);  // a shape of its own is let go
  for (const auto* t : {&r.context.trace_state, &r.session_id, &r.resource_uri, &r.error_type,
                        &r.status_code, &r.status_message}) {
    EXPECT_TRUE(t->empty());
    EXPECT_LE(t->capacity(), mcp::observe::detail::max_kept_text);
  }
  // Short texts stay (each span sets its own).
  EXPECT_EQ(r.request_id, mcp::jsonrpc::request_id("7"));
  EXPECT_EQ(r.peer_address.data(), short_room);  // its room kept for the next span
  r.request_id = long_text;                      // a text id is cut back as the others
  mcp::observe::detail::trim(r);
  EXPECT_TRUE(std::get<std::string>(r.request_id).empty());
  EXPECT_LE(std::get<std::string>(r.request_id).capacity(), mcp::observe::detail::max_kept_text);
}

TEST(Tracer, ASpanWithLongTextsGivenBackLeavesALaterSpanItsOwn) {
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  const std::string long_uri(4096, 'u');
  auto a =
      t->on_start({.side = kind::server, .method = "resources/read", .resource_uri = long_uri});
  t->on_end(a, {.status = status::rpc_error, .code = -32603, .message = long_uri});
  auto b = t->on_start({.side = kind::server, .method = "resources/read", .resource_uri = "f:/b"});
  t->on_end(b, {});
  ASSERT_EQ(c.spans.size(), 2U);
  EXPECT_EQ(c.spans[0].resource_uri, long_uri);
  EXPECT_EQ(c.spans[0].status_message, long_uri);
  EXPECT_EQ(c.spans[1].resource_uri, "f:/b");
  EXPECT_TRUE(c.spans[1].status_message.empty());
}

TEST(Tracer, AForkedChildMakesIdsOfItsOwn) {
  collected c;
  auto t = make_tracer({.sink = c.sink(), .root_sample_ratio = 0});
  auto before = t->on_start({.method = "ping"});  // this thread's generator is seeded
  t->on_end(before, {});
  const auto child_id = mcp::test::bytes_made_in_forked_child(
      [&t] { return t->on_start({.method = "ping"}).context.trace_id; });
  ASSERT_TRUE(child_id);
  auto parent_next = t->on_start({.method = "ping"});
  EXPECT_NE(*child_id, parent_next.context.trace_id);  // the same state would give the same id
  t->on_end(parent_next, {});
}

/// The attributes of `r` as "key=value" lines, in order (ints as decimal).
std::vector<std::string> listed(const span_record& r) {
  std::vector<std::string> out;
  r.for_each_attribute([&](std::string_view k, const attribute_value& v) {
    const auto* t = std::get_if<std::string>(&v);
    out.push_back(std::string(k) + "=" +
                  (t != nullptr ? *t : std::to_string(std::get<std::int64_t>(v))));
  });
  return out;
}

TEST(Tracer, SpansOfOneAttributeSetShareOneShapeAndKeepTheirOwnParts) {
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  const operation base{.side = kind::server,
                       .method = "tools/call",
                       .target = "shape-test-tool",
                       .request_id = "1",
                       .protocol_version = "2025-11-25",
                       .session_id = "sess-a",
                       .transport = network_transport::tcp,
                       .network_protocol_name = "http",
                       .network_protocol_version = "1.1",
                       .peer_address = "10.1.2.3",
                       .peer_port = 40000};
  const auto run = [&](operation op, outcome o = {}) {
    auto s = t->on_start(op);
    t->on_end(s, o);
  };
  run(base);
  auto other_call = base;
  other_call.request_id = "2";
  other_call.session_id = "sess-b";
  other_call.peer_address = "10.9.9.9";
  other_call.peer_port = 40001;
  run(other_call, {.status = status::rpc_error, .code = -32603});
  auto other_tool = base;
  other_tool.target = "shape-test-other";
  run(other_tool);
  auto other_version = base;
  other_version.network_protocol_version = "2";
  run(other_version);
  auto client = base;
  client.side = kind::client;
  run(client);
  auto other_server = client;
  other_server.peer_port = 40002;
  run(other_server);
  ASSERT_EQ(c.spans.size(), 6U);
  // One shape for the first two, whatever their ids, sessions and peers; another for each
  // set that differs in a constant attribute.
  EXPECT_EQ(c.spans[0].shape.get(), c.spans[1].shape.get());
  for (std::size_t i = 2; i < 6; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      EXPECT_NE(c.spans[i].shape.get(), c.spans[j].shape.get()) << i << " vs " << j;
    }
  }
  EXPECT_EQ(listed(c.spans[0]),
            (std::vector<std::string>{
                "mcp.method.name=tools/call", "gen_ai.tool.name=shape-test-tool",
                "gen_ai.operation.name=execute_tool", "mcp.protocol.version=2025-11-25",
                "network.transport=tcp", "network.protocol.name=http",
                "network.protocol.version=1.1", "jsonrpc.request.id=1", "mcp.session.id=sess-a",
                "client.address=10.1.2.3", "client.port=40000"}));
  const auto second = listed(c.spans[1]);
  EXPECT_EQ(std::vector<std::string>(second.begin() + 7, second.end()),
            (std::vector<std::string>{"jsonrpc.request.id=2", "mcp.session.id=sess-b",
                                      "client.address=10.9.9.9", "client.port=40001",
                                      "error.type=-32603", "rpc.response.status_code=-32603"}));
  EXPECT_EQ(c.spans[2].name(), "tools/call shape-test-other");
  EXPECT_EQ(str(c.spans[3], attr::network_protocol_version), "2");
  // The client side: the server's address is constant (the shape's), no client.* attributes.
  EXPECT_EQ(c.spans[4].side(), kind::client);
  EXPECT_EQ(str(c.spans[4], attr::server_address), "10.1.2.3");
  EXPECT_EQ(std::get<std::int64_t>(*find(c.spans[5], attr::server_port)), 40002);
  EXPECT_FALSE(find(c.spans[4], attr::client_address));
  // The vector view lists the same.
  EXPECT_EQ(c.spans[0].attributes().size(), 11U);
}

TEST(Tracer, ManyAttributeSetsKeepTheirOwnNames) {
  // More tool names than the process interns: the later ones get shapes of their own.
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  for (int i = 0; i < 1100; ++i) {
    const auto name = "many-" + std::to_string(i);
    auto s = t->on_start({.method = "tools/call", .target = name});
    t->on_end(s, {});
  }
  ASSERT_EQ(c.spans.size(), 1100U);
  for (int i = 0; i < 1100; i += 99) {
    EXPECT_EQ(c.spans[static_cast<std::size_t>(i)].name(), "tools/call many-" + std::to_string(i));
    EXPECT_EQ(str(c.spans[static_cast<std::size_t>(i)], attr::tool_name),
              "many-" + std::to_string(i));
  }
}

TEST(Tracer, APeersLongNamesAreNotKeptForTheProcess) {
  // Method and tool names are the peer's words: spans of one long name each get a shape of
  // their own, freed with the span (an interned shape is shared and lives as long as the
  // process). Holds whatever other tests of this process interned before.
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  const std::string long_name(300, 'x');
  for (int i = 0; i < 2; ++i) {
    auto s = t->on_start({.method = "tools/call", .target = long_name});
    t->on_end(s, {});
  }
  ASSERT_EQ(c.spans.size(), 2U);
  EXPECT_NE(c.spans[0].shape.get(), c.spans[1].shape.get()) << "a long name is not interned";
  EXPECT_GT(c.spans[1].shape.use_count(), 0) << "a long name's shape is the span's own";
  EXPECT_EQ(c.spans[1].name(), "tools/call " + long_name);
  EXPECT_EQ(str(c.spans[1], attr::tool_name), long_name);
}

TEST(Tracer, RefusesBadOptions) {
  EXPECT_THROW((void)make_tracer({}), std::invalid_argument);
  EXPECT_THROW(
      (void)make_tracer({.sink = [](std::unique_ptr<span_record>) {}, .root_sample_ratio = 2}),
      std::invalid_argument);
}

TEST(Callback, BridgesStartsAndEndsAndPropagatesTheBridgedIds) {
  struct app_span {
    std::string name;
    std::string parent;
    std::size_t attributes = 0;
    std::string ended;
  };
  std::vector<std::shared_ptr<app_span>> made;
  auto o = make_callback_observer(
      {.on_start =
           [&made](const span_start_event& e) {
             auto sp = std::make_shared<app_span>();
             sp->name = std::string(e.name);
             sp->parent = e.parent.valid() ? e.parent.span_id_hex() : "";
             sp->attributes = e.attributes.size();
             made.push_back(sp);
             bridged_span b;
             b.context = e.parent;  // same trace, a span id of the application's tracer
             b.context.span_id = {1, 2, 3, 4, 5, 6, 7, 8};
             b.user = sp;
             return b;
           },
       .on_end =
           [](const span_end_event& e) {
             auto sp = std::static_pointer_cast<app_span>(e.span.user);
             sp->ended = e.error.error_type.empty() ? "ok" : e.error.error_type;
             EXPECT_GE(e.duration.count(), 0);
           }});
  auto s = o->on_start({.side = kind::server,
                        .method = "prompts/get",
                        .target = "greet",
                        .remote = {remote, "", ""}});
  ASSERT_TRUE(s);
  mcp::json::object meta;
  o->inject(s, meta);
  EXPECT_EQ(meta.at("traceparent").as_string(),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0102030405060708-01");
  o->on_end(s, {.status = status::rpc_error, .code = -32603});
  ASSERT_EQ(made.size(), 1U);
  EXPECT_EQ(made[0]->name, "prompts/get greet");
  EXPECT_EQ(made[0]->parent, "00f067aa0ba902b7");
  EXPECT_EQ(made[0]->attributes, 2U);  // method, prompt name
  EXPECT_EQ(made[0]->ended, "-32603");
}

TEST(Callback, AnExceptionInTheApplicationLeavesTheOperationUntraced) {
  auto o = make_callback_observer(
      {.on_start = [](const span_start_event&) -> bridged_span { throw std::runtime_error("x"); },
       .on_end = [](const span_end_event&) {}});
  auto s = o->on_start({.method = "ping"});
  EXPECT_FALSE(s);
  EXPECT_THROW((void)make_callback_observer({}), std::invalid_argument);
}

}  // namespace
