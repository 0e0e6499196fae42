// A server session fed arbitrary bytes through the real stdio framing (read_lines over a pipe):
// single messages, batches, notifications, responses, garbage. Every line gets handled; the
// handlers run when the target drains the executor; the session is closed at the end.
#include <mcp/transport/stdio.hpp>

#include <cstdint>
#include <cstdlib>

#include "fuzz_support.hpp"
#include <unistd.h>

namespace {

struct fixture {
  std::shared_ptr<mcp_fuzz::queue_executor> exec = std::make_shared<mcp_fuzz::queue_executor>();
  std::unique_ptr<mcp::server> server = mcp_fuzz::make_server(exec);
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fixture f;
  if (size > 65536) return 0;  // one pipe buffer
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  std::size_t written = 0;
  while (written < size) {
    const auto n = ::write(fds[1], data + written, size - written);
    if (n <= 0) std::abort();
    written += static_cast<std::size_t>(n);
  }
  ::close(fds[1]);
  auto conn = std::make_shared<mcp_fuzz::sink_connection>();
  auto session = f.server->open_session(conn);
  // Lines longer than 4 KiB are skipped whole, so the oversized-line path is reached too.
  mcp::read_lines(
      fds[0], {.max_line_bytes = 4096},
      [&](std::string_view line) {
        session->receive(line);
        f.exec->drain();
      },
      [&](std::size_t) {});
  ::close(fds[0]);
  f.exec->drain();
  session->close();
  f.exec->drain();
  return 0;
}
