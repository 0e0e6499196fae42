// How an answer ended, for its span: one the peer sends as text (peer_span.hpp), read from the
// text, and one to a request the peer sent (peer.hpp).
#include <charconv>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "jsonrpc_text.hpp"
#include "peer.hpp"
#include "peer_span.hpp"

namespace mcp::detail {

namespace {

/// Whether `"isError":true` occurs in `message` from `from` on. Looks for its rare capital E with
/// memchr (vectorized) rather than at every quote, which a result is full of.
bool has_is_error_true(std::string_view message, std::size_t from) noexcept {
  constexpr std::string_view needle = R"("isError":true)";
  constexpr std::size_t e_at = 3;  // the E of `"isError"`
  const char* const begin = message.data();
  const char* const end = begin + message.size();
  for (const char* p = begin + from + e_at; p < end;) {
    const auto* e =
        static_cast<const char*>(std::memchr(p, 'E', static_cast<std::size_t>(end - p)));
    if (e == nullptr) return false;
    const auto at = static_cast<std::size_t>(e - begin) - e_at;
    if (message.compare(at, needle.size(), needle) == 0) return true;
    p = e + 1;
  }
  return false;
}

}  // namespace

observe::outcome answer_outcome(std::string_view message) {
  constexpr std::string_view error_key = R"("error":{"code":)";
  const auto head = jsonrpc::read_answer_head(message);
  if (head.what == jsonrpc::answer_head::kind::error) {
    return {.status = observe::status::rpc_error, .code = head.code};
  }
  std::size_t r = head.member;
  if (head.what == jsonrpc::answer_head::kind::other) {  // any other shape: searched
    r = message.find(R"("result":)");
    // The error member comes before any result, so only the text before one is searched.
    const auto e = message.substr(0, r).find(error_key);
    if (e != std::string_view::npos) {
      observe::outcome o{.status = observe::status::rpc_error};
      const auto* first = message.data() + e + error_key.size();
      (void)std::from_chars(first, message.data() + message.size(), o.code);
      return o;
    }
  }
  if (r != std::string_view::npos && has_is_error_true(message, r)) {
    return {.status = observe::status::tool_error};
  }
  return {};
}

void peer::observe_outbound_end(outbound& o, const result<json::object>& r) {
  observe::outcome out;
  error e;  // `out.message` views it (result::error() answers a copy)
  if (r.has_error()) {
    e = r.error();
    if (e.is(errc::request_timeout)) {
      out = {.status = observe::status::failed, .error_type = "timeout"};
    } else if (e.is(errc::cancelled)) {
      out = {.status = observe::status::failed, .error_type = "cancelled"};
    } else if (e.is(errc::connection_closed)) {
      out = {.status = observe::status::failed, .error_type = "connection_closed"};
    } else {
      out = {.status = observe::status::rpc_error, .code = e.code, .message = e.message};
    }
  } else if (o.method == "tools/call") {
    const auto* is_error = r->if_contains("isError");
    if (is_error != nullptr && is_error->is_bool() && is_error->get_bool()) {
      out.status = observe::status::tool_error;
    }
  }
  obs_->on_end(o.span, out);
}

}  // namespace mcp::detail
