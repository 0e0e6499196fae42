// Spans by the conventions (mcp/observe/tracing.hpp): names, kinds, parents from `_meta` and
// from the span an operation runs within, propagation, status and error attributes, sampling,
// and the callback observer that bridges another tracer.
#include <mcp/observe/tracing.hpp>

#include <gtest/gtest.h>

#include <mutex>

namespace {

using namespace mcp::observe;

constexpr std::string_view remote = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

struct collected {
  std::mutex mu;
  std::vector<span_record> spans;
  std::function<void(span_record&&)> sink() {
    return [this](span_record&& r) {
      std::lock_guard lock(mu);
      spans.push_back(std::move(r));
    };
  }
};

const attribute* find(const span_record& r, std::string_view key) {
  for (const auto& a : r.attributes) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

std::string str(const span_record& r, std::string_view key) {
  const auto* a = find(r, key);
  return a == nullptr ? "<none>" : std::get<std::string>(a->value);
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
  EXPECT_EQ(r.name, "tools/call get-weather");
  EXPECT_EQ(r.side, kind::server);
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
  EXPECT_EQ(r.name, "sampling/createMessage");
  EXPECT_EQ(r.side, kind::client);
  EXPECT_FALSE(r.parent_remote);
  EXPECT_EQ(r.parent_span_id, outer.context.span_id);
  // On the client side every JSON-RPC error is an error.
  EXPECT_EQ(str(r, attr::error_type), "-32602");
  EXPECT_EQ(str(r, attr::status_code), "-32602");
  EXPECT_EQ(r.status, span_status::error);
  EXPECT_EQ(r.status_message, "bad params");
  EXPECT_EQ(c.spans[1].status, span_status::unset);
  EXPECT_EQ(find(c.spans[1], attr::error_type), nullptr);
}

TEST(Tracer, ServerAnsweringTheCallersMistakeIsNoError) {
  collected c;
  auto t = make_tracer({.sink = c.sink()});
  auto s = t->on_start({.side = kind::server, .method = "tools/call", .target = "nope"});
  t->on_end(s, {.status = status::rpc_error, .code = -32602, .message = "Unknown tool"});
  ASSERT_EQ(c.spans.size(), 1U);
  EXPECT_EQ(find(c.spans[0], attr::error_type), nullptr);
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

TEST(Tracer, RefusesBadOptions) {
  EXPECT_THROW((void)make_tracer({}), std::invalid_argument);
  EXPECT_THROW((void)make_tracer({.sink = [](span_record&&) {}, .root_sample_ratio = 2}),
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
