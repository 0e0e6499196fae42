// A sampled new trace of an attribute set seen before, begun from what the tracer resolved for
// the set (`observer::root_word`, `root_start`) rather than from an operation: its span has the
// attributes the operation would have given it. Per peer (session id, client address and
// port), per call (request id), and what keeps the operation: a resource's URI, a string id, a
// trace context arriving once the set is known.
#include <mcp/http_client.hpp>
#include <mcp/http_server.hpp>
#include <mcp/observe/metrics.hpp>
#include <mcp/observe/tracing.hpp>
#include <mcp/server.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "support/wire.hpp"

namespace {

using mcp::json::object;
using mcp::observe::kind;
using mcp::observe::span_record;

/// The server spans a tracer (every new trace sampled) recorded, alone or with the metrics.
struct recorded {
  std::mutex mu;
  std::vector<span_record> spans;

  static std::shared_ptr<mcp::observe::observer> observer(const std::shared_ptr<recorded>& self,
                                                          bool with_metrics) {
    auto tracer = mcp::observe::make_tracer({.sink = [self](std::unique_ptr<span_record> r) {
      if (r->side() != kind::server) return;
      std::lock_guard lock(self->mu);
      self->spans.push_back(std::move(*r));
    }});
    if (!with_metrics) return tracer;
    return mcp::observe::combine({tracer, mcp::observe::make_metrics()});
  }

  /// The spans named `name`, in the order they ended.
  std::vector<span_record> named(std::string_view name) {
    std::lock_guard lock(mu);
    std::vector<span_record> out;
    for (const auto& s : spans) {
      if (s.name() == name) out.push_back(s);
    }
    return out;
  }
};

/// Forwards to `inner`, counting the received tools/call operations it is given and the new
/// traces started from a set's root word.
class counting final : public mcp::observe::observer {
 public:
  explicit counting(std::shared_ptr<mcp::observe::observer> inner) : inner_(std::move(inner)) {}

  mcp::observe::span on_start(const mcp::observe::operation& op) override {
    if (op.side == kind::server && op.method == "tools/call") ++operations;
    return inner_->on_start(op);
  }
  void on_end(mcp::observe::span& s, const mcp::observe::outcome& o) override {
    inner_->on_end(s, o);
  }
  mcp::observe::span on_session_start(const mcp::observe::session_info& info) override {
    return inner_->on_session_start(info);
  }
  void on_session_end(mcp::observe::span& s, std::string_view error_type) override {
    inner_->on_session_end(s, error_type);
  }
  [[nodiscard]] bool reads_request_id() const noexcept override {
    return inner_->reads_request_id();
  }
  [[nodiscard]] bool starts_roots() const noexcept override { return inner_->starts_roots(); }
  std::uintptr_t root_word(const mcp::observe::operation& op) override {
    return inner_->root_word(op);
  }
  mcp::observe::span start_root(const mcp::observe::root_start& r) override {
    if (r.set != 0) ++from_set;
    return inner_->start_root(r);
  }

  std::atomic<int> operations{0};
  std::atomic<int> from_set{0};

