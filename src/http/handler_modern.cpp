// Streamable HTTP in the 2026-07-28 revision: every POST stands alone. Its headers must agree
// with its body (MCP-Protocol-Version with `_meta`, Mcp-Method with the method, Mcp-Name with
// the name, URI or task id, Mcp-Param-* with the arguments a tool marks; each sent once), else
// 400 with -32020; then it is served by a session of its own that lives as long as the request
// (no session id, no event ids, no resumption). The answer is JSON, or an SSE stream when
// notifications come first; some errors have HTTP statuses of their own (-32601: 404; -32020,
// -32021, -32022: 400). A client that closes the stream cancels the request.
#include <mcp/json.hpp>
#include <mcp/protocol.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>

#include "http/handler.hpp"
#include "jsonrpc_text.hpp"
#include "param_headers.hpp"
#include "protocol.hpp"
#include "session_reuse.hpp"

namespace mcp::http_detail {

namespace {

constexpr std::string_view version_key = "io.modelcontextprotocol/protocolVersion";

const json::object* meta_of(const jsonrpc::request& r) {
  const auto* m = r.params.if_contains("_meta");
  return m != nullptr && m->is_object() ? &m->get_object() : nullptr;
}

std::string_view meta_version(const jsonrpc::request& r) {
  const auto* m = meta_of(r);
  const auto* v = m != nullptr ? m->if_contains(version_key) : nullptr;
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

bool is_modern_version(std::string_view v) {
  // The newest revision is the one asked for: one comparison, not a walk of the table.
  constexpr auto& newest = detail::traits(detail::latest_era);
  if (v == newest.version) return newest.per_request_meta;
  const auto e = detail::find_era(v);
  return e && detail::traits(*e).per_request_meta;
}

json::array modern_versions() {
  json::array out;
  for (auto it = detail::era_table.rbegin(); it != detail::era_table.rend(); ++it) {
    if (it->per_request_meta) out.emplace_back(it->version);
  }
  return out;
}

/// The request parameter a method's `Mcp-Name` mirrors, if it has one.
std::string_view name_param(std::string_view method) {
  if (method == "tools/call" || method == "prompts/get") return "name";
  if (method == "resources/read") return "uri";
  if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") {
    return "taskId";
  }
  return {};
}

/// Which of the headers that mirror the body `name` is, if any: told by its length and first
/// letter before any comparison (most fields are none of them), then compared with the
/// spelling clients send (one memcmp) before ignoring case.
enum class mirror : std::uint8_t { none, version, method, name, param };

bool is_header(std::string_view name, std::string_view spelled, std::string_view lower) {
  return name == spelled || iequals(name, lower);
}

mirror mirror_kind(std::string_view name) {
  constexpr std::string_view param = "mcp-param-";
  // All of them are at least "Mcp-Name" long and start with M.
  if (name.size() < 8 || (name.front() != 'm' && name.front() != 'M')) return mirror::none;
  switch (name.size()) {
    case 8:
      return is_header(name, "Mcp-Name", "mcp-name") ? mirror::name : mirror::none;
    case 10:
      return is_header(name, "Mcp-Method", "mcp-method") ? mirror::method : mirror::none;
    case 20:
      if (is_header(name, "MCP-Protocol-Version", "mcp-protocol-version")) return mirror::version;
      break;
    default:
      break;
  }
  return name.size() > param.size() && iequals(name.substr(0, param.size()), param) ? mirror::param
                                                                                    : mirror::none;
}

/// The headers that mirror the body, read in one pass: Mcp-Method's and Mcp-Name's values, and
/// the first of them sent more than once, if any. A repeated field's value is all of them
/// joined (RFC 9110, 5.3), never what the body says; and an intermediary may read another of
/// them than the first, which is what is checked.
struct mirror_headers {
  std::string_view method;
  std::string_view name;
  std::optional<std::string_view> repeated;
};

mirror_headers read_mirror_headers(const http_request& req) {
  mirror_headers out;
  const auto n = req.headers.size();
  // Where each of the three fixed ones was first seen (n: not yet); the Mcp-Param-* ones by
  // position, a request has a handful.
  std::array<std::size_t, 3> first{n, n, n};
  constexpr std::size_t most = 16;
  std::array<std::size_t, most> params;  // NOLINT: only the first `count` are read
  std::size_t count = 0;
  std::size_t first_repeated = n;
  for (std::size_t i = 0; i < n; ++i) {
    const auto name = req.headers[i].first;
    const auto kind = mirror_kind(name);
    if (kind == mirror::none) continue;
    if (kind != mirror::param) {
      auto& at = first[static_cast<std::size_t>(kind) - 1];
      if (at != n) {
        first_repeated = std::min(first_repeated, at);
      } else {
        at = i;
        if (kind == mirror::method) out.method = req.headers[i].second;
        if (kind == mirror::name) out.name = req.headers[i].second;
      }
      continue;
    }
    bool again = false;
    for (std::size_t k = 0; k < count; ++k) {
      if (iequals(req.headers[params[k]].first, name)) {
        first_repeated = std::min(first_repeated, params[k]);
        again = true;
        break;
      }
    }
    if (again) continue;
    if (count == most) {  // more distinct ones than any request sends: compare the rest directly
      for (std::size_t j = i + 1; j < n; ++j) {
        if (iequals(req.headers[j].first, name)) first_repeated = std::min(first_repeated, i);
      }
    } else {
      params[count++] = i;
    }
  }
  if (first_repeated < n) out.repeated = req.headers[first_repeated].first;
  return out;
}

/// 404 for -32601, 400 for -32020, -32021 and -32022, 200 otherwise.
unsigned status_of(std::string_view body) {
  // Read past the id (jsonrpc_text.hpp): a result (the common case) or an error's code,
  // without scanning or parsing the body. Text of another shape is parsed.
  const auto head = jsonrpc::read_answer_head(body);
  if (head.what == jsonrpc::answer_head::kind::result) return 200;
  std::int64_t code = head.code;
  if (head.what == jsonrpc::answer_head::kind::other) {
    if (body.find(R"("error")") == std::string_view::npos) return 200;
    auto v = parse_json(body);
    if (!v || !v->is_object()) return 200;
    const auto* e = v->get_object().if_contains("error");
    const auto* c = e != nullptr && e->is_object() ? e->get_object().if_contains("code") : nullptr;
    if (c == nullptr || !c->is_int64()) return 200;
    code = c->get_int64();
  }
  switch (code) {
    case static_cast<int>(errc::method_not_found):
      return 404;
    case static_cast<int>(errc::header_mismatch):
    case static_cast<int>(errc::missing_required_client_capability):
    case static_cast<int>(errc::unsupported_protocol_version):
      return 400;
    default:
      return 200;
  }
}

}  // namespace

/// A 2026-07-28 request's session as its stream's callbacks see it, and whether the request is
/// still being handed to it (answered meanwhile: this thread keeps or closes the session).
struct request_record {
  std::shared_ptr<server_session> session;
  std::function<void(std::function<void()>)> defer;
  std::atomic<bool> delivering{true};
};

bool request_handler::is_modern(std::string_view version, const post_body& body) {
  if (!version.empty() && is_modern_version(version)) return true;
  if (body.batch || body.messages.size() != 1) return false;
  const auto* rq = std::get_if<jsonrpc::request>(&body.messages.front());
  return rq != nullptr && !meta_version(*rq).empty();
}

bool request_handler::modern_post(std::string_view version, post_body& body) const {
  // The revision is in the header or the body's `_meta`, which stays text only on the way of
  // such a call to a session of this process.
  const bool modern = is_modern(version, body);
  if (body.meta.whole.empty() || (modern && source_.srv != nullptr)) return modern;
  body.put_meta();
  return modern || is_modern(version, body);
}

http_response request_handler::post_modern(const http_request& req, principal&& who,
                                           std::string_view version, headers extra,
                                           post_body& body) {
  if (body.batch) {
    return error_response(400, errc::invalid_request,
                          "Invalid Request: 2026-07-28 takes one message per POST", extra);
  }
  auto* rq = std::get_if<jsonrpc::request>(&body.messages.front());
  if (rq == nullptr) {
    // A notification (a cancellation: closing the stream cancels already) or a response:
    // nothing to answer, no session to give it to.
    http_response r;
    r.status = 202;
    r.headers = std::move(extra);
    return r;
  }
  auto refuse = [&](unsigned status, error e) { return error_response(status, rq->id, e, extra); };
  auto mismatch = [&](std::string msg) {
    return refuse(400, error{errc::header_mismatch, "Header mismatch: " + std::move(msg)});
  };
  const auto mirrors = read_mirror_headers(req);
  if (mirrors.repeated) return mismatch(std::string(*mirrors.repeated) + " is sent more than once");
  // The revision: the header must be there and agree with `_meta`, which must be complete.
  if (version.empty()) return mismatch("MCP-Protocol-Version is required");
  // Its members in one pass; the session is handed them (session_reuse.hpp).
  detail::request_meta_members found;
  // A `_meta` kept as text: what it says, each value made in place.
  const auto& kept = body.meta;
  const bool as_text = !kept.whole.empty();
  const json::value kept_version =
      as_text ? json::value(json::string_view(kept.version.data(), kept.version.size()))
              : json::value();
  const json::value kept_caps = !as_text ? json::value()
                                : kept.caps_members == 0
                                    ? json::value(json::object())
                                    : json::value(detail::meta_object(kept.caps));
  const json::value kept_level =
      as_text && kept.has_level
          ? json::value(json::string_view(kept.level.data(), kept.level.size()))
          : json::value();
  if (as_text) {
    found = {.version = &kept_version, .caps = &kept_caps, .text = kept.whole};
    if (kept.has_level) found.level = &kept_level;
  } else if (const auto* meta = meta_of(*rq)) {
    found = detail::find_meta_members(*meta);
  }
  const json::value* mv = found.version;
  const json::value* caps = found.caps;
  if (mv == nullptr || !mv->is_string() || caps == nullptr || !caps->is_object()) {
    return refuse(400, error{errc::invalid_params,
                             "Invalid params: _meta needs io.modelcontextprotocol/protocolVersion "
                             "and io.modelcontextprotocol/clientCapabilities"});
  }
  if (!is_modern_version(version)) {
    if (mv->get_string() != version) {
      return mismatch("MCP-Protocol-Version differs from the request's _meta protocolVersion");
    }
    return refuse(
        400,
        error{errc::unsupported_protocol_version,
              "Unsupported protocol version: " + std::string(version),
              json::value(json::object{{"supported", modern_versions()}, {"requested", version}})});
  }
  if (mv->get_string() != version) {
    return mismatch("MCP-Protocol-Version differs from the request's _meta protocolVersion");
  }
  // Routing headers mirror the body exactly (after trimming, and the base64 sentinel decoded).
  const auto method_header = mirrors.method;
  if (method_header.empty()) return mismatch("Mcp-Method is required");
  if (!detail::header_value_is(method_header, rq->method)) {
    return mismatch("Mcp-Method differs from the method");
  }
  if (const auto key = name_param(rq->method); !key.empty()) {
    const auto* p = rq->params.if_contains(key);
    const auto name_header = mirrors.name;
    if (name_header.empty()) return mismatch("Mcp-Name is required for " + rq->method);
    if (p == nullptr || !p->is_string() || !detail::header_value_is(name_header, p->get_string())) {
      return mismatch("Mcp-Name differs from the request's " + std::string(key));
    }
  }
  if (source_.srv != nullptr) {
    auto bad = source_.srv->check_param_headers(
        *rq, [&req](std::string_view name) -> std::optional<std::string_view> {
          for (const auto& [k, v] : req.headers) {
            if (iequals(k, name)) return v;
          }
          return std::nullopt;
        });
    if (bad) return refuse(400, *bad);
  }

  // A session for this request only: a new one, or the one that served the previous request
  // of this TCP connection, answered and idle since (session_reuse.hpp).
  if (body.requests.empty()) body.requests.push_back(rq->id);
  auto tasks_of = task_owner(who, "anonymous");  // before the session takes the principal over
  auto spare = source_.srv != nullptr ? take_spare(req, version) : std::nullopt;
  if (spare) {
    detail::reuse_session(*spare->session, std::move(who), std::move(tasks_of));
  } else {
    spare.emplace(new_spare(req, version));
    spare->conn = std::make_shared<routing_connection>(std::string{}, std::string(req.peer_address),
                                                       req.peer_port);
    spare->session = source_.open_session(
        spare->conn, session_options{.who = std::move(who),
                                     .assume_initialized = std::string(version),
                                     .task_owner = std::move(tasks_of),
                                     .shared_task_owner = !authenticates()});
    if (!spare->session) {
      return error_response(503, errc::internal_error, "Service Unavailable: no session to open",
                            extra);
    }
    if (source_.srv != nullptr) detail::allow_reuse(*spare->session);
  }
  const auto& session = spare->session;
  response_stream::config cfg;
  cfg.number = 1;
  cfg.expected_finals = 1;
  cfg.force_sse = opts_.response_mode == http_response_mode::always_sse;
  cfg.json_status = status_of;
  // The session ends with its answer, or when the client stops waiting for it (which cancels
  // what still runs: a listen stream, a long call). Answered while `receive` runs (inline
  // handlers), this thread keeps it for the next request, or closes it. Both callbacks share
  // one small record, which the stream keeps: each holds a plain pointer to it (trivially
  // copied, so kept inline by std::function, nothing allocated); the record is kept with the
  // spare session and serves the next request when nothing else holds it (an earlier stream).
  std::shared_ptr<request_record> owner = std::move(spare->record);
  const bool alone = owner && owner.use_count() == 1;
  std::atomic_thread_fence(std::memory_order_acquire);  // after what the last other holder did
  if (alone) {
    owner->delivering.store(true, std::memory_order_relaxed);
  } else {
    owner = std::make_shared<request_record>();
    owner->defer = defer_;
  }
  owner->session = session;
  auto* const record = owner.get();
  cfg.on_finished = [record] {
    if (record->delivering.exchange(false)) return;
    record->defer([s = record->session] { s->close(); });
  };
  cfg.on_abandoned = [record] { record->defer([s = record->session] { s->close(); }); };
  cfg.keep = owner;
  auto stream = std::make_shared<response_stream>(std::move(cfg));
  if (!spare->conn->register_requests(body.requests, stream)) {
    session->close();
    return error_response(409, errc::invalid_request,
                          "Conflict: a request with this id is already in progress", extra);
  }
  if (source_.srv != nullptr) {
    detail::receive_request(*session, std::move(*rq), found);
  } else {
    session->receive(std::move(body.messages.front()));
  }
  if (!owner->delivering.exchange(false)) {
    // Answered: the stream has ended (its callbacks will not run again).
    owner->session.reset();
    spare->record = std::move(owner);
    keep_or_close(std::move(*spare));
  }
  http_response r;
  r.status = 200;
  r.headers = std::move(extra);
  r.stream = std::move(stream);
  return r;
}

}  // namespace mcp::http_detail
