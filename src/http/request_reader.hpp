// File: src/http/request_reader.hpp
//
// Reads one HTTP/1.1 request from bytes, sans-I/O: Beast's parser with the server's limits, and
// the limits Beast's parser does not apply itself. The listener feeds it what the socket
// delivered; the fuzz target feeds it anything. It never throws: whatever Beast's parser or its
// field container throws (a trailer field of 64 KiB or more throws `std::length_error`) ends in
// a failed state with the HTTP status to answer.
//
// Limits: the header and each chunk-size line and the trailer of a chunked body must fit in
// `max_header_bytes` (else 431), the body in `max_body_bytes` (else 413). Bytes the parser has
// not consumed never exceed `max_header_bytes`, so a request costs at most that much buffer
// beyond its body.
//
// Example:
//
//   request_reader r({.max_header_bytes = 16384, .max_body_bytes = 4 << 20});
//   std::size_t used = r.feed(bytes);   // consume `used` bytes of the input
//   if (r.state() == request_reader::status::complete) handle(r.message());
#pragma once

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

namespace mcp::http_detail {

struct request_limits {
  std::size_t max_header_bytes = 16384;
  std::size_t max_body_bytes = std::size_t{4} << 20U;
};

/// One request being read. Not thread-safe (one connection's loop owns it).
class request_reader {
 public:
  enum class status {
    need_more,  ///< feed more bytes
    complete,   ///< `message()` holds the request
    failed,     ///< answer `failure_status()` and close the connection
  };

  explicit request_reader(const request_limits& limits);

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
  [[nodiscard]] bool header_done() const noexcept;
  /// The request; valid when `state() == complete` (its header also once `header_done()`).
  [[nodiscard]] boost::beast::http::request<boost::beast::http::string_body>& message();
  /// 400, 413, 431 or 500 when `failed`.
  [[nodiscard]] unsigned failure_status() const noexcept { return failure_status_; }
  /// A short reason for the failure, for logs (not for the peer).
  [[nodiscard]] std::string_view failure_reason() const noexcept { return failure_reason_; }

 private:
  void fail(unsigned http_status, std::string_view reason) noexcept;

  request_limits limits_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  status state_ = status::need_more;
  bool started_ = false;
  unsigned failure_status_ = 0;
  std::string_view failure_reason_;
};

}  // namespace mcp::http_detail