 private:
  std::shared_ptr<mcp::observe::observer> inner_;
};

/// Every attribute of `s` as `key=value;` text, `jsonrpc.request.id` left out when `with_id`
/// is false.
std::string attributes_of(const span_record& s, bool with_id = true) {
  std::string out;
  s.for_each_attribute([&](std::string_view k, const mcp::observe::attribute_value& v) {
    if (!with_id && k == "jsonrpc.request.id") return;
    out.append(k).append("=");
    if (const auto* t = std::get_if<std::string>(&v)) {
      out += *t;
    } else if (const auto* n = std::get_if<std::int64_t>(&v)) {
      out += std::to_string(*n);
    } else {
      out += std::get<bool>(v) ? "true" : "false";
    }
    out += ";";
  });
  return out;
}

/// The value of attribute `key` of `s`, or "(none)".
std::string attribute(const span_record& s, std::string_view key) {
  const auto all = attributes_of(s);
  const auto at = all.find(std::string(key) + "=");
  if (at == std::string::npos || (at != 0 && all[at - 1] != ';')) return "(none)";
  const auto from = at + key.size() + 1;
  return all.substr(from, all.find(';', from) - from);
}

bool is_root(const span_record& s) {
  for (const auto b : s.parent_span_id) {
    if (b != 0) return false;
  }
  return true;
}

void add_tool_and_files(mcp::server& s) {
  s.add_tool({.name = "add"}, [](mcp::tool_context&) { return std::string("3"); });
  s.add_resource_template(
      {.uri_template = "file:///{name}", .name = "files"},
      [](const mcp::resource_request& r) -> mcp::result<mcp::read_resource_result> {
        return mcp::read_resource_result{{mcp::resource_contents::text_of(r.uri, "x")}};
      });
}

TEST(engine_set_roots, two_http_sessions_sharing_a_tools_set_each_get_their_own_attributes) {
  for (const bool with_metrics : {false, true}) {
    auto rec = std::make_shared<recorded>();
    auto count = std::make_shared<counting>(recorded::observer(rec, with_metrics));
    mcp::server s({.observer = count});
    add_tool_and_files(s);
    mcp::http_server http(s, {.port = 0});
    http.start().value();
    auto conn_a = mcp::make_http_client_connection({.url = http.url()}).value();
    auto conn_b = mcp::make_http_client_connection({.url = http.url()}).value();
    mcp::client_session a(conn_a, {});
    mcp::client_session b(conn_b, {});
    conn_a->on_receive([&a](std::string_view m) { a.receive(m); });
    conn_b->on_receive([&b](std::string_view m) { b.receive(m); });
    ASSERT_TRUE(a.initialize());
    ASSERT_TRUE(b.initialize());
    constexpr int calls = 5;
    for (int i = 0; i < calls; ++i) {
      ASSERT_TRUE(a.call_tool("add"));
      ASSERT_TRUE(b.call_tool("add"));
    }
    const std::string session_a = conn_a->session_id();
    const std::string session_b = conn_b->session_id();
    conn_a->close();
    conn_b->close();
    http.stop();
    ASSERT_NE(session_a, session_b);
    // Each session's first call of the set builds its operation, the later ones do not.
    EXPECT_EQ(count->operations.load(), 2);
    EXPECT_EQ(count->from_set.load(), 2 * (calls - 1));

    std::map<std::string, std::vector<span_record>> by_session;
    for (auto& sp : rec->named("tools/call add")) {
      by_session[attribute(sp, "mcp.session.id")].push_back(sp);
    }
    ASSERT_EQ(by_session.size(), 2U) << "with metrics: " << with_metrics;
    for (const auto& id : {session_a, session_b}) {
      const auto& spans = by_session[id];
      ASSERT_EQ(spans.size(), static_cast<std::size_t>(calls)) << id;
      // The first call of the set builds its operation; the later ones start from the set:
      // the same attributes but for the request id, which is each call's own.
      const auto first = attributes_of(spans.front(), false);
      EXPECT_NE(first.find("client.address=127.0.0.1;"), std::string::npos) << first;
      EXPECT_NE(first.find("client.port="), std::string::npos) << first;
      std::vector<std::string> ids;
      for (const auto& sp : spans) {
        EXPECT_EQ(attributes_of(sp, false), first);
        EXPECT_TRUE(is_root(sp));
        EXPECT_TRUE(sp.context.sampled());
        EXPECT_GE(sp.end_unix_ns, sp.start_unix_ns);
        ids.push_back(attribute(sp, "jsonrpc.request.id"));
      }
      std::sort(ids.begin(), ids.end());
      EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end()) << "each call its own id";
      EXPECT_EQ(ids.front().find("(none)"), std::string::npos);
    }
    EXPECT_NE(attribute(by_session[session_a].back(), "client.port"),
              attribute(by_session[session_b].back(), "client.port"))
        << "each session names the connection that opened it";
  }
}

TEST(engine_set_roots, a_resources_read_a_string_id_and_a_late_trace_context_keep_their_own) {
  for (const bool with_metrics : {false, true}) {
    auto rec = std::make_shared<recorded>();
    mcp::server s({.observer = recorded::observer(rec, with_metrics)});
    add_tool_and_files(s);
    const std::string parent_span = "00f067aa0ba902b7";
    {
      mcp::test::wire w(s);
      w.initialize();
      for (int i = 1; i <= 4; ++i) {
        const auto r =
            w.call("resources/read", object{{"uri", "file:///f" + std::to_string(i)}}, 10 + i);
        EXPECT_TRUE(r.as_object().contains("result")) << r;
      }
      const object call{{"name", "add"}, {"arguments", object{}}};
      for (int i = 1; i <= 3; ++i)
        EXPECT_TRUE(w.call("tools/call", call, i).as_object().contains("result"));
      EXPECT_TRUE(w.call("tools/call", call, "text-id").as_object().contains("result"));
      auto traced = call;
      traced["_meta"] =
          object{{"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-" + parent_span + "-01"}};
      EXPECT_TRUE(w.call("tools/call", traced, 4).as_object().contains("result"));
      EXPECT_TRUE(w.call("tools/call", call, 5).as_object().contains("result"));
    }
    const auto reads = rec->named("resources/read");
    ASSERT_EQ(reads.size(), 4U);
    for (std::size_t i = 0; i < reads.size(); ++i) {
      EXPECT_EQ(attribute(reads[i], "mcp.resource.uri"), "file:///f" + std::to_string(i + 1));
      EXPECT_EQ(attribute(reads[i], "jsonrpc.request.id"), std::to_string(11 + i));
    }
    const auto calls = rec->named("tools/call add");
    ASSERT_EQ(calls.size(), 6U);
    const std::vector<std::string> ids = {"1", "2", "3", "text-id", "4", "5"};
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(attribute(calls[i], "jsonrpc.request.id"), ids[i]);
      EXPECT_EQ(attributes_of(calls[i], false), attributes_of(calls[0], false));
      EXPECT_EQ(is_root(calls[i]), ids[i] != "4") << ids[i];
    }
    EXPECT_EQ(calls[4].context.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
    EXPECT_TRUE(calls[4].parent_remote);
    EXPECT_NE(calls[5].context.trace_id_hex(), calls[4].context.trace_id_hex())
        << "the next call without a context begins its own trace";
    EXPECT_EQ(attribute(calls[0], "mcp.session.id"), "(none)") << "no session id on stdio-like";
  }
}

}  // namespace
