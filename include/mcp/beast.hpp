// File: mcp/beast.hpp
//
// Writes an `http_endpoint` response (mcp/http_endpoint.hpp) on an Asio stream: a TCP socket, a
// `beast::tcp_stream`, an SSL stream, anything with `async_write_some`. A complete response is
// written with Content-Length; a body stream becomes a JSON response when its answer comes
// first, or a chunked `text/event-stream` response written event by event for as long as the
// stream lasts (a GET stream: until the client goes away). Completes with the write's error
// and whether the connection may be kept alive for the next request.
//
// The stream's executor must not run the operation's handlers concurrently (an io_context run
// by one thread, or a strand). A client that goes away during a long-lived stream is noticed
// when the next event fails to be written.
//
// Example (inside an application's Beast request loop):
//
//   if (req.target().starts_with("/mcp")) {
//     auto res = endpoint.handle(view_of(req), req.body());
//     mcp::async_write_response(stream, std::move(res), req.keep_alive(),
//                               [self](boost::beast::error_code ec, bool keep_alive) {
//                                 if (!ec && keep_alive) self->read_next();
//                               });
//   }
#pragma once

#include <mcp/http_endpoint.hpp>

#include <boost/asio/compose.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/status.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

namespace mcp {

namespace detail {

/// HTTP/1.1 bytes of a response head: status line and `headers`, without the blank line.
inline std::string response_head(unsigned status,
                                 const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " ";
  out += boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
  out += "\r\n";
  for (const auto& [k, v] : headers) {
    out += k;
    out += ": ";
    for (const char c : v) out += (c == '\r' || c == '\n') ? ' ' : c;  // never ends the head early
    out += "\r\n";
  }
  return out;
}

/// A complete response with Content-Length.
inline std::string plain_response(unsigned status,
                                  const std::vector<std::pair<std::string, std::string>>& headers,
                                  std::string_view content_type, std::string_view body,
                                  bool keep_alive) {
  std::string out = response_head(status, headers);
  if (!content_type.empty()) {
    out += "Content-Type: ";
    out += content_type;
    out += "\r\n";
  }
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
  out += body;
  return out;
}

inline void append_chunk(std::string& out, std::string_view data) {
  if (data.empty()) return;
  char hex[20];
  const int n = std::snprintf(hex, sizeof hex, "%zx\r\n", data.size());
  out.append(hex, static_cast<std::size_t>(n));
  out += data;
  out += "\r\n";
}

/// What a response write keeps between its steps.
struct response_write_state {
  http_endpoint_response res;
  bool keep_alive = true;
  std::string out;
  std::unique_ptr<boost::asio::steady_timer> waiter;  ///< cancelled when the stream has more
  bool sse = false;
};

template <class AsyncStream>
class response_write_op {
 public:
  response_write_op(AsyncStream& stream, std::shared_ptr<response_write_state> st)
      : stream_(stream), st_(std::move(st)) {}

  template <class Self>
  void operator()(Self& self, boost::system::error_code ec = {}, std::size_t /*n*/ = 0) {
    auto& st = *st_;
    switch (step_) {
      case step::start:
        if (!st.res.stream) {
          st.out = plain_response(st.res.status, st.res.headers, st.res.content_type, st.res.body,
                                  st.keep_alive);
          return write(self, step::last);
        }
        st.waiter = std::make_unique<boost::asio::steady_timer>(stream_.get_executor());
        st.res.stream->start(
            [weak = std::weak_ptr<response_write_state>(st_), ex = stream_.get_executor()] {
              boost::asio::post(ex, [weak] {
                if (auto s = weak.lock(); s && s->waiter) s->waiter->cancel();
              });
            });
        return pump(self);
      case step::wait:  // woken (or the timer was cancelled some other way): look again
        return pump(self);
      case step::more:
        if (ec) {
          st.res.stream->stop();
          return self.complete(ec, false);
        }
        return pump(self);
      case step::last:
        if (st.res.stream) st.res.stream->stop();
        return self.complete(ec, !ec && st.keep_alive);
    }
  }

 private:
  enum class step { start, wait, more, last };

  template <class Self>
  void write(Self& self, step next) {
    step_ = next;
    boost::asio::async_write(stream_, boost::asio::buffer(st_->out), std::move(self));
  }

  template <class Self>
  void pump(Self& self) {
    auto& st = *st_;
    auto c = st.res.stream->take();
    using kind = http_body_stream::kind;
    if (c.what == kind::json) {
      st.out = plain_response(c.status, st.res.headers, "application/json", c.bytes, st.keep_alive);
      return write(self, step::last);
    }
    st.out.clear();
    if (c.what == kind::sse) {
      if (!st.sse) {
        st.sse = true;
        st.out = response_head(200, st.res.headers);
        st.out +=
            "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            "X-Accel-Buffering: no\r\nTransfer-Encoding: chunked\r\n\r\n";
      }
      append_chunk(st.out, c.bytes);
    }
    if (c.finished || c.disconnect) {
      if (!st.sse) {  // ended without an answer or an event: an empty event stream
        st.out = response_head(200, st.res.headers) +
                 "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
      }
      st.out += "0\r\n\r\n";
      st.keep_alive = st.keep_alive && c.finished && !c.disconnect;
      return write(self, step::last);
    }
    if (!st.out.empty()) return write(self, step::more);
    step_ = step::wait;
    st.waiter->expires_at(boost::asio::steady_timer::time_point::max());
    st.waiter->async_wait(std::move(self));
  }

  AsyncStream& stream_;
  std::shared_ptr<response_write_state> st_;
  step step_ = step::start;
};

}  // namespace detail

/// Writes `response` on `stream` (see the banner); completes with
/// `void(boost::system::error_code, bool keep_alive)`. `stream` must outlive the operation.
template <class AsyncStream, class Token>
auto async_write_response(AsyncStream& stream, http_endpoint_response response, bool keep_alive,
                          Token&& token) {
  auto st = std::make_shared<detail::response_write_state>();
  st->res = std::move(response);
  st->keep_alive = keep_alive;
  return boost::asio::async_compose<Token, void(boost::system::error_code, bool)>(
      detail::response_write_op<AsyncStream>(stream, std::move(st)), token, stream);
}

}  // namespace mcp
