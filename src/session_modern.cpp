// The server face of a session in the 2026-07-28 revision: no handshake and no session state;
// every request names its revision and the client's capabilities in `_meta`, every result says
// its `resultType` and carries the server's identity, server/discover says what the server
// offers. A legacy session (stdio) hands such requests to a twin session of this kind on the
// same connection, so one channel serves both eras.
#include <mcp/protocol.hpp>

#include <utility>

#include "detail/call_scan.hpp"
#include "server_core.hpp"
#include "server_session.hpp"
#include "session_reuse.hpp"
#include "wire.hpp"

namespace mcp::detail {

namespace {

constexpr std::string_view version_key = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view caps_key = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view level_key = "io.modelcontextprotocol/logLevel";

const json::object* request_meta(const jsonrpc::request& req) {
  const auto* m = req.params.if_contains("_meta");
  return m != nullptr && m->is_object() ? &m->get_object() : nullptr;
}

using meta_members = request_meta_members;

meta_members members_of(const json::object& meta) { return find_meta_members(meta); }

/// The 2026-07-28 request this thread dispatches to a feature's handler, and what its `_meta`
/// says: `origin_of` of that very request object (asked before the handler takes `_meta` out
/// of it, as every feature does) reads it here rather than looking `_meta` up. Trivially
/// destructible
/// (no guard on each access); saved and restored around the handler (a handler may serve
/// another session's request inline).
struct dispatching {
  const jsonrpc::request* req = nullptr;
  const json::value* caps = nullptr;
  const json::value* level = nullptr;
  std::string_view text;  // its `_meta` kept as text (request_meta_members)
};
thread_local dispatching current{};

/// A 2026-07-28 request the transport read (its `_meta` kept as text), passed through the peer's
/// observed dispatch to `on_modern_request` of `session`, with what the transport found in its
/// `_meta` (which then is not parsed: it carries no trace context for the dispatch to read).
/// Trivially destructible; the next `on_modern_request` of `session` on this thread takes it (the
/// dispatch is inline).
struct passing {
  const server_session_impl* session = nullptr;
  const request_meta_members* found = nullptr;
};
thread_local passing passed{};

/// The revisions served per request (newest first).
json::array modern_versions() {
  json::array out;
  for (auto it = era_table.rbegin(); it != era_table.rend(); ++it) {
    if (it->per_request_meta) out.emplace_back(it->version);
  }
  return out;
}

}  // namespace

std::string_view kept_meta_text(const jsonrpc::request& req) noexcept {
  return &req == current.req ? current.text : std::string_view();
}

request_meta_members find_meta_members(const json::object& meta) noexcept {
  request_meta_members m;
  m.meta = &meta;
  for (const auto& kv : meta) {
    const std::string_view key = kv.key();
    if (key == version_key) {
      m.version = &kv.value();
    } else if (key == caps_key) {
      m.caps = &kv.value();
    } else if (key == level_key) {
      m.level = &kv.value();
    }
  }
  return m;
}

void receive_request(server_session& s, jsonrpc::request&& req, const request_meta_members& m) {
  static_cast<server_session_impl&>(s).receive_modern(std::move(req), m);
}

void server_session_impl::receive_modern(jsonrpc::request&& req,
                                         const request_meta_members& found) {
  // Observed, a request goes through the peer's dispatch (its span). A `_meta` the transport
  // kept as text holds only the revision, the client's capabilities, its info and a log level:
  // no trace context (`traceparent`, `tracestate`, `baggage`) for the dispatch to read, which
  // is all an observer is given of `_meta`. So what the transport found passes along and
  // `_meta` stays text whatever the observer (the metrics, a tracer, the application's). Any
  // other `_meta` is read again, as any request's.
  if (observer() != nullptr && modern() && !found.text.empty()) {
    struct clear {
      ~clear() { passed = {}; }
    } cleared;
    passed = {.session = this, .found = &found};
    return receive(jsonrpc::message(std::move(req)));
  }
  if (!modern() || observer() != nullptr) {
    put_meta_text(req.params, found.text);  // read as any request is: `_meta` in its params
    return receive(jsonrpc::message(std::move(req)));
  }
  if (peer_closed()) return;
  on_modern_request(std::move(req), &found);
}

bool has_request_revision(const jsonrpc::request& req) noexcept {
  const auto* meta = request_meta(req);
  return meta != nullptr && meta->contains(version_key);
}

std::optional<error> server_session_impl::check_request_meta(const meta_members& found) const {
  std::string missing;
  const auto* version = found.version;
  const auto* caps = found.caps;
  if (version == nullptr || !version->is_string()) missing += version_key;
  if (caps == nullptr || !caps->is_object()) {
    if (!missing.empty()) missing += ", ";
    missing += caps_key;
  }
  if (!missing.empty()) {
    return error{errc::invalid_params, "Invalid params: missing or invalid _meta keys: " + missing};
  }
  const std::string_view asked = version->get_string();
  const auto e =
      asked == traits(latest_era).version ? std::optional<era>(latest_era) : find_era(asked);
  if (!e || !traits(*e).per_request_meta) {
    return error{errc::unsupported_protocol_version,
                 "Unsupported protocol version: " + std::string(version->get_string()),
                 json::value(json::object{{"supported", modern_versions()},
                                          {"requested", version->get_string()}})};
  }
  if (const auto* level = found.level) {
    if (!level->is_string() || !parse_log_level(level->get_string())) {
      return error{errc::invalid_params,
                   "Invalid params: _meta logLevel must be one of debug, info, notice, warning, "
                   "error, critical, alert, emergency"};
    }
  }
  return std::nullopt;
}

request_origin server_session_impl::origin_of(const jsonrpc::request& req) const {
  if (!modern()) return {.revision = era_, .client_caps = client_capabilities()};
  request_origin o{.revision = era_, .client_caps = nullptr};
  const json::value* caps = nullptr;
  const json::value* level = nullptr;
  if (&req == current.req) {  // the request being dispatched, its `_meta` in place: read already
    caps = current.caps;
    level = current.level;
  } else if (const auto* meta = request_meta(req)) {
    const auto found = members_of(*meta);
    caps = found.caps;
    level = found.level;
  }
  if (caps != nullptr && caps->is_object() && !caps->get_object().empty()) {
    o.client_caps = std::make_shared<const json::object>(caps->get_object());
  }
  if (level != nullptr && level->is_string()) o.level = parse_log_level(level->get_string());
  if (!o.client_caps) o.client_caps = no_capabilities();
  return o;
}

void server_session_impl::on_modern_request(jsonrpc::request&& req,
                                            const request_meta_members* given) {
  // What the transport found in this request's `_meta` (given, or passed through the observed
  // dispatch), or read here.
  meta_members found;
  if (given == nullptr && passed.session == this) given = std::exchange(passed, {}).found;
  if (given != nullptr) {
    found = *given;
  } else if (const auto* meta = request_meta(req)) {
    found = members_of(*meta);
  }
  // The method first: a removed or unknown one is -32601 whatever else the request says.
  const bool discover = req.method == "server/discover";
  const auto* m = discover ? nullptr : core_->router.find(req.method, true);
  if (!discover &&
      (m == nullptr || (!m->capability.empty() && !declared_->contains(m->capability)))) {
    return reply_error(req.id, error{errc::method_not_found, "Method not found: " + req.method});
  }
  if (auto refused = check_request_meta(found)) return reply_error(req.id, *refused);
  if (discover) return on_discover(req);
  struct restore {
    dispatching saved = current;
    restore() = default;
    restore(const restore&) = delete;
    restore& operator=(const restore&) = delete;
    ~restore() { current = saved; }
  } guard;
  current = {.req = &req, .caps = found.caps, .level = found.level, .text = found.text};
  m->handler(*this, std::move(req));
}

void server_session_impl::on_discover(const jsonrpc::request& req) {
  std::string out;
  out.reserve(512);
  out += R"({"jsonrpc":"2.0","id":)";
  jsonrpc::append_id(out, req.id);
  out += R"(,"result":{"supportedVersions":)";
  append_json(out, json::value(modern_versions()));
  out += R"(,"capabilities":)";
  append_json(out, *declared_);
  if (core_->opts.instructions) {
    out += R"(,"instructions":)";
    append_json_string(out, *core_->opts.instructions);
  }
  append_result_fields(out, &core_->opts.discover_cache);
  out += "}}";
  send_final(req.id, std::move(out));
}

void server_session_impl::reply(const jsonrpc::request_id& id, json::value result) {
  if (modern() && result.is_object()) {
    auto& o = result.get_object();
    if (!o.contains("resultType")) o["resultType"] = "complete";
    auto& meta = o["_meta"];
    if (!meta.is_object()) meta = json::object{};
    meta.get_object()["io.modelcontextprotocol/serverInfo"] = core_->server_info_2026;
  }
  peer::reply(id, result);
}

void server_session_impl::append_result_fields(std::string& out, const cache_policy* cache,
                                               bool meta_written) const {
  if (!modern()) return;
  out += R"(,"resultType":"complete")";
  if (cache != nullptr) {
    out += R"(,"ttlMs":)";
    out += std::to_string(std::max<std::int64_t>(0, cache->ttl.count()));
    out += cache->shared ? R"(,"cacheScope":"public")" : R"(,"cacheScope":"private")";
  }
  if (!meta_written) {
    out += R"(,"_meta":{)";
    out += server_info_meta();
    out += '}';
  }
}

const std::string& server_session_impl::server_info_meta() const {
  return core_->server_info_meta_2026;
}

std::shared_ptr<server_session_impl> server_session_impl::modern_twin() {
  std::lock_guard lock(state_mu_);
  if (!twin_ && !peer_closed()) {
    twin_ =
        make_session(core_, conn_ptr(),
                     session_options{.who = *who(),
                                     .assume_initialized = std::string(traits(latest_era).version),
                                     .task_owner = task_owner_,
                                     .shared_task_owner = shared_task_owner_});
    twin_->count_answers(answers_drainer());  // drained with this session (`finish_input`)
  }
  return twin_;
}

}  // namespace mcp::detail
