// The Streamable HTTP client transport: blocking Beast I/O, one private io_context per
// exchange (so every read and write has a deadline). A request whose sender waits for it runs
// on the sender's thread when a kept-alive connection is ready for it (no connect to wait out,
// no authorizer that may run a browser flow); others run on worker threads (worker_pool.hpp);
// plain HTTP or HTTPS (OpenSSL: TLS 1.2 or later, the server's certificate checked for its host).
// Connections are kept alive: one that ended with a complete plain answer goes back to a small
// idle pool; a pooled connection is checked before use, and a request that still finds it
// closed is sent again on a new connection only when that cannot run it twice.
#include <mcp/http_client.hpp>
#include <mcp/json.hpp>

#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "http/client_exchange.hpp"
#include "http/fetch.hpp"
#include "http/sse.hpp"
#include "http/worker_pool.hpp"

namespace mcp {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using http_detail::exchange;
using http_detail::is_stale_connection;

struct http_client_connection::impl {
  http_client_options opts;
  std::unique_ptr<net::ssl::context> tls_ctx;  ///< https: verifies the server; null: http
  std::string host, target, host_header;
  std::uint16_t port = 0;

  mutable std::mutex mu;
  std::shared_ptr<std::function<void(std::string_view)>> receiver;
  std::string session_id;
  std::string version;
  bool expired = false;
  bool closed = false;
  std::size_t resumptions = 0;
  // Sockets of exchanges in progress, for close() and cancellations: each is the exchange's
  // shared_handle(), a dup() of its socket that lives as long as the exchange, and an exchange
  // leaves this set (done()) before it is destroyed, so a number here always names that socket,
  // even after the exchange's own descriptor was closed.
  std::set<int> live_fds;
  std::vector<std::unique_ptr<exchange>> idle;  // kept-alive connections, newest last
  std::size_t connections_opened = 0;
  static constexpr std::size_t max_idle = 16;
  http_detail::worker_pool workers{std::chrono::seconds(10)};  // run the other requests

  std::set<std::string> abandoned;  // ids of requests the session cancelled (serialized)
  // Requests in flight (serialized id → the socket carrying it now): a cancellation ends that
  // exchange (in 2026-07-28 a closed stream is the cancellation: a replaced listen ends).
  std::map<std::string, int> watched_fds;
  std::condition_variable cancel_cv;  // wakes a resumption's pause at a cancellation or close
  bool closing = false;               // close() began: no new exchange on a sender's thread

  /// Notes request `id`, which the session cancelled: it is not sent again after an
  /// authorization, and a stream that ends without its answer is not reported (the session no
  /// longer waits for it, and the server sends no answer). Returns its serialized id.
  std::string note_cancellation(const jsonrpc::request_id& cancelled) {
    std::string id = json::serialize(jsonrpc::id_to_json(cancelled));
    std::lock_guard lock(mu);
    if (abandoned.size() >= 1024) abandoned.erase(abandoned.begin());  // bounded: one goes
    abandoned.insert(id);
    return id;
  }
  /// Ends the exchange of cancelled request `id`, and wakes a resumption waiting to retry. (A
  /// 2025-11-25 server learns of the cancellation from the notification; a 2026-07-28 one from
  /// the closed stream.)
  void interrupt(const std::string& id) {
    std::lock_guard lock(mu);
    if (auto it = watched_fds.find(id); it != watched_fds.end()) ::shutdown(it->second, SHUT_RDWR);
    cancel_cv.notify_all();
  }
  /// Request `id` is over (answered, failed or given up): its cancellation mark goes.
  void settled(const json::value& id) {
    std::lock_guard lock(mu);
    if (!abandoned.empty()) abandoned.erase(json::serialize(id));
  }
  bool abandoned_request(const json::value& id) {
    std::lock_guard lock(mu);
    return abandoned.contains(json::serialize(id));
  }

  void deliver(std::string_view text) {
    std::shared_ptr<std::function<void(std::string_view)>> r;
    {
      std::lock_guard lock(mu);
      r = receiver;
    }
    if (r && *r) (*r)(text);
  }

