// The public face of the sans-I/O request handler (handler.hpp) for applications that run their
// own HTTP server: a request in, a response or a body stream out.
#include <mcp/http_endpoint.hpp>

#include <boost/asio/ip/address.hpp>

#include <atomic>
#include <chrono>

#include "detail/fallback_executor.hpp"
#include "http/handler.hpp"

namespace mcp {

namespace {

/// A response_stream behind the public interface.
class body_stream final : public http_body_stream {
 public:
  body_stream(std::shared_ptr<http_detail::response_stream> rs, http_detail::request_handler& h)
      : rs_(std::move(rs)), handler_(h) {}
  ~body_stream() override { stop(); }

  void start(unique_function<void()> wake) override {
    if (!rs_ || started_) return;
    started_ = true;
    auto w = std::make_shared<unique_function<void()>>(std::move(wake));
    generation_ = rs_->attach([w] { (*w)(); });
  }

  chunk take() override {
    chunk c;
    if (!rs_) {
      c.finished = true;
      return c;
    }
    auto t = rs_->take(generation_);
    using mode = http_detail::response_stream::mode;
    c.what = t.kind == mode::json ? kind::json : t.kind == mode::sse ? kind::sse : kind::pending;
    c.status = t.status;
    c.bytes = std::move(t.bytes);
    c.finished = t.finished || t.superseded;
    c.disconnect = t.disconnect || t.superseded;
    if (c.what == kind::sse && !counted_) {
      counted_ = true;
      handler_.sse_opened();
    }
    if (c.finished || c.disconnect || c.what == kind::json) stop();
    return c;
  }

  void stop() override {
    if (counted_) {
      counted_ = false;
      handler_.sse_closed();
    }
    if (rs_) {
      if (started_) rs_->detach(generation_);
      rs_.reset();
    }
  }

 private:
  std::shared_ptr<http_detail::response_stream> rs_;
  http_detail::request_handler& handler_;
  std::uint64_t generation_ = 0;
  bool started_ = false;
  bool counted_ = false;
};

bool loopback(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  const auto a = boost::asio::ip::make_address(host, ec);
  return !ec && a.is_loopback();
}

}  // namespace

struct http_endpoint::impl {
  impl(server& srv, http_server_options o)
      : handler(http_detail::session_source{.srv = &srv, .limits = srv.options().limits},
                std::move(o), [](std::function<void()> f) {
                  detail::fallback_executor().post([f = std::move(f)] { f(); });
                }) {
    handler.set_bound(loopback(handler.options().host));
  }
  ~impl() { handler.sessions().clear(); }

  /// Idle sessions are expired as requests come (no timer of the endpoint's own), at most a few
  /// times per timeout.
  void sweep() {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    const auto every =
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::clamp(handler.options().session_idle_timeout / 4, std::chrono::milliseconds(20),
                       std::chrono::milliseconds(1000)))
            .count();
    auto last = last_sweep.load(std::memory_order_relaxed);
    if (now - last < every || !last_sweep.compare_exchange_strong(last, now)) return;
    handler.sessions().expire();
  }

  http_detail::request_handler handler;
  std::atomic<std::chrono::steady_clock::rep> last_sweep{0};
};

http_endpoint::http_endpoint(server& srv, http_server_options opts) {
  http_detail::default_events(opts, &srv);
  impl_ = std::make_unique<impl>(srv, std::move(opts));
}

http_endpoint::~http_endpoint() = default;

http_endpoint_response http_endpoint::handle(const http_request_view& request,
                                             std::string_view body) {
  http_endpoint_response out;
  try {
    impl_->sweep();
    if (body.size() > impl_->handler.options().max_body_bytes) {
      out.status = 413;
      out.content_type = "application/json";
      out.body = jsonrpc::encode_error(
          std::nullopt,
          error{errc::invalid_request, "Payload Too Large: the body exceeds the limit"});
      return out;
    }
    http_detail::http_request req;
    static_cast<http_request_view&>(req) = request;
    req.body = body;
    auto r = impl_->handler.handle(req);
    out.status = r.status;
    out.headers = std::move(r.headers);
    if (r.unbuffered) out.headers.emplace_back("X-Accel-Buffering", "no");
    if (r.content_type != nullptr) out.content_type = r.content_type;
    out.body = std::move(r.body);
    if (r.stream) {
      // Answered while the request was handled: a plain JSON response, no stream to read.
      if (auto answer = r.stream->take_json_answer()) {
        out.status = r.stream->json_status();
        out.content_type = "application/json";
        out.body = std::move(*answer);
      } else {
        out.stream = std::make_unique<body_stream>(std::move(r.stream), impl_->handler);
      }
    }
  } catch (const std::exception& e) {
    out = http_endpoint_response{};
    out.status = 500;
    out.content_type = "application/json";
    out.body = jsonrpc::encode_error(
        std::nullopt,
        error{errc::internal_error, std::string("Internal Server Error: ") + e.what()});
  }
  return out;
}

std::size_t http_endpoint::session_count() const { return impl_->handler.sessions().size(); }

}  // namespace mcp
