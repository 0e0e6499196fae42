// The floor under any client: `tools/call echo` one call at a time with no client library at
// all, just the bytes written and the answer read, on the calling thread. Against the same
// server as client_calls, it shows how much of a call is the server and the transport
// (compare.sh prints it beside our client and the TypeScript SDK client).
//
//   bare_calls stdio N -- CMD ARGS...   a server launched as a child process (pipes)
//   bare_calls http N URL               a Streamable HTTP server (one kept-alive connection)
//
// Prints one line: "<transport>: N calls in S s = X calls/s (window 1)". Exits 1 when the
// server does not answer as expected.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

constexpr std::string_view initialize =
    R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{},"clientInfo":{"name":"bare_calls","version":"1"}}})";
constexpr std::string_view initialized =
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})";

std::string call(long id) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}})";
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const auto n = ::write(fd, data.data(), data.size());
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// Reads from `fd` into `buf` until `complete(buf)` gives the length of a whole answer, which
/// is then removed from `buf` and returned; empty at end of stream.
template <class Complete>
std::string read_answer(int fd, std::string& buf, Complete complete) {
  char tmp[65536];
  for (;;) {
    if (const std::size_t n = complete(buf); n != 0) {
      std::string answer = buf.substr(0, n);
      buf.erase(0, n);
      return answer;
    }
    const auto got = ::read(fd, tmp, sizeof tmp);
    if (got <= 0) return {};
    buf.append(tmp, static_cast<std::size_t>(got));
  }
}

std::size_t line_end(const std::string& buf) {
  const auto nl = buf.find('\n');
  return nl == std::string::npos ? 0 : nl + 1;
}

/// The length of a whole HTTP response with Content-Length at the start of `buf`, else 0.
std::size_t response_end(const std::string& buf) {
  const auto head_end = buf.find("\r\n\r\n");
  if (head_end == std::string::npos) return 0;
  std::size_t length = 0;
  for (std::string_view name : {"Content-Length: ", "content-length: "}) {
    if (const auto at = buf.find(name); at != std::string::npos && at < head_end) {
      length = std::strtoul(buf.c_str() + at + name.size(), nullptr, 10);
    }
  }
  return buf.size() >= head_end + 4 + length ? head_end + 4 + length : 0;
}

void report(const char* transport, long n, std::chrono::steady_clock::time_point t0) {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: %ld calls in %.2f s = %.0f calls/s (window 1)\n", transport, n, s,
              static_cast<double>(n) / s);
}

int run_stdio(long n, char** argv) {
  int to_child[2];
  int from_child[2];
  if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) return 1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&fa, from_child[1], 1);
  posix_spawn_file_actions_addclose(&fa, to_child[1]);
  posix_spawn_file_actions_addclose(&fa, from_child[0]);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, argv[0], &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (spawned != 0) {
    std::fprintf(stderr, "cannot run %s\n", argv[0]);
    return 1;
  }
  std::string buf;
  auto exchange = [&](std::string message) {
    message += '\n';
    return write_all(to_child[1], message) ? read_answer(from_child[0], buf, line_end)
                                           : std::string();
  };
  bool ok = !exchange(std::string(initialize)).empty() &&
            write_all(to_child[1], std::string(initialized) + '\n');
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 1; ok && i <= n; ++i) ok = exchange(call(i)).find("hello") != std::string::npos;
  if (ok) report("no client (bare loop), stdio", n, t0);
  ::close(to_child[1]);
  ::waitpid(pid, nullptr, 0);
  return ok ? 0 : 1;
}

int run_http(long n, std::string_view url) {
  // http://127.0.0.1:PORT/PATH only: a bench against a local server.
  constexpr std::string_view prefix = "http://127.0.0.1:";
  if (!url.starts_with(prefix)) {
    std::fprintf(stderr, "bare_calls: the URL must start with %s\n", prefix.data());
    return 2;
  }
  url.remove_prefix(prefix.size());
  const auto slash = url.find('/');
  const std::string path(slash == std::string_view::npos ? "/" : url.substr(slash));
  const int port = std::atoi(std::string(url.substr(0, slash)).c_str());
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("bare_calls: connect");
    return 1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::string buf;
  std::string session;
  auto exchange = [&](std::string_view body) {
    std::string req = "POST " + path +
                      " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      "Accept: application/json, text/event-stream\r\n"
                      "MCP-Protocol-Version: 2025-11-25\r\n" +
                      session + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    req += body;
    return write_all(fd, req) ? read_answer(fd, buf, response_end) : std::string();
  };
  const std::string init = exchange(initialize);
  for (std::string_view name : {"Mcp-Session-Id: ", "mcp-session-id: "}) {
    if (const auto at = init.find(name); at != std::string::npos) {
      session = "Mcp-Session-Id: " +
                init.substr(at + name.size(), init.find("\r\n", at) - at - name.size()) + "\r\n";
    }
  }
  bool ok = init.find("\"result\"") != std::string::npos && !exchange(initialized).empty();
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 1; ok && i <= n; ++i) ok = exchange(call(i)).find("hello") != std::string::npos;
  if (ok) report("no client (bare loop), http", n, t0);
  ::close(fd);
  if (!ok) std::fprintf(stderr, "bare_calls: the server did not answer as expected\n");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string_view mode = argc > 1 ? argv[1] : "";
  const long n = argc > 2 ? std::atol(argv[2]) : 0;
  if (n > 0 && mode == "stdio" && argc > 4 && std::string_view(argv[3]) == "--") {
    return run_stdio(n, argv + 4);
  }
  if (n > 0 && mode == "http" && argc == 4) return run_http(n, argv[3]);
  std::fprintf(stderr, "usage: bare_calls stdio N -- CMD ARGS... | bare_calls http N URL\n");
  return 2;
}