  /// One whole request: the request line, the headers (the authorizer's too), then `body`.
  std::string request_text(std::string_view method, std::string_view accept,
                           std::string_view last_event_id, std::string_view body,
                           const http_header_list& authorization) {
    std::string h;
    h.reserve(1024 + accept.size() + target.size() + host_header.size() + last_event_id.size() +
              body.size());
    const auto line = [&h](std::string_view name, std::string_view value) {
      h.append(name).append(": ").append(value).append("\r\n");
    };
    h.append(method).append(" ").append(target).append(" HTTP/1.1\r\n");
    line("Host", host_header);
    line("Accept", accept);
    if (method == "POST") {
      char digits[24];
      const auto end = std::to_chars(digits, digits + sizeof digits, body.size()).ptr;
      line("Content-Type", "application/json");
      line("Content-Length", std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }
    {
      std::lock_guard lock(mu);
      if (!session_id.empty()) line("Mcp-Session-Id", session_id);
      if (!version.empty()) line("Mcp-Protocol-Version", version);
    }
    if (!last_event_id.empty()) line("Last-Event-ID", last_event_id);
    for (const auto& [k, v] : authorization) line(k, v);
    for (const auto& [k, v] : opts.headers) line(k, v);
    h.append("\r\n").append(body);
    return h;
  }

  /// `open` for one request (`body` after the head), authorized by `opts.authorizer` when there
  /// is one: a 401, or a 403 with a challenge, goes to the authorizer, and the request is sent
  /// again (at most 3 times) when it says so. A refusal that stands is returned with its body
  /// already read into `refusal_body` (the exchange is then at its end) and the authorizer's
  /// reason in `why`.
  std::unique_ptr<exchange> send(std::string_view method, std::string_view accept,
                                 std::string_view last_event_id, const std::string& body,
                                 beast::error_code& ec, std::string& refusal_body,
                                 std::string* why = nullptr,
                                 const std::optional<json::value>& id = std::nullopt,
                                 const std::string* watch = nullptr,
                                 const http_header_list* described = nullptr) {
    for (int attempt = 0;; ++attempt) {
      refusal_body.clear();
      auto headers = described != nullptr ? *described : http_header_list{};  // the message's own
      if (opts.authorizer) {
        auto more = opts.authorizer->request_headers(method, opts.url);
        headers.insert(headers.end(), more.begin(), more.end());
      }
      const auto sent = std::find_if(headers.begin(), headers.end(), [](const auto& h) {
        return beast::iequals(h.first, "Authorization");
      });
      const std::string auth = sent == headers.end() ? std::string() : sent->second;
      auto ex = open(request_text(method, accept, last_event_id, body, headers), ec, watch);
      if (ec || !opts.authorizer) return ex;
      const unsigned status = ex->status();
      opts.authorizer->answered(static_cast<int>(status), [&ex](std::string_view name) {
        return std::string(ex->header(name));
      });
      const std::string challenge = ex->header_all("WWW-Authenticate");
      if (status != 401 && (status != 403 || challenge.empty())) return ex;
      beast::error_code read_ec;
      while (!(read_ec = ex->read_some(refusal_body, opts.read_timeout))) {
      }
      if (attempt == 3 || !opts.authorizer->refused(static_cast<int>(status), challenge, auth)) {
        if (why != nullptr) *why = opts.authorizer->refusal_reason();
        return ex;
      }
      if (id && abandoned_request(*id)) {  // given up on while the user authorized: not sent
        if (why != nullptr) *why = "the request was cancelled while authorization ran";
        return ex;
      }
      // Not back to the pool: the connection sat idle for the whole authorization, the server may
      // be closing it right now, and a POST written to it then would be lost. The next attempt
      // opens a new connection.
      done(*ex);
    }
  }

  /// Sends `data` (a whole request) and reads the response head, on a pooled connection when
  /// one is idle and still open, else on a new one. A request that finds its pooled connection
  /// closed by the server is sent again on a new connection when that cannot run it twice: the
  /// write failed, or it is not a POST (GET, DELETE). A POST that was written is never replayed
  /// (RFC 9110 9.2.2). The socket is registered so that close() can interrupt it. `ec` tells
  /// how it went; the exchange is returned either way (for `done`).
  /// `watch`: the serialized id of a request run on its sender's thread; its socket is
  /// registered for `interrupt`, and a request already cancelled is not sent.
  std::unique_ptr<exchange> open(const std::string& data, beast::error_code& ec,
                                 const std::string* watch) {
    const bool idempotent = !data.starts_with("POST ");
    for (int attempt = 0;; ++attempt) {
      std::unique_ptr<exchange> ex;
      {
        std::lock_guard lock(mu);
        if (closed) {
          ec = net::error::operation_aborted;
          return std::make_unique<exchange>(tls_ctx.get());
        }
        while (attempt == 0 && !ex && !idle.empty()) {
          ex = std::move(idle.back());
          idle.pop_back();
          // Closed by the server while idle, or about to be.
          if (ex->idle_too_long() || ex->peer_closed()) ex.reset();
        }
      }
      const bool pooled = ex != nullptr;
      if (!pooled) {
        ex = std::make_unique<exchange>(tls_ctx.get());
        ec = ex->connect(host, port, opts.connect_timeout);
        if (ec) return ex;
      }
      {
        std::lock_guard lock(mu);
        if (!pooled) ++connections_opened;
        if (closed) {
          ec = net::error::operation_aborted;
          return ex;
        }
        if (watch != nullptr && (closing || abandoned.contains(*watch))) {
          ec = net::error::operation_aborted;
          return ex;
        }
        const int registered = ex->shared_handle();
        if (registered < 0) {
          ec = net::error::no_descriptors;
          return ex;
        }
        ex->registered_fd = registered;
        live_fds.insert(registered);
        if (watch != nullptr) watched_fds[*watch] = registered;
      }
      ec = ex->write(data, opts.read_timeout);
      const bool written = !ec;
      if (written) ec = ex->read_header(opts.read_timeout);
      if (ec && pooled && is_stale_connection(ec) && (!written || idempotent)) {
        done(*ex);
        continue;  // the server had closed it: send again on a new connection
      }
      if (!ec) {
        const auto sid = ex->header("Mcp-Session-Id");
        std::lock_guard lock(mu);
        if (!sid.empty() && session_id.empty()) session_id = sid;
      }
      return ex;
    }
  }

  /// The exchange's registration ends (its socket may be closed from now on).
  void done(exchange& ex) {
    std::lock_guard lock(mu);
    const int fd = std::exchange(ex.registered_fd, -1);
    if (fd < 0) return;
    live_fds.erase(fd);
    std::erase_if(watched_fds, [fd](const auto& w) { return w.second == fd; });
  }

  /// A kept-alive connection is idle now (a request may then run on its sender's thread).
  [[nodiscard]] bool connection_ready() {
    std::lock_guard lock(mu);
    return !closed && !closing && !idle.empty();
  }

  /// The exchange is over: its connection goes back to the pool when it can carry another.
  void release(std::unique_ptr<exchange> ex) {
    done(*ex);
    if (!ex->reusable()) return;
    std::lock_guard lock(mu);
    if (closed || idle.size() >= max_idle) return;
    ex->park(opts.pool_idle_timeout);
    idle.push_back(std::move(ex));
  }

  /// Delivers a JSON-RPC error response for `id` (when the message was a request); `why` (an
  /// authorizer's reason) replaces the message. Status 0: no HTTP answer came (`body` says why):
  /// `errc::connection_closed`, as any transport that cannot reach its peer says.
  void fail_request(const std::optional<json::value>& id, unsigned status, std::string_view body,
                    const std::string& why = {}, bool session_gone = false) {
    if (!id || abandoned_request(*id)) return;  // cancelled: the session expects no answer
    json::object err{{"code", -32000}, {"message", "HTTP " + std::to_string(status)}};
    if (status == 0) {
      err["code"] = static_cast<int>(errc::connection_closed);
      err["message"] = std::string(body);
    }
    if (auto v = parse_json(body); v && v->is_object()) {
      if (const auto* e = v->get_object().if_contains("error"); e != nullptr && e->is_object()) {
        err = e->get_object();
      }
    }
    if (session_gone) {
      err["message"] = "Session not found (HTTP 404): the session ended; start a new one";
    }
    if (!why.empty()) err["message"] = "HTTP " + std::to_string(status) + ": " + why;
    json::object msg{{"jsonrpc", "2.0"}, {"id", *id}, {"error", err}};
    deliver(json::serialize(msg));
  }

  /// Reads an SSE body until `id`'s response arrives (or, without an id, until the end),
  /// resuming with GET + Last-Event-ID when the connection drops first.
  void read_sse(exchange& first, const std::optional<json::value>& id,
                const std::string* watch = nullptr) {
    http_detail::sse_parser parser;
    bool answered = false;
    const std::string id_text = id ? json::serialize(*id) : std::string();
    auto on_event = [&](const http_detail::sse_event& ev) {
      if (!ev.event.empty() && ev.event != "message") return;
      if (id && !answered) {
        auto v = parse_json(ev.data);
        if (v && v->is_object()) {
          const auto& o = v->get_object();
          const auto* mid = o.if_contains("id");
          if (mid != nullptr && !o.contains("method") && json::serialize(*mid) == id_text) {
            answered = true;
          }
        }
      }
      deliver(ev.data);
    };
    exchange* ex = &first;
    std::unique_ptr<exchange> resumed;
    std::size_t attempts = 0;  // resumptions in a row that brought no new event
    std::string resumed_from;
    for (;;) {
      std::string chunk;
      beast::error_code ec;
      while (!ec && !answered) {
        chunk.clear();
        ec = ex->read_some(chunk, opts.read_timeout);
        parser.feed(chunk, on_event);
      }
      done(*ex);
      if (answered) return;
      {
        std::lock_guard lock(mu);
        if (closed) return;
      }
      // The stream ended or dropped before the answer: resume when we can (not for a request
      // the session cancelled: the server ends its stream without an answer).
      if (ec == bhttp::error::end_of_stream && !id) return;
      if (id && abandoned_request(*id)) return;
      if (parser.last_event_id() != resumed_from) attempts = 0;  // progress: a new budget
      if (parser.last_event_id().empty() || attempts++ >= opts.max_resume_attempts) {
        fail_request(id, 0, "the SSE stream ended before the response arrived");
        return;
      }
      {
        std::unique_lock lock(mu);
        const auto pause = std::min(parser.retry().value_or(std::chrono::milliseconds(100)),
                                    std::chrono::milliseconds(5000));
        if (cancel_cv.wait_for(lock, pause,
                               [&] { return closed || closing || abandoned.contains(id_text); })) {
          return;  // cancelled or closed meanwhile: the session expects no answer
        }
      }
      resumed_from = parser.last_event_id();
      std::string refusal;
      resumed = send("GET", "text/event-stream", resumed_from, {}, ec, refusal, nullptr, id, watch);
      ex = resumed.get();
      if (ec || ex->status() != 200) {
        done(*ex);
        const bool gone = !ec && ex->status() == 404 && mark_expired_if_session();
        fail_request(id, ec ? 0 : ex->status(), ec ? ec.message() : "resumption refused", {}, gone);
        return;
      }
      std::lock_guard lock(mu);
      ++resumptions;
    }
  }

  /// Sends the standalone GET; a stream it opens (200) is read on a worker, which holds `self`
  /// (this). Returns the status (0: no answer).
  int open_event_stream(const std::shared_ptr<impl>& self) {
    beast::error_code ec;
    std::string refusal;
    std::shared_ptr<exchange> ex = send("GET", "text/event-stream", {}, {}, ec, refusal);
    const unsigned status = ec ? 0 : ex->status();
    if (status != 200) {
      done(*ex);
      return static_cast<int>(status);
    }
    workers.run(self, [this, ex] { read_sse(*ex, std::nullopt); });
    return 200;
  }

  /// A 404 ends the session we held (true); without one (2026-07-28) it answers one request.
  bool mark_expired_if_session() {
    std::lock_guard lock(mu);
    if (session_id.empty()) return false;
    expired = true;
    session_id.clear();
    return true;
  }

  /// One POST exchange, start to end (the answer is delivered). `watch`: as for `open`;
  /// `described`: the message's own headers (send_context::headers).
  void post(const std::string& message, const std::optional<json::value>& id,
            const std::string* watch = nullptr, const http_header_list* described = nullptr) {
    beast::error_code ec;
    std::string body;
    std::string why;
    auto ex = send("POST", "application/json, text/event-stream", {}, message, ec, body, &why, id,
                   watch, described);
    if (ec) {
      done(*ex);
      fail_request(id, 0, "HTTP request failed: " + ec.message());
      return;
    }
    const unsigned status = ex->status();
    const auto ctype = ex->header("Content-Type");
    if (status == 200 && ctype.find("text/event-stream") != std::string::npos) {
      read_sse(*ex, id, watch);
      return;
    }
    while (!(ec = ex->read_some(body, opts.read_timeout))) {
    }
    release(std::move(ex));
    // An answer cut short or timed out is not an answer (a refusal's status says enough).
    if ((status == 200 || status == 202) && ec != bhttp::error::end_of_stream) {
      fail_request(id, 0, "HTTP response failed: " + ec.message());
      return;
    }
    if (status == 202) return;
    if (status == 200) {
      auto t = std::string_view(body);  // without leading white space
      t.remove_prefix(std::min(t.size(), t.find_first_not_of(" \t\n\r")));
      if (!t.empty() && t.front() == '[') {
        auto v = parse_json(t);
        if (v && v->is_array()) {
          for (const auto& m : v->get_array()) deliver(json::serialize(m));
        }
      } else if (!t.empty()) {
        deliver(t);
      }
      return;
    }
    const bool gone = status == 404 && mark_expired_if_session();
    fail_request(id, status, body, why, gone);
  }
};

http_client_connection::http_client_connection(http_client_options opts)
    : impl_(std::make_shared<impl>()) {
  auto u = boost::urls::parse_uri(opts.url);
  if (!u || (u->scheme() != "http" && u->scheme() != "https")) {
    throw std::invalid_argument("http_client_connection: not an http(s) URL: " + opts.url);
  }
  if (u->scheme() == "https") {
    impl_->tls_ctx = std::make_unique<net::ssl::context>(net::ssl::context::tls_client);
    impl_->tls_ctx->set_options(net::ssl::context::no_sslv2 | net::ssl::context::no_sslv3 |
                                net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1);
    if (opts.ca_file.empty()) {
      impl_->tls_ctx->set_default_verify_paths();
    } else {
      impl_->tls_ctx->load_verify_file(opts.ca_file);  // throws when it cannot be used
    }
    impl_->tls_ctx->set_verify_mode(net::ssl::verify_peer);
  }
  impl_->host = std::string(u->host());
  if (!impl_->host.empty() && impl_->host.front() == '[') {
    impl_->host = impl_->host.substr(1, impl_->host.size() - 2);
  }
  impl_->port = u->has_port() ? http_detail::url_port(u->port()) : (impl_->tls_ctx ? 443 : 80);
  if (impl_->port == 0) {
    throw std::invalid_argument(
        "http_client_connection: the URL's port is not a number from 1 to 65535: " + opts.url);
  }
  impl_->target = std::string(u->encoded_target());
  if (impl_->target.empty()) impl_->target = "/";
  impl_->host_header = std::string(u->encoded_host_and_port());
  impl_->opts = std::move(opts);
}

http_client_connection::~http_client_connection() { close(); }

void http_client_connection::on_receive(std::function<void(std::string_view)> receiver) {
  std::lock_guard lock(impl_->mu);
  impl_->receiver = std::make_shared<std::function<void(std::string_view)>>(std::move(receiver));
}

void http_client_connection::send(std::string message, const send_context& ctx) {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->closed) return;
  }
  std::optional<json::value> id;
  if (ctx.request != nullptr) id = jsonrpc::id_to_json(*ctx.request);
  if (!id) {  // notification or response: a quick 202, on this thread
    // A cancelled request run on its sender's thread is let go at once, and the cancellation
    // is posted by a worker: the thread sending it (a timer, say) is not held by the server.
    if (ctx.cancels != nullptr) {
      impl_->interrupt(impl_->note_cancellation(*ctx.cancels));
      impl_->workers.run(impl_, [m = impl_.get(), message = std::move(message)] {
        m->post(message, std::nullopt);
      });
      return;
    }
    impl_->post(message, std::nullopt);
    return;
  }
  // On this thread, no hand-off to a worker and back, when every step can be interrupted: a
  // connection is ready (no connect), and no authorizer may run a browser flow.
  if (ctx.sender_waits && !impl_->opts.authorizer && impl_->connection_ready()) {
    const std::string watch = json::serialize(*id);
    impl_->post(message, id, &watch, ctx.headers);
    impl_->settled(*id);
    return;
  }
  impl_->workers.run(impl_, [m = impl_.get(), message = std::move(message), id,
                             described = ctx.headers ? *ctx.headers : http_header_list{},
                             watch = json::serialize(*id)] {
    m->post(message, id, &watch, &described);
    m->settled(*id);
  });
}

