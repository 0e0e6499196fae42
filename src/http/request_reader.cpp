#include "http/request_reader.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>

#include <new>
#include <stdexcept>

namespace mcp::http_detail {

namespace bhttp = boost::beast::http;

request_reader::request_reader(const request_limits& limits) : limits_(limits) {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(
      std::min<std::size_t>(limits.max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
  parser_->body_limit(limits.max_body_bytes);
  parser_->eager(true);
}

bool request_reader::header_done() const noexcept { return parser_->is_header_done(); }

bhttp::request<bhttp::string_body>& request_reader::message() { return parser_->get(); }

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
  } catch (const std::length_error&) {
    // Beast's field container refuses a name or value of 64 KiB or more (a trailer field:
    // the header limit keeps them out of the header).
    fail(431, "header field too large");
    return used;
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
    fail(431, parser_->is_header_done() ? "chunk header or trailer too large" : "header too large");
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
