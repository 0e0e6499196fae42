// The training run of a profile-feedback build (MCP_PROFILE_FEEDBACK, cmake/mcp_profile.cmake):
// drives an instrumented demo_server through a fixed mix of calls, so that the profile it
// writes when it exits describes the paths the benchmarks and MCP clients use:
//   - stdio: initialize, tools/list, 50,000 `tools/call echo` (32 in flight), 2,000 task round
//     trips (tools/call must_task as a task, then tasks/result), a few unknown tools;
//   - stdio observed: 10,000 echo calls with metrics on (--metrics), 10,000 with every span also
//     exported as OTLP/protobuf and 5,000 as OTLP/JSON (--otlp) to a collector of this driver
//     that answers every export, and 10,000 with 10 % of the traces sampled (protobuf; the path
//     of a new trace decided before its operation, unsampled and sampled), so that the observed
//     paths are laid out as used, not as cold code (under half of the stdio calls: the
//     unobserved path stays the most frequent);
//   - Streamable HTTP, one server with sessions: a 2025-11-25 session (initialize, 10,000 echo
//     calls) and 10,000 self-contained 2026-07-28 echo calls; one --stateless server: 10,000
//     2025-11-25 echo calls. Each on one keep-alive connection to 127.0.0.1.
// The input is fixed (ids, arguments, order); only the server's own choices (session and task
// ids, timestamps) vary. Every answer is checked; any failure exits non-zero, which fails the
// build rather than training it on errors.
//
//   mcp_profile_driver DEMO_SERVER
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

constexpr int stdio_calls = 50000;
constexpr int stdio_window = 32;
constexpr int stdio_tasks = 2000;
constexpr int http_calls = 10000;
constexpr int observed_metrics_calls = 10000;
constexpr int observed_protobuf_calls = 10000;
constexpr int observed_json_calls = 5000;
constexpr int observed_sampled_calls = 10000;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "mcp_profile_driver: %s\n", what.c_str());
  std::exit(1);
}

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::string("write: ") + std::strerror(errno));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

/// Reads from `fd` into `buffer`; false at end of file.
bool read_some(int fd, std::string& buffer) {
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::string("read: ") + std::strerror(errno));
    buffer.append(chunk, static_cast<std::size_t>(n));
    return n > 0;
  }
}

/// A child process with a pipe to its stdin and one from its stdout (or, with `stderr_pipe`,
/// from its stderr; the other goes to /dev/null).
struct child {
  pid_t pid = -1;
  int in = -1;
  int out = -1;
};

child spawn(const std::vector<std::string>& args, bool stderr_pipe,
            const std::vector<std::pair<std::string, std::string>>& env = {}) {
  if (::access(args[0].c_str(), X_OK) != 0) fail(args[0] + ": not an executable program");
  int to[2];
  int from[2];
  if (::pipe(to) != 0 || ::pipe(from) != 0) fail("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) fail("fork failed");
  if (pid == 0) {
    ::dup2(to[0], 0);
    if (stderr_pipe) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(from[1], 2);
    } else {
      ::dup2(from[1], 1);
      ::dup2(::open("/dev/null", O_WRONLY), 2);
    }
    ::close(to[0]);
    ::close(to[1]);
    ::close(from[0]);
    ::close(from[1]);
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    std::_Exit(127);
  }
  ::close(to[0]);
  ::close(from[1]);
  return {pid, to[1], from[0]};
}

/// Waits for the child; it must exit with status 0 (the profile is written at exit).
void reap(const child& c, const char* what) {
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0) {
    if (errno != EINTR) fail("waitpid failed");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fail(std::string(what) + ": demo_server did not exit cleanly (status " +
         std::to_string(status) + ")");
  }
}

/// Newline-delimited JSON-RPC over the child's stdin and stdout.
class line_peer {
 public:
  explicit line_peer(child c) : c_(c) {}

  void send(std::string_view line) { write_all(c_.in, line); }

  /// The next line (without '\n'); fails at end of output.
  std::string next() {
    for (;;) {
      if (const auto nl = buffer_.find('\n', start_); nl != std::string::npos) {
        std::string line = buffer_.substr(start_, nl - start_);
        start_ = nl + 1;
        return line;
      }
      buffer_.erase(0, start_);
      start_ = 0;
      if (!read_some(c_.out, buffer_)) fail("stdio: demo_server ended its output early");
    }
  }

