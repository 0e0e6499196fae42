// The client's SSE parser, fed the input in two pieces split at every byte the input chooses.
#include <cstdint>
#include <string_view>

#include "http/sse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view all(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t cut = all.empty() ? 0 : data[0] % (all.size() + 1);
  mcp::http_detail::sse_parser p;
  std::size_t events = 0;
  auto on_event = [&](const mcp::http_detail::sse_event&) { ++events; };
  p.feed(all.substr(0, cut), on_event);
  p.feed(all.substr(cut), on_event);
  (void)p.last_event_id();
  (void)p.retry();
  return 0;
}