void http_client_connection::close() {
  std::string sid;
  bool expired = false;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->closed || impl_->closing) return;
    sid = impl_->session_id;
    expired = impl_->expired;
    // Senders waiting on their own exchanges are let go before the DELETE, which may take its
    // time.
    impl_->closing = true;
    for (const auto& [id, fd] : impl_->watched_fds) ::shutdown(fd, SHUT_RDWR);
    impl_->cancel_cv.notify_all();
  }
  if (!sid.empty() && !expired) {
    beast::error_code ec;
    std::string refusal;
    auto ex = impl_->send("DELETE", "application/json, text/event-stream", {}, {}, ec, refusal);
    if (!ec) {
      std::string ignored;
      while (!ex->read_some(ignored, std::chrono::milliseconds(2000))) {
      }
    }
    impl_->done(*ex);
  }
  std::vector<std::unique_ptr<exchange>> idle;
  {
    std::lock_guard lock(impl_->mu);
    impl_->closed = true;
    for (const int fd : impl_->live_fds) ::shutdown(fd, SHUT_RDWR);
    impl_->cancel_cv.notify_all();
    idle.swap(impl_->idle);
  }
  // Requests not started are never sent (the session fails them); a close() from a receiver
  // on a worker lets that worker end by itself.
  impl_->workers.close();
}

