#include "http/handler.hpp"

#include <mcp/json.hpp>
#include <mcp/jsonrpc.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <unordered_set>

#include "detail/call_scan.hpp"
#include "detail/message_storage.hpp"
#include "http/bearer.hpp"
#include "protocol.hpp"
#include "session_reuse.hpp"

namespace mcp::http_detail {
namespace {

constexpr std::string_view session_header = "mcp-session-id";
constexpr std::string_view version_header = "mcp-protocol-version";
constexpr std::string_view assumed_version = detail::http_version_without_header;

bool icontains(std::string_view hay, std::string_view needle) {
  if (hay.find(needle) != std::string_view::npos) return true;  // the usual spelling
  if (needle.size() > hay.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (iequals(hay.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

/// What the era of `version` has: a supported version, or empty (no header: the version the
/// spec assumes then).
const detail::era_traits& era_of_version(std::string_view version) {
  return detail::traits(detail::era_of(version.empty() ? assumed_version : version));
}

}  // namespace

http_response error_response(unsigned status, int code, std::string message, headers extra) {
  http_response r;
  r.status = status;
  r.headers = std::move(extra);
  r.content_type = "application/json";
  r.body = jsonrpc::encode_error(std::nullopt, error{code, std::move(message)});
  return r;
}

http_response error_response(unsigned status, const jsonrpc::request_id& id, const error& e,
                             headers extra) {
  http_response r;
  r.status = status;
  r.headers = std::move(extra);
  r.content_type = "application/json";
  r.body = jsonrpc::encode_error(id, e);
  return r;
}

http_response error_response(unsigned status, errc code, std::string message, headers extra) {
  return error_response(status, static_cast<int>(code), std::move(message), std::move(extra));
}

request_handler::request_handler(session_source source, http_server_options opts,
                                 std::function<void(std::function<void()>)> defer)
    : source_(std::move(source)),
      opts_(std::move(opts)),
      defer_(std::move(defer)),
      sessions_(
          opts_.max_sessions, opts_.session_idle_timeout,
          opts_.resumable && !opts_.stateless ? opts_.events : nullptr,
          source_.srv != nullptr && !opts_.stateless ? source_.srv->options().shared : nullptr),
      shared_(source_.srv != nullptr && !opts_.stateless ? source_.srv->options().shared : nullptr),
      observer_(source_.srv != nullptr ? source_.srv->options().observer : nullptr) {
  if (opts_.protected_resource) {
    if (opts_.authenticate) {
      throw std::invalid_argument(
          "http_server_options: set protected_resource or authenticate, not both");
    }
    gate_ = std::make_unique<bearer_gate>(*opts_.protected_resource, opts_.path);
  }
  if (shared_) listen_relay();
}

request_handler::~request_handler() = default;

http_response request_handler::handle(const http_request& req) {
  try {
    // The endpoint.
    std::string_view path = req.target;
    path = path.substr(0, path.find('?'));
    if (path != opts_.path) {
      if (gate_) {
        if (auto r = gate_->metadata(req.method, path)) return std::move(*r);
      }
      return error_response(404, errc::invalid_request, "Not Found");
    }
    // DNS rebinding: Host, then Origin.
    if (!host_allowed(req.header("host"))) {
      return error_response(421, errc::invalid_request,
                            "Misdirected Request: Host header not allowed");
    }
    headers extra;
    const auto origin = req.header("origin");
    if (!origin.empty()) {
      bool listed = false;
      if (!origin_allowed(origin, listed)) {
        return error_response(403, errc::invalid_request, "Forbidden: Origin not allowed");
      }
      if (listed) {
        extra.emplace_back("Access-Control-Allow-Origin", std::string(origin));
        extra.emplace_back("Access-Control-Expose-Headers",
                           "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate");
        extra.emplace_back("Vary", "Origin");
        if (req.method == "OPTIONS") {
          http_response r;
          r.status = 204;
          r.headers = std::move(extra);
          r.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
          r.headers.emplace_back("Access-Control-Allow-Headers",
                                 "Content-Type, Accept, Authorization, Mcp-Session-Id, "
                                 "Mcp-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name");
          r.headers.emplace_back("Access-Control-Max-Age", "600");
          return r;
        }
      }
    }
    // Authentication.
    principal who;
    if (gate_) {
      auto admitted = gate_->admit(req);
      if (auto* refused = std::get_if<http_response>(&admitted)) {
        refused->headers.insert(refused->headers.begin(), extra.begin(), extra.end());
        return std::move(*refused);
      }
      who = std::move(std::get<principal>(admitted));
    } else if (opts_.authenticate) {
      auto p = opts_.authenticate(req);
      if (!p) {
        auto r = error_response(401, errc::invalid_request, "Unauthorized");
        r.headers = std::move(extra);
        r.headers.emplace_back("WWW-Authenticate", "Bearer");
        return r;
      }
      who = std::move(*p);
    }
    // Protocol version header (a POST's is read with its body: 2026-07-28 requests name their
    // revision there too).
    const auto version = req.header(version_header);
    if (req.method != "POST" && !version.empty() && !is_supported_protocol_version(version)) {
      auto r = error_response(400, errc::invalid_request,
                              "Bad Request: Unsupported protocol version: " + std::string(version));
      r.headers = std::move(extra);
      return r;
    }
    if (req.method != "POST" && !version.empty() &&
        detail::traits(detail::era_of(version)).per_request_meta) {
      // 2026-07-28 has no GET stream and no session to end.
      auto r =
          error_response(405, errc::invalid_request,
                         "Method Not Allowed: " + std::string(version) + " is served by POST only");
      r.headers = std::move(extra);
      r.headers.emplace_back("Allow", "POST");
      return r;
    }
    http_response r;
    if (req.method == "POST") {
      r = post(req, who, version, std::move(extra));
    } else if (req.method == "GET") {
      r = get(req, who, version, std::move(extra));
    } else if (req.method == "DELETE") {
      r = del(req, who, std::move(extra));
    } else {
      r = error_response(405, errc::invalid_request, "Method Not Allowed");
      r.headers = std::move(extra);
    }
    if (r.status == 405) r.headers.emplace_back("Allow", "GET, POST, DELETE");
    return r;
  } catch (const std::exception& e) {
    return error_response(500, errc::internal_error,
                          std::string("Internal Server Error: ") + e.what());
  }
}

std::shared_ptr<http_session> request_handler::find_session(const http_request& req,
                                                            const principal& who,
                                                            http_response& error_out) {
  const auto sid = req.header(session_header);
  if (sid.empty()) {
    error_out = error_response(400, errc::invalid_request,
                               "Bad Request: Mcp-Session-Id header is required");
    return nullptr;
  }
  auto s = sessions_.find(sid);
  // A session that ended on its own (a proxy's upstream went away) is forgotten.
  if (s && s->conn->closed()) {
    sessions_.end(s->id);
    s = nullptr;
  }
  if (shared_) {
    if (s && !still_shared(*s)) {
      sessions_.end(s->id, false);  // ended by another process, which erased what it kept
      s = nullptr;
    } else if (!s) {
      s = resume_shared(sid, req, who);
    }
  }
  // A session is bound to the principal that opened it: others are told it does not exist.
  if (!s || s->subject != who.key()) {
    error_out = error_response(404, errc::invalid_request, "Session not found");
    return nullptr;
  }
  return s;
}

/// Checks the headers of a POST, then parses and decodes its body. An error answer on failure.
std::optional<http_response> request_handler::decode_post(const http_request& req, post_body& body,
                                                          const headers& extra) const {
  const auto accept = req.header("accept");
  if (!icontains(accept, "application/json") || !icontains(accept, "text/event-stream")) {
    return error_response(
        406, errc::invalid_request,
        "Not Acceptable: Client must accept both application/json and text/event-stream", extra);
  }
  const auto ctype = req.header("content-type");
  if (!icontains(ctype.substr(0, ctype.find(';')), "application/json")) {
    return error_response(415, errc::invalid_request,
                          "Unsupported Media Type: Content-Type must be application/json", extra);
  }
  // A plain tools/call (`_meta` too) is read without a document (detail/call_scan.hpp).
  if (jsonrpc::message m; detail::scan_tool_call(req.body, source_.limits, m, &body.meta)) {
    body.requests.push_back(
        std::get<jsonrpc::request>(body.messages.emplace_back(std::move(m))).id);
    return std::nullopt;
  }
  auto parsed = parse_json(req.body, source_.limits, detail::make_message_storage());
  if (!parsed) {
    return error_response(400, errc::parse_error, "Parse error: " + parsed.error().message, extra);
  }
  body.batch = parsed->is_array();
  auto decode = [&](json::value& v) -> std::optional<http_response> {
    auto m = jsonrpc::decode(std::move(v));
    if (!m)
      return error_response(400, m.error().err.code, "Invalid Request: " + m.error().err.message,
                            extra);
    if (auto* rq = std::get_if<jsonrpc::request>(&*m)) body.requests.push_back(rq->id);
    body.messages.push_back(std::move(*m));
    return std::nullopt;
  };
  if (body.batch) {
    auto& arr = parsed->get_array();
    if (arr.empty()) return error_response(400, errc::invalid_request, "Empty batch", extra);
    body.messages.reserve(arr.size());
    for (auto& v : arr) {
      if (auto e = decode(v)) return e;
    }
  } else if (auto e = decode(*parsed)) {
    return e;
  }
  for (const auto& m : body.messages) {
    const auto* rq = std::get_if<jsonrpc::request>(&m);
    if (rq != nullptr && rq->method == "initialize") body.initialize = rq;
  }
  if (body.batch && body.initialize != nullptr) {
    return error_response(400, errc::invalid_request,
                          "Invalid Request: initialize must not be part of a batch", extra);
  }
  if (body.requests.size() > 1 &&
      std::unordered_set<jsonrpc::request_id>(body.requests.begin(), body.requests.end()).size() !=
          body.requests.size()) {
    return error_response(400, errc::invalid_request, "Duplicate request ids in batch", extra);
  }
  return std::nullopt;
}

/// Whose tasks a session of caller `who` sees: the authenticated principal (across sessions),
/// else `unauthenticated`.
std::string request_handler::task_owner(const principal& who, std::string unauthenticated) const {
  return authenticates() ? "principal:" + who.key() : std::move(unauthenticated);
}

/// Finds the session a POST goes to, or opens one (initialize, or every POST when stateless).
std::optional<http_response> request_handler::open_target(const http_request& req,
                                                          const principal& who,
                                                          std::string_view version,
                                                          const post_body& body, post_target& t,
                                                          const headers& extra) {
  if (opts_.stateless) {
    t.negotiated = version.empty() ? std::string(assumed_version) : std::string(version);
    if (body.initialize == nullptr && open_stateless(req, who, t.negotiated, t)) {
      return std::nullopt;
    }
    t.conn = std::make_shared<routing_connection>(std::string{}, std::string(req.peer_address),
                                                  req.peer_port);
    // Without an authenticator, every anonymous caller of a stateless server is one owner:
    // task ids are unguessable, and tasks/list is not offered.
    session_options so{.who = who,
                       .assume_initialized = std::nullopt,
                       .task_owner = task_owner(who, "anonymous"),
                       .shared_task_owner = !authenticates()};
    if (body.initialize == nullptr) {
      so.assume_initialized = std::string(version.empty() ? assumed_version : version);
    }
    t.session = source_.open_session(t.conn, std::move(so));
    if (t.session && t.spare && source_.srv != nullptr) detail::allow_reuse(*t.session);
    return std::nullopt;
  }
  if (req.header(session_header).empty()) {
    if (body.initialize == nullptr) {
      return error_response(400, errc::invalid_request,
                            "Bad Request: Mcp-Session-Id header is required", extra);
    }
    const auto full = [&] {
      return error_response(503, errc::internal_error, "Service Unavailable: too many sessions",
                            extra);
    };
    if (sessions_.size() >= opts_.max_sessions) {
      sessions_.expire();  // sessions that ended on their own free their places
      if (sessions_.size() >= opts_.max_sessions) return full();  // before opening one for nothing
    }
    t.hs = std::make_shared<http_session>();
    t.hs->id = session_table::new_id();
    t.hs->subject = who.key();
    t.hs->conn = t.conn = std::make_shared<routing_connection>(
        t.hs->id, std::string(req.peer_address), req.peer_port);
    if (shared_) {
      t.conn->number_from(shared_stream_base());
      forward_from(*t.conn, t.hs->id);
    }
    t.hs->session = t.session = source_.open_session(
        t.conn, session_options{.who = who, .task_owner = task_owner(who, "session:" + t.hs->id)});
    if (!t.session) {
      return error_response(503, errc::internal_error, "Service Unavailable: no session to open",
                            extra);
    }
    if (!sessions_.add(t.hs)) {
      t.session->close();
      return full();
    }
    return std::nullopt;
  }
  http_response err;
  t.hs = find_session(req, who, err);
  if (!t.hs) {
    err.headers = extra;
    return err;
  }
  t.hs->touch();
  t.conn = t.hs->conn;
  t.session = t.hs->session;
  // Each request is authenticated anew: its token's scopes may have grown (step-up).
  if (authenticates()) t.session->set_caller(who);
  t.negotiated = t.session->protocol_version();
  return std::nullopt;
}

http_response request_handler::post(const http_request& req, principal& who,
                                    std::string_view version, headers extra) {
  post_body body;
  if (auto e = decode_post(req, body, extra)) return std::move(*e);
  const bool modern = modern_post(version, body);  // 2026-07-28 (handler_modern.cpp)
  if (gate_) {
    if (auto refused = gate_->check_requests(source_.srv, body.messages, who)) {
      refused->headers.insert(refused->headers.begin(), extra.begin(), extra.end());
      return std::move(*refused);
    }
  }
  if (modern) {
    auto r = post_modern(req, std::move(who), version, std::move(extra), body);
    r.unbuffered = true;  // every answer of the era, errors too
    return r;
  }
  if (!version.empty() && !is_supported_protocol_version(version)) {
    return error_response(400, errc::invalid_request,
                          "Bad Request: Unsupported protocol version: " + std::string(version),
                          std::move(extra));
  }
  // The stream cap refuses what surely opens a stream; a POST that may still be answered with
  // JSON is let through (it can become SSE above the cap).
  if (!body.requests.empty() && opts_.response_mode == http_response_mode::always_sse &&
      sse_open_.load() >= opts_.max_sse_streams) {
    return error_response(503, errc::internal_error, "Too many open streams", extra);
  }
  post_target t;
  if (auto e = open_target(req, who, version, body, t, extra)) return std::move(*e);
  if (body.batch && !era_of_version(t.negotiated.empty() ? version : t.negotiated).batches) {
    if (opts_.stateless) t.session->close();
    return error_response(400, errc::invalid_request,
                          "Invalid Request: JSON-RPC batches are only accepted when protocol "
                          "version 2025-03-26 was negotiated",
                          extra);
  }
  if (t.hs) extra.emplace_back("Mcp-Session-Id", t.hs->id);
  auto deliver = [&body](server_session& s) {
    for (auto& m : body.messages) s.receive(std::move(m));
  };

  // A cancelled request gets no answer (the peer sends none): its stream stops waiting.
  std::vector<jsonrpc::request_id> cancelled;
  for (const auto& m : body.messages) {
    const auto* n = std::get_if<jsonrpc::notification>(&m);
    if (n == nullptr) continue;
    if (auto id = jsonrpc::cancelled_request(n->method, n->params)) {
      cancelled.push_back(std::move(*id));
    }
  }
  auto forget_cancelled = [&] {
    for (const auto& id : cancelled) t.conn->forget_request(id);
  };

  // Notifications and responses only: 202, no body.
  if (body.requests.empty()) {
    if (shared_ && t.hs && !body.batch) forward_answers(body, req, t.hs->id);
    deliver(*t.session);
    forget_cancelled();
    if (opts_.stateless) t.session->close();
    http_response r;
    r.status = 202;
    r.headers = std::move(extra);
    return r;
  }

  // Requests: a stream collects their answers.
  if (body.initialize != nullptr) {
    // The stream is created before the version is negotiated: use what the client asks for.
    if (const auto* pv = body.initialize->params.if_contains("protocolVersion");
        pv != nullptr && pv->is_string()) {
      t.negotiated = std::string(pv->get_string());
    }
  }
  response_stream::config cfg;
  if (t.hs && opts_.resumable) {  // the session id names the stream's events in the store
    cfg.session = t.hs->id;
    cfg.store = opts_.events;
  }
  cfg.number = t.conn->next_stream_number();
  cfg.expected_finals = body.requests.size();
  cfg.batch = body.batch;
  cfg.force_sse = opts_.response_mode == http_response_mode::always_sse;
  cfg.priming = era_of_version(t.negotiated).sse_priming;
  cfg.retry = opts_.sse_retry;
  // Stateless: the throwaway session ends with its last answer. Answered while `deliver` runs
  // (inline tools), this thread closes it right after; answered later, an I/O thread does.
  std::shared_ptr<std::atomic<bool>> delivering;
  if (opts_.stateless) {
    delivering = std::make_shared<std::atomic<bool>>(true);
    cfg.on_finished = [session = t.session, delivering, defer = defer_] {
      if (delivering->exchange(false)) return;
      defer([session] { session->close(); });
    };
  }
  auto stream = std::make_shared<response_stream>(std::move(cfg));
  if (!t.conn->register_requests(body.requests, stream)) {
    if (t.conn->closed()) {  // the session ended meanwhile (a proxy's upstream went away)
      if (t.hs) {
        sessions_.end(t.hs->id);
        extra.pop_back();  // its Mcp-Session-Id
      }
      return error_response(404, errc::invalid_request, "Session not found", extra);
    }
    return error_response(409, errc::invalid_request,
                          "Conflict: a request with this id is already in progress", extra);
  }
  deliver(*t.session);
  forget_cancelled();
  if (opts_.stateless && !delivering->exchange(false)) end_stateless(t);
  if (t.hs && body.initialize != nullptr && stream->finished() && !t.session->initialized()) {
    sessions_.end(t.hs->id);  // initialize failed: no session to keep (its answer is kept)
    extra.pop_back();
  }
  http_response r;
  r.status = 200;
  r.headers = std::move(extra);
  r.stream = std::move(stream);
  return r;
}

http_response request_handler::get(const http_request& req, const principal& who,
                                   std::string_view version, headers extra) {
  auto fail = [&](unsigned status, errc code, std::string msg) {
    return error_response(status, code, std::move(msg), extra);
  };
  if (opts_.stateless || !opts_.allow_get_stream) {
    return fail(405, errc::invalid_request,
                "Method Not Allowed: this server offers no standalone SSE stream");
  }
  if (!icontains(req.header("accept"), "text/event-stream")) {
    return fail(406, errc::invalid_request, "Not Acceptable: Client must accept text/event-stream");
  }
  http_response err;
  auto hs = find_session(req, who, err);
  if (!hs) {
    err.headers = extra;
    return err;
  }
  hs->touch();
  if (sse_open_.load() >= opts_.max_sse_streams) {
    return fail(503, errc::internal_error, "Too many open streams");
  }
  extra.emplace_back("Mcp-Session-Id", hs->id);

  const auto last = req.header("last-event-id");
  if (!last.empty()) {
    // Resumption: "<stream>-<seq>", bound to this session (the store is keyed by session id).
    const auto dash = last.find('-');
    std::uint64_t number = 0;
    std::uint64_t seq = 0;
    const auto* b = last.data();
    const auto* e = last.data() + last.size();
    const bool ok = dash != std::string_view::npos &&
                    std::from_chars(b, b + dash, number).ptr == b + dash &&
                    std::from_chars(b + dash + 1, e, seq).ptr == e;
    if (!ok || !opts_.resumable || !opts_.events) {
      return fail(400, errc::invalid_request, "Bad Request: invalid or unknown Last-Event-ID");
    }
    auto stream = hs->conn->find_stream(number);
    if (stream) {
      if (!stream->rewind(seq)) stream = nullptr;
    } else {
      // The stream already ended: replay what is left of it from the store.
      response_stream::config cfg;
      cfg.session = hs->id;
      cfg.number = number;
      cfg.store = opts_.events;
      cfg.force_sse = true;
      cfg.replay = true;
      stream = std::make_shared<response_stream>(std::move(cfg));
      if (stream->rewind(seq)) {
        stream->finish();
      } else {
        stream = nullptr;
      }
    }
    if (!stream) {
      return fail(404, errc::invalid_request,
                  "Not Found: the events after this Last-Event-ID are no longer available");
    }
    http_response r;
    r.headers = std::move(extra);
    r.stream = std::move(stream);
    return r;
  }

  const std::string negotiated = hs->session->protocol_version();
  response_stream::config cfg;
  cfg.session = hs->id;
  cfg.number = hs->conn->next_stream_number();
  cfg.store = opts_.resumable ? opts_.events : nullptr;
  cfg.standalone = true;
  cfg.priming = era_of_version(negotiated.empty() ? version : negotiated).sse_priming;
  cfg.retry = opts_.sse_retry;
  auto stream = std::make_shared<response_stream>(std::move(cfg));
  if (!hs->conn->set_standalone(stream)) {
    return fail(409, errc::invalid_request,
                "Conflict: only one standalone SSE stream is allowed per session");
  }
  if (shared_) announce_stream(hs->id);
  http_response r;
  r.headers = std::move(extra);
  r.stream = std::move(stream);
  return r;
}

http_response request_handler::del(const http_request& req, const principal& who, headers extra) {
  if (opts_.stateless || !opts_.allow_delete) {
    auto r = error_response(405, errc::invalid_request,
                            "Method Not Allowed: sessions cannot be ended by the client");
    r.headers = std::move(extra);
    return r;
  }
  http_response err;
  auto hs = find_session(req, who, err);
  if (!hs) {
    err.headers = std::move(extra);
    return err;
  }
  sessions_.end(hs->id);
  if (shared_) shared_->erase_session(hs->id);
  http_response r;
  r.status = 200;
  r.headers = std::move(extra);
  return r;
}

}  // namespace mcp::http_detail

namespace mcp {

std::string_view http_request_view::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (http_detail::iequals(k, name)) return v;
  }
  return {};
}

}  // namespace mcp
