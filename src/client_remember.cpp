// What the client remembers beyond one request, and how it recovers when that memory is
// wrong: the era remembered per origin (negotiation goes straight to it, probes again when the
// server refuses it), cached results (answered while fresh, dropped by the notifications that
// make them stale), and a tools/call refused for its headers (-32020: the tool's x-mcp-header
// annotations changed since they were listed) sent once more after listing the tools anew.
#include <mcp/client.hpp>
#include <mcp/client_cache.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <unordered_set>

#include "client_impl.hpp"

namespace mcp {

namespace {

/// The methods whose results are kept, each with its slot in `impl::staleness`.
constexpr std::array<std::string_view, 5> cached_methods{
    "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"};

/// `method`'s slot in `impl::staleness`; `cached_methods.size()` when it is not kept.
std::size_t stale_slot(std::string_view method) {
  return static_cast<std::size_t>(std::find(cached_methods.begin(), cached_methods.end(), method) -
                                  cached_methods.begin());
}

bool cacheable(std::string_view method) { return stale_slot(method) < cached_methods.size(); }

/// Errors that are no verdict on the server's era (the transport's, or the caller's own).
bool says_nothing_of_the_era(const error& e) {
  return e.is(errc::connection_closed) || e.is(errc::cancelled) || e.is(errc::request_timeout);
}

/// What a server of the old era says to a request that came before initialize.
bool legacy_refusal(const error& e) {
  if (e.code != -32000 && !e.is(errc::invalid_request)) return false;
  return e.message.find("not initialized") != std::string::npos ||
         e.message.find("Not initialized") != std::string::npos ||
         e.message.find("initialize") != std::string::npos;
}

}  // namespace

void client_session::impl::init_memory() {
  if (!opts.cache_results) return;
  cache = opts.cache ? opts.cache : make_result_cache();
  if (!opts.authorization_context.empty()) {
    cache_context = "context:" + opts.authorization_context;
    return;
  }
  static std::atomic<std::uint64_t> sessions{0};  // this session alone
  cache_context = "session:" + std::to_string(++sessions);
}

result<json::object> client_session::impl::negotiate_remembered(const request_options& ro) {
  auto r = negotiate_or_recall(ro);
  // The new era tells of changes only on a listen: one is kept open for an application that
  // hears notifications (client_listen.cpp).
  if (r && modern.load() && opts.on_notification) start_listening();
  return r;
}

result<json::object> client_session::impl::negotiate_or_recall(const request_options& ro) {
  const std::string& origin = opts.origin;
  if (opts.negotiate != negotiation::automatic || origin.empty()) return negotiate(ro);
  if (auto v = cached_era(origin)) {
    // A verdict proved wrong takes the discover answer kept with it along (else the probe below
    // would be answered from the cache).
    const auto forget = [&] {
      forget_era(origin);
      if (cache) cache->invalidate(origin, "server/discover " + v->version);
    };
    if (v->era == protocol_era::modern) {
      const auto timeout = ro.timeout.count() > 0 ? ro.timeout : opts.probe_timeout;
      auto r = discover(v->version, ro, timeout);
      if (!r && r.error().is(errc::request_timeout)) {
        // No answer is what a server of the old era gives before initialize: the probe's own
        // verdict, reached without waiting for it twice.
        forget();
        r = legacy_initialize(opts.protocol_version, false, ro);
        if (r) remember_era(origin, era_verdict{.era = protocol_era::legacy, .version = version});
        return r;
      }
      if (r || says_nothing_of_the_era(r.error())) return r;
    } else {
      auto r = legacy_initialize(opts.protocol_version, false, ro);
      if (r || says_nothing_of_the_era(r.error())) return r;
    }
    forget();  // the server proved the verdict wrong: probe again
  }
  auto r = negotiate(ro);
  if (r) {
    remember_era(origin,
                 era_verdict{.era = modern.load() ? protocol_era::modern : protocol_era::legacy,
                             .version = version});
  }
  return r;
}

void client_session::impl::check_verdict(const error& e) {
  if (opts.origin.empty() || !modern.load()) return;
  if (e.is(errc::unsupported_protocol_version) || legacy_refusal(e)) {
    forget_era(opts.origin);
    if (cache) cache->invalidate(opts.origin, "server/discover " + version);  // its discover too
  }
}

result<json::object> client_session::impl::send_checked(std::string_view method,
                                                        json::object params,
                                                        detail::outbound_options o) {
  const bool kept = cache && modern.load() && cacheable(method);  // only the new era says
  if (kept) {
    if (auto hit = cache->lookup(cache_origin(), cache_context, cache_method(method), params)) {
      return *hit;
    }
  }
  const auto slot = stale_slot(method);
  const auto stale_before = kept ? staleness[slot].load() : 0;
  const bool retry = method == "tools/call" && modern.load();
  auto r = send_request(method, kept || retry ? params : std::move(params), o);
  if (!r) {
    check_verdict(r.error());
    if (!retry || !r.error().is(errc::header_mismatch)) return r;
    // The tool's x-mcp-header annotations may have changed since it was listed: list anew,
    // then try once more (a second refusal is the answer).
    if (auto listed = relist_tools(); !listed) return r;
    return send_request(method, std::move(params), std::move(o));
  }
  if (kept && staleness[slot].load() == stale_before) {
    cache->store(cache_origin(), cache_context, cache_method(method), params, *r);
  }
  return r;
}

std::int64_t client_session::impl::send_checked_async(std::string method, json::object params,
                                                      detail::outbound_options o,
                                                      detail::outbound_callback done) {
  if (method != "tools/call" || !modern.load()) {
    return send_request_async(std::move(method), std::move(params), std::move(o), std::move(done));
  }
  auto self = std::static_pointer_cast<impl>(shared_from_this());
  return send_request_async(
      method, params, o,
      [self, method, params, o, done = std::move(done)](result<json::object> r) mutable {
        if (r || !r.error().is(errc::header_mismatch)) {
          if (!r) self->check_verdict(r.error());
          return done(std::move(r));
        }
        // Listing blocks: never on the thread that received the answer.
        self->executor_for_requests().post([self, method = std::move(method),
                                            params = std::move(params), o = std::move(o),
                                            r = std::move(r), done = std::move(done)]() mutable {
          if (auto listed = self->relist_tools(); !listed) return done(std::move(r));
          self->send_request_async(std::move(method), std::move(params), std::move(o),
                                   std::move(done));
        });
      });
}

result<void> client_session::impl::relist_tools() {
  std::uint64_t changes = 0;
  {
    std::lock_guard lock(mu);
    listed_tools.clear();
    output_schemas.clear();
    tools_listed = false;
    changes = tools_changes;
  }
  if (cache) cache->invalidate(cache_origin(), "tools/list");
  ++staleness[stale_slot("tools/list")];
  std::vector<json::object> all;
  std::optional<std::string> cursor;
  std::unordered_set<std::string> seen;
  for (int page = 0; page < 1000; ++page) {
    json::object params;
    if (cursor) params["cursor"] = *cursor;
    detail::outbound_options o;
    o.timeout = opts.timeout;
    auto r = send_request("tools/list", params, o);
    if (!r) return r.error();
    if (cache) cache->store(cache_origin(), cache_context, cache_method("tools/list"), params, *r);
    if (const auto* items = r->if_contains("tools"); items != nullptr && items->is_array()) {
      for (const auto& t : items->get_array()) {
        if (t.is_object()) all.push_back(t.get_object());
      }
    }
    const auto* next = r->if_contains("nextCursor");
    if (next == nullptr || !next->is_string()) {
      drop_invalid_header_tools(all);  // as every listing does (client_modern.cpp)
      remember_output_schemas(all, changes);
      return {};
    }
    cursor = std::string(next->get_string());
    if (!seen.insert(*cursor).second) {
      return error{errc::limit_exceeded, "tools/list: the server sent the same cursor twice"};
    }
  }
  return error{errc::limit_exceeded, "tools/list did not end after 1000 pages"};
}

void client_session::impl::forget_stale(std::string_view method, const json::object& params) {
  auto drop = [this](std::string_view m, std::string_view uri = {}) {
    ++staleness[stale_slot(m)];
    if (cache) cache->invalidate(cache_origin(), m, uri);
  };
  if (method == "notifications/tools/list_changed") {
    drop("tools/list");
  } else if (method == "notifications/prompts/list_changed") {
    drop("prompts/list");
  } else if (method == "notifications/resources/list_changed") {
    drop("resources/list");
    drop("resources/templates/list");
  } else if (method == "notifications/resources/updated") {
    const auto* uri = params.if_contains("uri");
    if (uri != nullptr && uri->is_string() && !uri->get_string().empty()) {
      drop("resources/read", uri->get_string());
    } else {
      drop("resources/read");
    }
  }
}

}  // namespace mcp
