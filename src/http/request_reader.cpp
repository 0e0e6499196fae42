#include "http/request_reader.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <limits>
#include <new>

#include "detail/clear_keeping.hpp"

namespace mcp::http_detail {

namespace bhttp = boost::beast::http;

namespace {
// What a reader keeps for the next request; `trim` gives back the rest. Sanitizer builds keep
// nothing, so that a view used after its request reads freed memory.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool keep_any = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool keep_any = false;
#else
constexpr bool keep_any = true;
#endif
#else
constexpr bool keep_any = true;
#endif
constexpr std::size_t kept_head_bytes = keep_any ? 1024 : 0;
constexpr std::size_t kept_fields = keep_any ? 32 : 0;
constexpr std::size_t kept_body_bytes = keep_any ? 4096 : 0;
}  // namespace

// ---- request_parser: Beast's callbacks ----

void request_parser::on_request_impl(verb, view method_str, view target, int, error_code&) {
  to_.on_request_line(method_str, target);
}

void request_parser::on_response_impl(int, view, int, error_code& ec) {
  ec = bhttp::error::bad_version;  // a request parser never sees a status line
}

void request_parser::on_field_impl(field name, view name_string, view value, error_code&) {
  if (to_.header_done_) return;  // a chunked body's trailer: parsed, not kept
  to_.on_field(name_string, value,
               name == field::expect && boost::beast::iequals(value, "100-continue"));
}

void request_parser::on_header_impl(error_code&) { to_.on_header(); }

void request_parser::on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                                       error_code&) {
  // Beast has checked the length against the body limit already.
  if (content_length) to_.body_.reserve(static_cast<std::size_t>(*content_length));
}

std::size_t request_parser::on_body_impl(view body, error_code&) {
  to_.body_.append(body.data(), body.size());
  return body.size();
}

void request_parser::on_chunk_header_impl(std::uint64_t, view, error_code&) {}

std::size_t request_parser::on_chunk_body_impl(std::uint64_t, view body, error_code&) {
  to_.body_.append(body.data(), body.size());
  return body.size();
}

void request_parser::on_finish_impl(error_code&) {}

// ---- request_reader ----

request_reader::request_reader(const request_limits& limits) : limits_(limits) { start_parser(); }

void request_reader::start_parser() {
  parser_.emplace(*this);
  parser_->header_limit(static_cast<std::uint32_t>(
      std::min<std::size_t>(limits_.max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
  parser_->body_limit(limits_.max_body_bytes);
  parser_->eager(true);
}

void request_reader::trim(bool all) noexcept {
  using detail::clear_keeping;
  method_ = {};
  target_ = {};
  clear_keeping(text_, all ? 0 : kept_head_bytes);
  clear_keeping(pieces_, all ? 0 : 2 * kept_fields + 2);
  clear_keeping(headers_, all ? 0 : kept_fields);
  clear_keeping(body_, all ? 0 : kept_body_bytes);
}

void request_reader::reset() {
  trim();
  state_ = status::need_more;
  started_ = false;
  header_done_ = false;
  expects_continue_ = false;
  failure_status_ = 0;
  failure_reason_ = {};
  start_parser();
}

bool request_reader::keep_alive() const noexcept { return header_done_ && parser_->keep_alive(); }

void request_reader::add_piece(std::string_view s) {
  // Beast parses at most `header_limit` bytes of head (a 32-bit count), so offsets fit.
  pieces_.push_back(
      {static_cast<std::uint32_t>(text_.size()), static_cast<std::uint32_t>(s.size())});
  text_ += s;
}

void request_reader::on_request_line(std::string_view method, std::string_view target) {
  add_piece(method);
  add_piece(target);
}

void request_reader::on_field(std::string_view name, std::string_view value, bool expect_continue) {
  add_piece(name);
  add_piece(value);
  expects_continue_ = expects_continue_ || expect_continue;
}

void request_reader::on_header() {
  // `text_` is complete: its views stay valid until `trim` or `reset`.
  const auto view_of = [&](const piece& p) { return std::string_view(text_).substr(p.at, p.size); };
  headers_.reserve((pieces_.size() - 2) / 2);
  for (std::size_t i = 2; i + 1 < pieces_.size(); i += 2) {
    headers_.emplace_back(view_of(pieces_[i]), view_of(pieces_[i + 1]));
  }
  method_ = view_of(pieces_[0]);
  target_ = view_of(pieces_[1]);
  header_done_ = true;
}

void request_reader::fail(unsigned http_status, std::string_view reason) noexcept {
  state_ = status::failed;
  failure_status_ = http_status;
  failure_reason_ = reason;
}

std::size_t request_reader::feed(std::string_view bytes) noexcept {
  if (state_ != status::need_more || bytes.empty()) return 0;
  started_ = true;
  std::size_t used = 0;
  try {
    while (used < bytes.size()) {
      boost::beast::error_code ec;
      const std::size_t n =
          parser_->put(boost::asio::const_buffer(bytes.data() + used, bytes.size() - used), ec);
      used += n;
      if (ec == bhttp::error::need_more) break;
      if (ec == bhttp::error::header_limit) {
        fail(431, "header too large");
        return used;
      }
      if (ec == bhttp::error::body_limit) {
        fail(413, "body too large");
        return used;
      }
      if (ec) {
        fail(400, "malformed request");
        return used;
      }
      if (parser_->is_done()) {
        state_ = status::complete;
        return used;
      }
      if (n == 0) break;
    }
  } catch (const std::bad_alloc&) {
    fail(500, "out of memory");
    return used;
  } catch (...) {
    fail(400, "malformed request");
    return used;
  }
  // What is left unparsed waits for more: a header, a chunk-size line or a trailer that Beast
  // parses only once it is whole. Bound it.
  if (bytes.size() - used > limits_.max_header_bytes) {
    fail(431, header_done_ ? "chunk header or trailer too large" : "header too large");
  }
  return used;
}

void request_reader::end_of_input() noexcept {
  if (state_ != status::need_more || !started_) return;
  try {
    boost::beast::error_code ec;
    parser_->put_eof(ec);
    if (!ec && parser_->is_done()) {
      state_ = status::complete;
      return;
    }
  } catch (...) {
  }
  fail(400, "truncated request");
}

}  // namespace mcp::http_detail
