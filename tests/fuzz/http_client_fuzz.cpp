// The HTTP client's read path for what a server answers, sans network: the input is the byte
// stream a server sends on one kept-alive connection (a socket pair, written by a thread and
// then closed), read by the client transport's `exchange` as a request's answer is read: the
// head (status, the headers the client looks at), the body in pieces through Beast's parser
// (lengths, chunks, trailers, a body that runs to the close), an event-stream body through the
// SSE parser, and the Keep-Alive header when the connection may be kept. A second request is
// sent on the same connection when it is reusable, so pipelined answers are reached.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "http/client_exchange.hpp"
#include "http/sse.hpp"
#include <sys/socket.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using namespace mcp::http_detail;

constexpr std::string_view request =
    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    "Content-Length: 2\r\n\r\n{}";

void read_answers(exchange& ex) {
  for (int round = 0; round < 2; ++round) {
    if (ex.write(std::string(request), 2000ms) || ex.read_header(2000ms)) return;
    (void)ex.status();
    (void)ex.header_all("WWW-Authenticate");
    (void)ex.header("Mcp-Session-Id");
    const bool sse = ex.header("Content-Type").find("text/event-stream") != std::string::npos;
    sse_parser events;
    std::size_t seen = 0;
    std::string chunk;
    while (!ex.read_some(chunk, 2000ms)) {
      if (sse) events.feed(chunk, [&](const sse_event&) { ++seen; });
      chunk.clear();
    }
    (void)events.last_event_id();
    if (!ex.reusable()) return;
    ex.park(1000ms);
    (void)ex.idle_too_long();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 0;
  const std::string_view answer(reinterpret_cast<const char*>(data), size);
  std::thread server([&] {
    std::string_view left = answer;
    while (!left.empty()) {
      const auto n = ::send(sv[1], left.data(), left.size(), MSG_NOSIGNAL);
      if (n <= 0) break;  // the client closed its end
      left.remove_prefix(static_cast<std::size_t>(n));
    }
    ::shutdown(sv[1], SHUT_WR);
  });
  {
    exchange ex(nullptr);
    ex.adopt(sv[0]);  // closed with the exchange, which ends a send the server still blocks in
    read_answers(ex);
  }
  server.join();
  ::close(sv[1]);
  return 0;
}
