#include "http/handler.hpp"

#include <mcp/json.hpp>
#include <mcp/jsonrpc.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "protocol.hpp"

namespace mcp::http_detail {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

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

bool is_loopback_name(std::string_view host) {
  return iequals(host, "localhost") || host == "127.0.0.1" || host == "[::1]";
}

/// "name:port" or "[v6]:port" → the name part.
std::string_view host_part(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    return close == std::string_view::npos ? authority : authority.substr(0, close + 1);
  }
  return authority.substr(0, authority.find(':'));
}

/// What the era of `version` has: a supported version, or empty (no header: the version the
/// spec assumes then).
const detail::era_traits& era_of_version(std::string_view version) {
  return detail::traits(detail::era_of(version.empty() ? assumed_version : version));
}

}  // namespace

std::string_view http_request::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (iequals(k, name)) return v;
  }
  return {};
}

http_response error_response(unsigned status, int code, std::string message) {
  http_response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = jsonrpc::encode_error(std::nullopt, error{code, std::move(message)});
  return r;
}

request_handler::request_handler(server& srv, http_server_options opts,
                                 std::function<void(std::function<void()>)> defer)
    : server_(srv),
      opts_(std::move(opts)),
      defer_(std::move(defer)),
      sessions_(opts_.max_sessions, opts_.session_idle_timeout,
                opts_.resumable && !opts_.stateless ? opts_.events : nullptr) {}

void request_handler::set_bound(bool loopback, std::uint16_t port) {
  loopback_ = loopback;
  port_ = port;
}

bool request_handler::host_allowed(std::string_view host) const {
  const auto name = host_part(host);
  if (!opts_.allowed_hosts.empty()) {
    return std::any_of(opts_.allowed_hosts.begin(), opts_.allowed_hosts.end(),
                       [&](const std::string& h) { return iequals(h, name); });
  }
  if (!loopback_) return true;
  return is_loopback_name(name);
}

bool request_handler::origin_allowed(std::string_view origin, bool& listed) const {
  listed = std::any_of(opts_.allowed_origins.begin(), opts_.allowed_origins.end(),
                       [&](const std::string& o) { return iequals(o, origin); });
  if (listed) return true;
  // Not listed: same-host origins are fine when the Host check applies to them too.
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return false;
  auto authority = origin.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find('/'));
  const auto name = host_part(authority);
  if (!opts_.allowed_hosts.empty()) {
    return std::any_of(opts_.allowed_hosts.begin(), opts_.allowed_hosts.end(),
                       [&](const std::string& h) { return iequals(h, name); });
  }
  return loopback_ && is_loopback_name(name);
}

http_response request_handler::handle(http_request& req) {
  try {
    // The endpoint.
    std::string_view path = req.target;
    path = path.substr(0, path.find('?'));
    if (path != opts_.path) {
      return error_response(404, static_cast<int>(errc::invalid_request), "Not Found");
    }
    // DNS rebinding: Host, then Origin.
    if (!host_allowed(req.header("host"))) {
      return error_response(421, static_cast<int>(errc::invalid_request),
                            "Misdirected Request: Host header not allowed");
    }
    std::vector<std::pair<std::string, std::string>> extra;
    const auto origin = req.header("origin");
    if (!origin.empty()) {
      bool listed = false;
      if (!origin_allowed(origin, listed)) {
        return error_response(403, static_cast<int>(errc::invalid_request),
                              "Forbidden: Origin not allowed");
      }
      if (listed) {
        extra.emplace_back("Access-Control-Allow-Origin", std::string(origin));
        extra.emplace_back("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version");
        extra.emplace_back("Vary", "Origin");
        if (req.method == "OPTIONS") {
          http_response r;
          r.status = 204;
          r.headers = std::move(extra);
          r.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
          r.headers.emplace_back("Access-Control-Allow-Headers",
                                 "Content-Type, Accept, Authorization, Mcp-Session-Id, "
                                 "Mcp-Protocol-Version, Last-Event-ID");
          r.headers.emplace_back("Access-Control-Max-Age", "600");
          return r;
        }
      }
    }
    // Authentication.
    principal who;
    if (opts_.authenticate) {
      auto p = opts_.authenticate(http_request_view{req.method, req.target, req.headers});
      if (!p) {
        auto r = error_response(401, static_cast<int>(errc::invalid_request), "Unauthorized");
        r.headers = std::move(extra);
        r.headers.emplace_back("WWW-Authenticate", "Bearer");
        return r;
      }
      who = std::move(*p);
    }
    // Protocol version header.
    const auto version = req.header(version_header);
    if (!version.empty() && !is_supported_protocol_version(version)) {
      auto r = error_response(400, static_cast<int>(errc::invalid_request),
                              "Bad Request: Unsupported protocol version: " + std::string(version));
      r.headers = std::move(extra);
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
      r = error_response(405, static_cast<int>(errc::invalid_request), "Method Not Allowed");
      r.headers = std::move(extra);
    }
    if (r.status == 405) r.headers.emplace_back("Allow", "GET, POST, DELETE");
    return r;
  } catch (const std::exception& e) {
    return error_response(500, static_cast<int>(errc::internal_error),
                          std::string("Internal Server Error: ") + e.what());
  }
}