  /// The answer to request `id` (notifications before it are skipped); fails on an error answer.
  std::string answer(long id) {
    const std::string key = "\"id\":" + std::to_string(id) + ",";
    for (;;) {
      std::string line = next();
      if (line.find(key) == std::string::npos) continue;
      if (line.find("\"result\"") == std::string::npos) fail("stdio: error answer: " + line);
      return line;
    }
  }

  /// Closes stdin and drains the output until the child ends.
  void finish() {
    ::close(c_.in);
    std::string rest;
    while (read_some(c_.out, rest)) rest.clear();
    ::close(c_.out);
    reap(c_, "stdio");
  }

 private:
  child c_;
  std::string buffer_;
  std::size_t start_ = 0;
};

/// An OTLP/HTTP collector on 127.0.0.1 that answers every export at once (200 with an empty body
/// of the request's encoding: `{}` or nothing) and counts the trace exports it was sent. One
/// poll loop on its own thread; the destructor stops it.
class null_collector {
 public:
  null_collector() {
    listen_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    if (listen_ < 0 || ::bind(listen_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_, 16) != 0 ||
        ::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
      fail("collector: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    if (::pipe(stop_) != 0) fail("pipe failed");
    thread_ = std::thread([this] { serve(); });
  }
  ~null_collector() {
    const char byte = 0;
    if (::write(stop_[1], &byte, 1) != 1) std::abort();
    thread_.join();
    ::close(stop_[0]);
    ::close(stop_[1]);
    ::close(listen_);
  }
  null_collector(const null_collector&) = delete;
  null_collector& operator=(const null_collector&) = delete;

  int port() const { return port_; }
  long trace_exports() const { return trace_exports_.load(); }

 private:
  void serve() {
    std::map<int, std::string> connections;  // each connection's bytes not yet answered
    for (;;) {
      std::vector<pollfd> fds = {{stop_[0], POLLIN, 0}, {listen_, POLLIN, 0}};
      for (const auto& entry : connections) fds.push_back({entry.first, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      if (fds[0].revents != 0) break;
      if ((fds[1].revents & POLLIN) != 0) {
        const int fd = ::accept(listen_, nullptr, nullptr);
        if (fd >= 0) connections.emplace(fd, std::string());
      }
      for (std::size_t i = 2; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        char chunk[65536];
        const ssize_t n = ::read(fds[i].fd, chunk, sizeof chunk);
        std::string& bytes = connections[fds[i].fd];
        if (n > 0) bytes.append(chunk, static_cast<std::size_t>(n));
        if ((n <= 0 && errno != EINTR) || !answer(fds[i].fd, bytes)) {
          ::close(fds[i].fd);
          connections.erase(fds[i].fd);
        }
      }
    }
    for (const auto& entry : connections) ::close(entry.first);
  }

  /// Answers every whole request in `bytes` and removes it; false when the connection failed.
  bool answer(int fd, std::string& bytes) {
    for (;;) {
      const auto end = bytes.find("\r\n\r\n");
      if (end == std::string::npos) return true;
      std::string head = bytes.substr(0, end + 2);
      for (auto& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      const auto length_at = head.find("\r\ncontent-length:");
      const std::size_t length = length_at == std::string::npos
                                     ? 0
                                     : std::strtoul(head.c_str() + length_at + 17, nullptr, 10);
      if (bytes.size() < end + 4 + length) return true;
      if (head.rfind("post /v1/traces", 0) == 0) ++trace_exports_;
      const bool protobuf = head.find("application/x-protobuf") != std::string::npos;
      const std::string body = protobuf ? "" : "{}";
      const std::string reply = std::string("HTTP/1.1 200 OK\r\nContent-Type: ") +
                                (protobuf ? "application/x-protobuf" : "application/json") +
                                "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
                                body;
      if (::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(reply.size())) {
        return false;
      }
      bytes.erase(0, end + 4 + length);
    }
  }

  int listen_ = -1;
  int port_ = 0;
  int stop_[2] = {-1, -1};
  std::atomic<long> trace_exports_{0};
  std::thread thread_;
};

std::string echo_call(long id, std::string_view meta = {}) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
         ",\"method\":\"tools/"
         "call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}" +
         std::string(meta) + "}}";
}

std::string initialize(long id) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
         ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
         "\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp_profile_driver\",\"version\":\"1.0\"}}"
         "}";
}

/// The string value of `"name":"…"` in `json` (no escapes expected).
std::string field(const std::string& json, std::string_view name) {
  const std::string key = "\"" + std::string(name) + "\":\"";
  const auto at = json.find(key);
  if (at == std::string::npos) fail("no " + std::string(name) + " in " + json);
  const auto from = at + key.size();
  return json.substr(from, json.find('"', from) - from);
}

/// `count` echo calls, `stdio_window` in flight, from request id `id` on (advanced past them).
void echo_calls(line_peer& peer, long& id, int count) {
  for (int done = 0; done < count; done += stdio_window) {
    std::string batch;
    for (int i = 0; i < stdio_window; ++i) batch += echo_call(id + i) + "\n";
    peer.send(batch);
    for (int i = 0; i < stdio_window; ++i) {
      if (peer.answer(id + i).find("hello") == std::string::npos) fail("stdio: echo answer");
    }
    id += stdio_window;
  }
}

void train_stdio(const std::string& demo) {
  line_peer peer(spawn({demo, "--no-rate-limit", "--task-store", ":memory:"}, false));
  peer.send(initialize(1) + "\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n" +
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n");
  peer.answer(1);
  peer.answer(2);
  long id = 1000;
  echo_calls(peer, id, stdio_calls);
  for (int t = 0; t < stdio_tasks; ++t, id += 2) {
    peer.send("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
              ",\"method\":\"tools/call\",\"params\":{\"name\":\"must_task\",\"arguments\":"
              "{\"text\":\"task " +
              std::to_string(t) + "\"},\"task\":{\"ttl\":60000}}}\n");
    const std::string task_id = field(peer.answer(id), "taskId");
    peer.send("{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id + 1) +
              ",\"method\":\"tasks/result\",\"params\":{\"taskId\":\"" + task_id + "\"}}\n");
    if (peer.answer(id + 1).find("task " + std::to_string(t)) == std::string::npos) {
      fail("stdio: tasks/result answer");
    }
  }
  for (int i = 0; i < 100; ++i, ++id) {  // unknown tool: an error result or answer, not counted
    peer.send(
        "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
        ",\"method\":\"tools/call\",\"params\":{\"name\":\"no_such_tool\",\"arguments\":{}}}\n");
    const std::string key = "\"id\":" + std::to_string(id) + ",";
    while (peer.next().find(key) == std::string::npos) {
    }
  }
  peer.finish();
}

/// `count` stdio echo calls to a demo observed as `flags` (and `env`) say.
void train_observed_run(const std::string& demo, const std::vector<std::string>& flags,
                        const std::vector<std::pair<std::string, std::string>>& env, int count) {
  std::vector<std::string> args = {demo, "--no-rate-limit"};
  args.insert(args.end(), flags.begin(), flags.end());
  line_peer peer(spawn(args, false, env));
  peer.send(initialize(1) + "\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
  peer.answer(1);
  long id = 1000;
  echo_calls(peer, id, count);
  peer.finish();
}

void train_observed(const std::string& demo) {
  null_collector collector;
  const std::string otlp = "http://127.0.0.1:" + std::to_string(collector.port());
  train_observed_run(demo, {"--metrics", "127.0.0.1:0"}, {}, observed_metrics_calls);
  for (const auto& [encoding, count] :
       {std::pair<std::string, int>{"http/protobuf", observed_protobuf_calls},
        std::pair<std::string, int>{"http/json", observed_json_calls}}) {
    const long before = collector.trace_exports();
    train_observed_run(demo, {"--metrics", "127.0.0.1:0", "--otlp", otlp},
                       {{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", encoding}}, count);
    if (collector.trace_exports() == before)
      fail("observed: no " + encoding + " span export arrived");
  }
  const long before = collector.trace_exports();
  train_observed_run(
      demo, {"--metrics", "127.0.0.1:0", "--otlp", otlp},
      {{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf"}, {"OTEL_TRACES_SAMPLER_ARG", "0.1"}},
      observed_sampled_calls);
  if (collector.trace_exports() == before) fail("observed: no export of the sampled spans arrived");
}

/// One keep-alive HTTP/1.1 connection to 127.0.0.1:port, POSTing JSON to /mcp.
class http_peer {
 public:
  explicit http_peer(int port) : port_(port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      fail("http: connect to 127.0.0.1:" + std::to_string(port) + " failed");
    }
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~http_peer() { ::close(fd_); }
  http_peer(const http_peer&) = delete;
  http_peer& operator=(const http_peer&) = delete;

  std::vector<std::string> headers;  ///< extra request header lines ("Name: value")
  std::string session_id;            ///< the Mcp-Session-Id of the last answer, if any

  /// POSTs `body`; returns the status code, the answer's body in `out`.
  int post(const std::string& body, std::string& out) {
    std::string head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                       "\r\nContent-Type: application/json\r\n"
                       "Accept: application/json, text/event-stream\r\n";
    for (const auto& h : headers) head += h + "\r\n";
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    write_all(fd_, head + body);
    std::size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!read_some(fd_, buffer_)) fail("http: connection closed");
    }
    const std::string fields = buffer_.substr(0, end + 2);
    const int status = std::atoi(fields.c_str() + 9);
    std::size_t length = 0;
    for (std::size_t at = 0, nl; (nl = fields.find("\r\n", at)) != std::string::npos; at = nl + 2) {
      std::string line = fields.substr(at, nl - at);
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      std::string value = line.substr(line.find_first_not_of(' ', colon + 1));
      if (name == "content-length") length = std::stoul(value);
      if (name == "mcp-session-id") session_id = value;
      if (name == "transfer-encoding") fail("http: chunked answer not expected here");
    }
    buffer_.erase(0, end + 4);
    while (buffer_.size() < length) {
      if (!read_some(fd_, buffer_)) fail("http: connection closed in a body");
    }
    out = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return status;
  }

  /// POSTs `body` and requires 200 with `marker` in the answer.
  void call(const std::string& body, std::string_view marker) {
    std::string out;
    const int status = post(body, out);
    if (status != 200 || out.find(marker) == std::string::npos) {
      fail("http: status " + std::to_string(status) + ", answer " + out.substr(0, 300));
    }
  }

 private:
  int port_;
  int fd_;
  std::string buffer_;
};

/// Starts `demo --http 127.0.0.1:0 …` and returns it with the port it printed.
child start_http(const std::string& demo, bool stateless, int& port) {
  std::vector<std::string> args = {demo,           "--http", "127.0.0.1:0", "--no-rate-limit",
                                   "--io-threads", "2"};
  if (stateless) args.emplace_back("--stateless");
  child c = spawn(args, true);
  std::string text;
  const std::string key = "listening on http://127.0.0.1:";
  std::size_t at;
  while ((at = text.find(key)) == std::string::npos ||
         text.find('/', at + key.size()) == text.npos) {
    if (!read_some(c.out, text)) fail("http: demo_server did not start: " + text);
  }
  port = std::atoi(text.c_str() + at + key.size());
  return c;
}

void stop_http(child c) {
  ::close(c.in);
  ::kill(c.pid, SIGTERM);  // a clean stop: the server returns from main
  std::string rest;
  while (read_some(c.out, rest)) rest.clear();
  ::close(c.out);
  reap(c, "http");
}

void train_http(const std::string& demo) {
  const std::string modern_meta =
      ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      "\"io.modelcontextprotocol/clientCapabilities\":{},"
      "\"io.modelcontextprotocol/"
      "clientInfo\":{\"name\":\"mcp_profile_driver\",\"version\":\"1.0\"}}";
  int port = 0;
  child sessions = start_http(demo, false, port);
  {
    http_peer peer(port);
    peer.headers = {"MCP-Protocol-Version: 2025-11-25"};
    peer.call(initialize(1), "\"result\"");
    if (peer.session_id.empty()) fail("http: initialize gave no Mcp-Session-Id");
    peer.headers.push_back("Mcp-Session-Id: " + peer.session_id);
    std::string out;
    peer.post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", out);
    for (long i = 0; i < http_calls; ++i) peer.call(echo_call(1000 + i), "\"result\"");
  }
  {
    http_peer peer(port);
    peer.headers = {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: echo"};
    for (long i = 0; i < http_calls; ++i) {
      peer.call(echo_call(1000 + i, modern_meta), "\"resultType\":\"complete\"");
    }
  }
  stop_http(sessions);
  child stateless = start_http(demo, true, port);
  {
    http_peer peer(port);
    peer.headers = {"MCP-Protocol-Version: 2025-11-25"};
    for (long i = 0; i < http_calls; ++i) peer.call(echo_call(1000 + i), "\"result\"");
  }
  stop_http(stateless);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mcp_profile_driver DEMO_SERVER\n");
    return 2;
  }
  ::signal(SIGPIPE, SIG_IGN);
  const std::string demo = argv[1];
  train_stdio(demo);
  train_observed(demo);
  train_http(demo);
  std::fprintf(stderr,
               "mcp_profile_driver: trained (stdio %d calls, %d tasks; observed %d calls; HTTP 3 x "
               "%d calls)\n",
               stdio_calls, stdio_tasks,
               observed_metrics_calls + observed_protobuf_calls + observed_json_calls +
                   observed_sampled_calls,
               http_calls);
  return 0;
}
