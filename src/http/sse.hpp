// File: src/http/sse.hpp
//
// Server-Sent Events framing (WHATWG HTML "server-sent events"), both directions, sans-I/O:
// `append_sse_event` writes one event, `sse_parser` turns received bytes back into events
// (ids, `retry`, multi-line `data`, comments, CR/LF/CRLF line ends).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mcp::http_detail {

/// Appends one event to `out`: optional `id:` and `retry:` lines, then `data` split into
/// `data:` lines (a message holding newlines stays one event), then the blank line.
void append_sse_event(std::string& out, std::string_view id, std::string_view data,
                      std::optional<std::chrono::milliseconds> retry = std::nullopt,
                      std::string_view event = {});

/// One received event.
struct sse_event {
  std::string id;     ///< the last id seen so far on the stream (SSE keeps it across events)
  std::string event;  ///< the event type; empty means "message"
  std::string data;   ///< data lines joined by '\n'
};

/// Incremental SSE parser. Not thread-safe (one per stream).
class sse_parser {
 public:
  /// Feeds bytes; calls `on_event` for every complete event that carries data (events whose
  /// data is empty, such as the priming event, update `last_event_id()` but are not reported).
  void feed(std::string_view bytes, const std::function<void(const sse_event&)>& on_event);
  /// The last event id received (what to send as Last-Event-ID).
  [[nodiscard]] const std::string& last_event_id() const noexcept { return last_id_; }
  /// The last `retry` received, if any.
  [[nodiscard]] std::optional<std::chrono::milliseconds> retry() const noexcept { return retry_; }

 private:
  void line(std::string_view l, const std::function<void(const sse_event&)>& on_event);

  std::string partial_;   // an incomplete line
  bool skip_lf_ = false;  // the previous chunk ended in CR
  std::string last_id_;
  std::string event_;
  std::string data_;
  bool has_data_ = false;
  std::optional<std::chrono::milliseconds> retry_;
};

}  // namespace mcp::http_detail