std::shared_ptr<http_session> request_handler::find_session(const http_request& req,
                                                            const principal& who,
                                                            http_response& error_out) {
  const auto sid = req.header(session_header);
  if (sid.empty()) {
    error_out = error_response(400, static_cast<int>(errc::invalid_request),
                               "Bad Request: Mcp-Session-Id header is required");
    return nullptr;
  }
  auto s = sessions_.find(std::string(sid));
  // A session is bound to the principal that opened it: others are told it does not exist.
  if (!s || s->subject != who.subject) {
    error_out = error_response(404, static_cast<int>(errc::invalid_request), "Session not found");
    return nullptr;
  }
  return s;
}

http_response request_handler::post(http_request& req, const principal& who,
                                    std::string_view version,
                                    std::vector<std::pair<std::string, std::string>> extra) {
  auto fail = [&](unsigned status, int code, std::string msg) {
    auto r = error_response(status, code, std::move(msg));
    r.headers = extra;
    return r;
  };
  const auto accept = req.header("accept");
  if (!icontains(accept, "application/json") || !icontains(accept, "text/event-stream")) {
    return fail(406, static_cast<int>(errc::invalid_request),
                "Not Acceptable: Client must accept both application/json and text/event-stream");
  }
  const auto ctype = req.header("content-type");
  if (!icontains(ctype.substr(0, ctype.find(';')), "application/json")) {
    return fail(415, static_cast<int>(errc::invalid_request),
                "Unsupported Media Type: Content-Type must be application/json");
  }
  auto parsed = parse_json(req.body, server_.options().limits);
  if (!parsed) {
    return fail(400, static_cast<int>(errc::parse_error), "Parse error: " + parsed.error().message);
  }

  // Decode the message(s) once: which are requests (they need an answer), is one initialize.
  // The decoded messages go to the session as they are.
  const bool batch = parsed->is_array();
  std::vector<jsonrpc::message> messages;
  std::vector<std::string> keys;
  const jsonrpc::request* initialize = nullptr;
  auto decode = [&](json::value& v) -> std::optional<error> {
    auto m = jsonrpc::decode(std::move(v));
    if (!m) return m.error().err;
    if (auto* rq = std::get_if<jsonrpc::request>(&*m)) keys.push_back(id_key(rq->id));
    messages.push_back(std::move(*m));
    return std::nullopt;
  };
  if (batch) {
    auto& arr = parsed->get_array();
    if (arr.empty()) return fail(400, static_cast<int>(errc::invalid_request), "Empty batch");
    messages.reserve(arr.size());
    for (auto& v : arr) {
      if (auto e = decode(v)) return fail(400, e->code, "Invalid Request: " + e->message);
    }
  } else if (auto e = decode(*parsed)) {
    return fail(400, e->code, "Invalid Request: " + e->message);
  }
  for (const auto& m : messages) {
    const auto* rq = std::get_if<jsonrpc::request>(&m);
    if (rq != nullptr && rq->method == "initialize") initialize = rq;
  }
  const bool has_initialize = initialize != nullptr;
  if (batch && has_initialize) {
    return fail(400, static_cast<int>(errc::invalid_request),
                "Invalid Request: initialize must not be part of a batch");
  }
  auto deliver = [&messages](server_session& s) {
    for (auto& m : messages) s.receive(std::move(m));
  };
  if (keys.size() > 1 && std::set<std::string>(keys.begin(), keys.end()).size() != keys.size()) {
    return fail(400, static_cast<int>(errc::invalid_request), "Duplicate request ids in batch");
  }
  // The stream cap refuses what surely opens a stream; a POST that may still be answered with
  // JSON is let through (it can become SSE above the cap).
  if (!keys.empty() && opts_.response_mode == http_response_mode::always_sse &&
      sse_open_.load() >= opts_.max_sse_streams) {
    return fail(503, static_cast<int>(errc::internal_error), "Too many open streams");
  }

  // Find or open the session.
  std::shared_ptr<http_session> hs;          // stateful
  std::shared_ptr<routing_connection> conn;  // both modes
  std::shared_ptr<server_session> session;   // both modes
  std::string negotiated;
  if (opts_.stateless) {
    conn = std::make_shared<routing_connection>();
    session_options so{.who = who, .assume_initialized = std::nullopt};
    if (!has_initialize) {
      so.assume_initialized = std::string(version.empty() ? assumed_version : version);
    }
    session = server_.open_session(conn, std::move(so));
    negotiated = version.empty() ? std::string(assumed_version) : std::string(version);
  } else if (req.header(session_header).empty()) {
    if (!has_initialize) {
      return fail(400, static_cast<int>(errc::invalid_request),
                  "Bad Request: Mcp-Session-Id header is required");
    }
    hs = std::make_shared<http_session>();
    hs->id = session_table::new_id();
    hs->subject = who.subject;
    hs->conn = conn = std::make_shared<routing_connection>();
    hs->session = session = server_.open_session(conn, session_options{.who = who});
    if (!sessions_.add(hs)) {
      session->close();
      return fail(503, static_cast<int>(errc::internal_error),
                  "Service Unavailable: too many sessions");
    }
  } else {
    http_response err;
    hs = find_session(req, who, err);
    if (!hs) {
      err.headers = extra;
      return err;
    }
    hs->touch();
    conn = hs->conn;
    session = hs->session;
    negotiated = session->protocol_version();
  }
  if (batch && !era_of_version(negotiated.empty() ? version : negotiated).batches) {
    if (opts_.stateless) session->close();
    return fail(400, static_cast<int>(errc::invalid_request),
                "Invalid Request: JSON-RPC batches are only accepted when protocol version "
                "2025-03-26 was negotiated");
  }
  if (hs) extra.emplace_back("Mcp-Session-Id", hs->id);

  // Notifications and responses only: 202, no body.
  if (keys.empty()) {
    deliver(*session);
    if (opts_.stateless) session->close();
    http_response r;
    r.status = 202;
    r.headers = std::move(extra);
    return r;
  }

  // Requests: a stream collects their answers.
  if (has_initialize) {
    // The stream is created before the version is negotiated: use what the client asks for.
    if (const auto* pv = initialize->params.if_contains("protocolVersion");
        pv != nullptr && pv->is_string()) {
      negotiated = std::string(pv->get_string());
    }
  }
  response_stream::config cfg;
  if (hs) {
    cfg.session = hs->id;
    cfg.store = opts_.resumable ? opts_.events : nullptr;
  }
  cfg.number = conn->next_stream_number();
  cfg.expected_finals = keys.size();
  cfg.batch = batch;
  cfg.force_sse = opts_.response_mode == http_response_mode::always_sse;
  cfg.priming = era_of_version(negotiated).sse_priming;
  cfg.retry = opts_.sse_retry;
  // Stateless: the throwaway session ends with its last answer. Answered while `deliver` runs
  // (inline tools), this thread closes it right after; answered later, an I/O thread does.
  std::shared_ptr<std::atomic<bool>> delivering;
  if (opts_.stateless) {
    delivering = std::make_shared<std::atomic<bool>>(true);
    cfg.on_finished = [session, delivering, defer = defer_] {
      if (delivering->exchange(false)) return;
      defer([session] { session->close(); });
    };
  }
  auto stream = std::make_shared<response_stream>(std::move(cfg));
  if (!conn->register_requests(keys, stream)) {
    return fail(409, static_cast<int>(errc::invalid_request),
                "Conflict: a request with this id is already in progress");
  }
  deliver(*session);
  if (opts_.stateless && !delivering->exchange(false)) session->close();
  if (hs && has_initialize && stream->finished() && !session->initialized()) {
    sessions_.end(hs->id);  // initialize failed: no session to keep (its answer is kept)
    extra.pop_back();
  }
  http_response r;
  r.status = 200;
  r.headers = std::move(extra);
  r.stream = std::move(stream);
  return r;
}

