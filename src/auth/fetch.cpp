// The auth fetches (JWKS documents, tokens, metadata, introspection): one exchange through
// `http_detail::fetch` (deadline over the whole exchange, host name lookup included; a size
// bound), allowed over HTTPS, or plain HTTP to a loopback host only.
#include <stdexcept>

#include "auth/jose.hpp"

namespace mcp::auth::detail {
namespace {

bool loopback_host(std::string_view host) {
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]" || host == "::1";
}

}  // namespace

bool loopback_url(std::string_view url) {
  try {
    return loopback_host(http_detail::parse_fetch_target(url).host);
  } catch (const std::exception&) {
    return false;
  }
}

std::optional<std::string> unusable_url(std::string_view url) {
  try {
    const auto t = http_detail::parse_fetch_target(url);
    if (!t.tls && !loopback_host(t.host)) {
      return "the URL must be https (http only for a loopback host): " + std::string(url);
    }
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

std::string fetch_url(const std::string& url, std::chrono::milliseconds timeout,
                      std::size_t max_bytes, const std::string& ca_file) {
  return http_exchange(
      url,
      {.ca_file = ca_file, .headers = {{"Accept", "application/json, application/jwk-set+json"}}},
      timeout, max_bytes);
}

std::string http_exchange(const std::string& url, const http_call& call,
                          std::chrono::milliseconds timeout, std::size_t max_bytes) {
  auto res = http_request(url, call, timeout, max_bytes);
  if (res.status != 200) throw std::runtime_error("HTTP status " + std::to_string(res.status));
  return std::move(res.body);
}

http_response http_request(const std::string& url, const http_call& call,
                           std::chrono::milliseconds timeout, std::size_t max_bytes) {
  if (auto why = unusable_url(url)) throw std::runtime_error(*why);
  return http_detail::fetch(url, call, timeout, max_bytes);
}

}  // namespace mcp::auth::detail
