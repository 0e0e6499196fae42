// Internal: HTTP/1.1 exchanges over HTTP or HTTPS with a deadline covering all of each (host
// name lookup, connect, TLS handshake, request, answer) and a bound on the answer's body.
// `fetch` makes one on a connection of its own (`Connection: close`), for exchanges made now and
// then (the auth fetches: key sets, tokens, metadata); a `fetch_connection` keeps its connection
// open from one exchange to the next, for a caller that posts often to one place (the OTLP
// exporter).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp::http_detail {

/// An http or https URL taken apart.
struct fetch_target {
  bool tls = false;
  std::string host;  ///< without brackets
  std::uint16_t port = 0;
  std::string path;  ///< path and query
};

/// A URL's port text as a number from 1 to 65535; 0 when it is empty, not a number or out of
/// range (Boost.URL 1.81's `port_number()` wraps 99999 to 34463).
[[nodiscard]] std::uint16_t url_port(std::string_view port_text) noexcept;

/// Parses an absolute http(s) URL. Throws `std::runtime_error` with the reason.
[[nodiscard]] fetch_target parse_fetch_target(std::string_view url);

struct fetch_request {
  std::string method = "GET";
  std::string ca_file{};  ///< https: trust these PEM certificates instead of the system's
  std::vector<std::pair<std::string, std::string>> headers{};
  std::string body{};
};

/// An HTTP answer, whatever its status.
struct fetch_response {
  unsigned status = 0;
  std::string body{};
  std::string www_authenticate{};  ///< the header's value, when present
  std::string retry_after{};       ///< the header's value, when present
  std::string dpop_nonce{};        ///< `DPoP-Nonce` (RFC 9449 §8), when present
};

/// One exchange with `url` (http or https to any host: the caller decides which are allowed).
/// https checks the certificate and the host name against `ca_file` or the system's trust
/// store. Throws `std::runtime_error` when no complete answer (body at most `max_bytes`)
/// arrives within `timeout`. Thread-safe (nothing shared).
[[nodiscard]] fetch_response fetch(const std::string& url, const fetch_request& req,
                                   std::chrono::milliseconds timeout, std::size_t max_bytes);

/// Exchanges on a connection kept open between them (`Connection: keep-alive`): the next
/// exchange with the same origin (scheme, host, port, `ca_file`) reuses it; another origin, an
/// answer that closes it (`Connection: close`, a body ending at the close), a byte arriving
/// after an answer or any error closes it, and the next exchange connects again. Before reuse,
/// the kept connection is checked without blocking: idle longer than the idle limit (30 s unless
/// `set_idle_limit` says otherwise), or readable (the server closed it while idle, or sent a
/// stray byte), it is closed and a new one opened, nothing sent on it. A request is sent again
/// within the exchange, on a new connection, only when writing it on a reused connection failed
/// as a closed connection fails (reset, broken pipe, end of stream) before it was written
/// whole; once written whole, any failure throws (the server may have acted on it: the caller
/// retries or not). Interim answers (1xx) are passed over, at most 8 (more, or a 101, throws).
/// Not thread-safe: one caller at a time.
class fetch_connection {
 public:
  fetch_connection();
  ~fetch_connection();
  fetch_connection(const fetch_connection&) = delete;
  fetch_connection& operator=(const fetch_connection&) = delete;

  /// As `fetch`, on the kept connection. Throws `std::runtime_error` as `fetch` does (the
  /// connection is then closed).
  [[nodiscard]] fetch_response exchange(const std::string& url, const fetch_request& req,
                                        std::chrono::milliseconds timeout, std::size_t max_bytes);
  /// Closes the connection now (the next exchange connects). Never throws.
  void close() noexcept;
  /// Connections opened so far.
  [[nodiscard]] std::uint64_t connections() const noexcept;
  /// A kept connection idle longer than `limit` is closed before the next exchange (opened
  /// again). Never throws.
  void set_idle_limit(std::chrono::milliseconds limit) noexcept;

  struct state;

 private:
  std::unique_ptr<state> s_;
};

}  // namespace mcp::http_detail