http_response request_handler::get(http_request& req, const principal& who,
                                   std::string_view version,
                                   std::vector<std::pair<std::string, std::string>> extra) {
  auto fail = [&](unsigned status, int code, std::string msg) {
    auto r = error_response(status, code, std::move(msg));
    r.headers = extra;
    return r;
  };
  if (opts_.stateless || !opts_.allow_get_stream) {
    return fail(405, static_cast<int>(errc::invalid_request),
                "Method Not Allowed: this server offers no standalone SSE stream");
  }
  if (!icontains(req.header("accept"), "text/event-stream")) {
    return fail(406, static_cast<int>(errc::invalid_request),
                "Not Acceptable: Client must accept text/event-stream");
  }
  http_response err;
  auto hs = find_session(req, who, err);
  if (!hs) {
    err.headers = extra;
    return err;
  }
  hs->touch();
  if (sse_open_.load() >= opts_.max_sse_streams) {
    return fail(503, static_cast<int>(errc::internal_error), "Too many open streams");
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
      return fail(400, static_cast<int>(errc::invalid_request),
                  "Bad Request: invalid or unknown Last-Event-ID");
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
      return fail(404, static_cast<int>(errc::invalid_request),
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
    return fail(409, static_cast<int>(errc::invalid_request),
                "Conflict: only one standalone SSE stream is allowed per session");
  }
  http_response r;
  r.headers = std::move(extra);
  r.stream = std::move(stream);
  return r;
}

http_response request_handler::del(http_request& req, const principal& who,
                                   std::vector<std::pair<std::string, std::string>> extra) {
  if (opts_.stateless || !opts_.allow_delete) {
    auto r = error_response(405, static_cast<int>(errc::invalid_request),
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
