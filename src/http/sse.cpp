#include "http/sse.hpp"

#include <charconv>

namespace mcp::http_detail {

void append_sse_event(std::string& out, std::string_view id, std::string_view data,
                      std::optional<std::chrono::milliseconds> retry, std::string_view event) {
  if (!event.empty()) {
    out += "event: ";
    out += event;
    out += '\n';
  }
  if (!id.empty()) {
    out += "id: ";
    out += id;
    out += '\n';
  }
  if (retry) {
    out += "retry: ";
    out += std::to_string(retry->count());
    out += '\n';
  }
  // Split on any line terminator so that the event cannot be cut short by the data.
  std::size_t start = 0;
  for (;;) {
    const auto end = data.find_first_of("\r\n", start);
    out += "data: ";
    out += data.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    out += '\n';
    if (end == std::string_view::npos) break;
    start = end + 1;
    if (data[end] == '\r' && start < data.size() && data[start] == '\n') ++start;
  }
  out += '\n';
}

void sse_parser::feed(std::string_view bytes,
                      const std::function<void(const sse_event&)>& on_event) {
  while (!bytes.empty()) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (bytes.front() == '\n') {
        bytes.remove_prefix(1);
        continue;
      }
    }
    const auto eol = bytes.find_first_of("\r\n");
    if (eol == std::string_view::npos) {
      partial_.append(bytes);
      return;
    }
    if (bytes[eol] == '\r') skip_lf_ = true;
    if (partial_.empty()) {
      line(bytes.substr(0, eol), on_event);
    } else {
      partial_.append(bytes.substr(0, eol));
      const std::string l = std::move(partial_);
      partial_.clear();
      line(l, on_event);
    }
    bytes.remove_prefix(eol + 1);
  }
}

void sse_parser::line(std::string_view l, const std::function<void(const sse_event&)>& on_event) {
  if (l.empty()) {  // dispatch
    if (has_data_ && !data_.empty()) {
      on_event(sse_event{last_id_, event_, data_});
    }
    data_.clear();
    event_.clear();
    has_data_ = false;
    return;
  }
  if (l.front() == ':') return;  // comment
  const auto colon = l.find(':');
  std::string_view field = l.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = l.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_ = std::string(value);
  } else if (field == "event") {
    event_ = std::string(value);
  } else if (field == "retry") {
    long long ms = 0;
    const auto* first = value.data();
    const auto* last = value.data() + value.size();
    auto [p, ec] = std::from_chars(first, last, ms);
    if (ec == std::errc{} && p == last && ms >= 0) retry_ = std::chrono::milliseconds(ms);
  }
}

}  // namespace mcp::http_detail
