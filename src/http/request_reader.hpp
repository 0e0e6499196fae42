// File: src/http/request_reader.hpp
//
// Reads one HTTP/1.1 request from bytes, sans-I/O: Beast's parser with the server's limits, and
// the limits Beast's parser does not apply itself. The listener feeds it what the socket
// delivered; the fuzz target feeds it anything. It never throws: an allocation failure ends in a
// failed state with the HTTP status to answer.
//
// Beast checks the syntax (request line, fields, Content-Length, chunked framing); the reader
// keeps what it is given in storage of its own that is reused from one request to the next: the
// request line and the header fields in one string (with their offsets, and their views once
// the header is complete), the body in another. A kept-alive connection whose requests are
// alike reads them without allocating for the head or the body. A chunked body's trailer fields
// are parsed and not kept: they are not part of the header (Beast still reads a `Connection`
// field among them for `keep_alive`).
//
// Limits: the header and each chunk-size line and the trailer of a chunked body must fit in
// `max_header_bytes` (else 431), the body in `max_body_bytes` (else 413). Bytes the parser has
// not consumed never exceed `max_header_bytes`. Besides the caller's input buffer, a request
// costs its body, its head's text, and 48 bytes per field (offsets and views); `trim` gives
// that back once the request is handled, keeping at most 1 KiB of head text, 32 fields and
// 4 KiB of body for the next request (nothing in sanitizer builds, so that a view kept too long
// reads freed memory, not the next request's bytes).
//
// Example:
//
//   request_reader r({.max_header_bytes = 16384, .max_body_bytes = 4 << 20});
//   std::size_t used = r.feed(bytes);   // consume `used` bytes of the input
//   if (r.state() == request_reader::status::complete) handle(r.method(), r.headers(), r.body());
//   r.reset();                          // the next request on the connection
#pragma once

#include <mcp/http_server.hpp>

#include <boost/beast/http/basic_parser.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mcp::http_detail {

struct request_limits {
  std::size_t max_header_bytes = 16384;
  std::size_t max_body_bytes = std::size_t{4} << 20U;
};

class request_reader;

/// Beast's request parser, handing what it parses to a `request_reader`.
class request_parser final : public boost::beast::http::basic_parser<true> {
 public:
  explicit request_parser(request_reader& to) : to_(to) {}

 private:
  using field = boost::beast::http::field;
  using verb = boost::beast::http::verb;
  using error_code = boost::beast::error_code;
  using view = boost::beast::string_view;
  void on_request_impl(verb method, view method_str, view target, int version,
                       error_code& ec) override;
  void on_response_impl(int code, view reason, int version, error_code& ec) override;
  void on_field_impl(field name, view name_string, view value, error_code& ec) override;
  void on_header_impl(error_code& ec) override;
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                         error_code& ec) override;
  std::size_t on_body_impl(view body, error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t size, view extensions, error_code& ec) override;
  std::size_t on_chunk_body_impl(std::uint64_t remain, view body, error_code& ec) override;
  void on_finish_impl(error_code& ec) override;

  request_reader& to_;
};

/// One request being read; `reset` starts the next. Not thread-safe (one connection's loop owns
/// it).
class request_reader {
 public:
  enum class status {
    need_more,  ///< feed more bytes
    complete,   ///< the request is here
    failed,     ///< answer `failure_status()` and close the connection
  };

  explicit request_reader(const request_limits& limits);
  request_reader(const request_reader&) = delete;
  request_reader& operator=(const request_reader&) = delete;

  /// Starts reading the next request, keeping what storage `trim` left. Views from the last
  /// request become invalid.
  void reset();
  /// Gives back the request's storage beyond what is kept for the next one (everything when
  /// `all`), leaving `state()` as it is. Views of the request become invalid: call it once the
  /// request is handled.
  void trim(bool all = false) noexcept;

  /// Parses as much of `bytes` as it can and returns how many it consumed; the caller keeps
  /// the rest and feeds it again with more appended. After `complete` or `failed` it consumes
  /// nothing. Never throws (an allocation failure ends as `failed` with 500).
  std::size_t feed(std::string_view bytes) noexcept;
  /// Tells the reader the peer closed its side: an unfinished request fails (400), or stays
  /// unread when no byte of it arrived (`started()` false).
  void end_of_input() noexcept;

  [[nodiscard]] status state() const noexcept { return state_; }
  /// True once any byte of the request arrived.
  [[nodiscard]] bool started() const noexcept { return started_; }
  /// True once the header is complete (the body may still be coming).
  [[nodiscard]] bool header_done() const noexcept { return header_done_; }

  /// The request line and header fields (name as received, value), once `header_done()`; they
  /// stay valid until `reset`.
  [[nodiscard]] std::string_view method() const noexcept { return method_; }
  /// The request-target, as received.
  [[nodiscard]] std::string_view target() const noexcept { return target_; }
  [[nodiscard]] std::span<const http_header> headers() const noexcept { return headers_; }
  /// A field of the header says `Expect: 100-continue`.
  [[nodiscard]] bool expects_continue() const noexcept { return expects_continue_; }
  /// The connection may stay open after this request: HTTP/1.1 without a `close` token, or
  /// HTTP/1.0 with a `keep-alive` token, in any `Connection` (or `Proxy-Connection`) field,
  /// trailer fields included. False before `header_done()`.
  [[nodiscard]] bool keep_alive() const noexcept;
  /// The body, once `complete`; the caller may move it out.
  [[nodiscard]] std::string_view body() const noexcept { return body_; }

  /// 400, 413, 431 or 500 when `failed`.
  [[nodiscard]] unsigned failure_status() const noexcept { return failure_status_; }
  /// A short reason for the failure, for logs (not for the peer).
  [[nodiscard]] std::string_view failure_reason() const noexcept { return failure_reason_; }

 private:
  friend class request_parser;

  void fail(unsigned http_status, std::string_view reason) noexcept;
  /// Called by the parser: the head's pieces are appended to `text_`, their offsets kept.
  void on_request_line(std::string_view method, std::string_view target);
  void on_field(std::string_view name, std::string_view value, bool expect_continue);
  void on_header();
  void add_piece(std::string_view s);
  void start_parser();

  request_limits limits_;
  std::optional<request_parser> parser_;
  status state_ = status::need_more;
  bool started_ = false;
  bool header_done_ = false;
  bool expects_continue_ = false;
  unsigned failure_status_ = 0;
  std::string_view failure_reason_;

  std::string text_;  ///< method, target, then each field's name and value
  struct piece {      // the header is at most `max_header_bytes` (bounded to 32 bits)
    std::uint32_t at;
    std::uint32_t size;
  };
  std::vector<piece> pieces_;         ///< in `text_`: method, target, name, value, name, value, ...
  std::vector<http_header> headers_;  ///< views of the fields, once the header is complete
  std::string_view method_;
  std::string_view target_;
  std::string body_;
};

}  // namespace mcp::http_detail
