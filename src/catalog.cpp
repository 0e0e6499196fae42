#include "catalog.hpp"

#include <mcp/content.hpp>

#include <charconv>
#include <random>

namespace mcp::detail {

std::string make_cursor(std::string_view epoch, std::uint64_t seq) {
  return base64_encode("c1:" + std::string(epoch) + ":" + std::to_string(seq));
}

std::optional<std::uint64_t> read_cursor(std::string_view cursor, std::string_view epoch) {
  if (cursor.size() > 200) return std::nullopt;
  const auto plain = base64_decode(cursor);
  if (!plain) return std::nullopt;
  const std::string prefix = "c1:" + std::string(epoch) + ":";
  if (!plain->starts_with(prefix)) return std::nullopt;
  std::uint64_t seq = 0;
  const char* first = plain->data() + prefix.size();
  const char* last = plain->data() + plain->size();
  auto r = std::from_chars(first, last, seq);
  if (r.ec != std::errc{} || r.ptr != last || first == last) return std::nullopt;
  return seq;
}

std::string new_epoch() {
  std::random_device rd;
  return std::to_string(rd()) + std::to_string(rd());
}

}  // namespace mcp::detail