int http_client_connection::open_event_stream() { return impl_->open_event_stream(impl_); }

void http_client_connection::open_event_stream_in_background() {
  impl_->workers.run(impl_, [m = impl_.get(), keep = std::weak_ptr<impl>(impl_)] {
    if (auto self = keep.lock()) m->open_event_stream(self);
  });
}

connection_facts http_client_connection::facts() const {
  return {"tcp", "http", "1.1", session_id(), impl_->host, impl_->port};  // in declaration order
}

std::string http_client_connection::session_id() const {
  std::lock_guard lock(impl_->mu);
  return impl_->session_id;
}

void http_client_connection::set_protocol_version(std::string_view version) {
  std::lock_guard lock(impl_->mu);
  impl_->version = std::string(version);
}

std::string http_client_connection::protocol_version() const {
  std::lock_guard lock(impl_->mu);
  return impl_->version;
}

bool http_client_connection::session_expired() const {
  std::lock_guard lock(impl_->mu);
  return impl_->expired;
}

std::size_t http_client_connection::resumptions() const {
  std::lock_guard lock(impl_->mu);
  return impl_->resumptions;
}

std::size_t http_client_connection::connections_opened() const {
  std::lock_guard lock(impl_->mu);
  return impl_->connections_opened;
}

}  // namespace mcp
