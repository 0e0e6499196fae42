// Redis URLs (mcp::parse_redis_url): any text is parsed or refused; what parses is one endpoint,
// TCP or unix, never both.
#include <mcp/redis.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view url(reinterpret_cast<const char*>(data), size);
  const auto ep = mcp::parse_redis_url(url);
  if (ep && ep->host.empty() == ep->unix_path.empty()) std::abort();
  if (ep && ep->unix_path.empty() && ep->port == 0) std::abort();
  return 0;
}
