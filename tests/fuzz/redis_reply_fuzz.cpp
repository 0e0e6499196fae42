// Redis replies as the client reads them (src/redis/reply_parser: hiredis's RESP reader building
// our reply values under the size limits), fed in pieces of a size the first byte chooses, as a
// socket would deliver them; every reply is taken until one is incomplete or refused.
#include <cstdint>
#include <string_view>

#include "redis/reply_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = 1 + data[0] % 64;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  mcp::redis_detail::reply_parser parser({.max_bytes = 4096, .max_elements = 256});
  while (!rest.empty()) {
    const std::string_view chunk = rest.substr(0, piece);
    rest.remove_prefix(chunk.size());
    if (!parser.feed(chunk)) return 0;
    for (;;) {
      auto r = parser.next();
      if (!r) return 0;  // refused: the connection would be closed
      if (!*r) break;    // needs more bytes
      (void)(*r)->elements.size();
    }
  }
  (void)parser.idle();
  return 0;
}
