// The abuse suite: the demo server as a subprocess, attacked over real sockets and pipes on
// 127.0.0.1 with catalogued bad inputs, class by class. After each class a fresh client must
// still initialize and get its echo back verbatim, and the server's threads and file
// descriptors must return to their baseline and its RSS to within 10% of it. The baseline is
// taken after a warm-up pass of every class (what the allocator keeps after the first large
// request is steady state, not growth). docs/testing.md has the catalogue.
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/subprocess.hpp"
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

/// A raw TCP connection to the server; closes on destruction.
class tcp_conn {
 public:
  explicit tcp_conn(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  tcp_conn(const tcp_conn&) = delete;
  tcp_conn& operator=(const tcp_conn&) = delete;
  ~tcp_conn() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] bool ok() const { return fd_ >= 0; }
  /// Sends all of `data` (false when the server closed the connection meanwhile).
  bool send(std::string_view data) {
    while (!data.empty()) {
      const auto n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  /// Reads until the server closes the connection, `done(text)` holds or `timeout` passes.
  std::string read(std::chrono::milliseconds timeout,
                   const std::function<bool(const std::string&)>& done = {}) {
    std::string text;
    const auto deadline = clock_type::now() + timeout;
    while (clock_type::now() < deadline && !(done && done(text))) {
      pollfd p{fd_, POLLIN, 0};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now());
      if (::poll(&p, 1, static_cast<int>(std::max<long>(1, left.count()))) <= 0) continue;
      char buf[65536];
      const auto n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      text.append(buf, static_cast<std::size_t>(n));
    }
    return text;
  }
  [[nodiscard]] bool closed() const { return closed_; }

 private:
  int fd_ = -1;
  bool closed_ = false;
};

std::string http_request(std::uint16_t port, const std::string& body,
                         const std::vector<std::string>& extra_headers = {},
                         const std::string& session = "") {
  std::string r = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                  "\r\nContent-Type: application/json\r\n"
                  "Accept: application/json, text/event-stream\r\n";
  if (!session.empty())
    r += "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: 2025-11-25\r\n";
  for (const auto& h : extra_headers) r += h + "\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  return r;
}

const std::string init_body =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"abuse","version":"1"}}})";

/// A complete response has arrived: headers and Content-Length bytes of body.
bool complete_response(const std::string& t) {
  const auto end = t.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  const auto cl = t.find("Content-Length: ");
  if (cl == std::string::npos || cl > end) return t.find("\r\n0\r\n\r\n") != std::string::npos;
  return t.size() >= end + 4 + std::stoul(t.substr(cl + 16));
}

struct usage {
  long rss_kib = 0;
  std::size_t threads = 0;
  std::size_t fds = 0;
};

std::size_t count_dir(const std::string& path) {
  std::size_t n = 0;
  if (DIR* d = ::opendir(path.c_str())) {
    while (const dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n;
}

usage usage_of(pid_t pid) {
  usage u;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) u.rss_kib = std::stol(line.substr(6));
  }
  u.threads = count_dir("/proc/" + std::to_string(pid) + "/task");
  u.fds = count_dir("/proc/" + std::to_string(pid) + "/fd");
  return u;
}

/// One class of bad input: a name and a function sending its inputs; returns how many it sent.
struct abuse_class {
  std::string name;
  std::function<int(std::uint16_t port)> run;
};

std::string random_bytes(std::mt19937& rng, std::size_t n) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xFFU);
  return s;
}

/// Sends `data` on a new connection, then reads what comes back for up to `wait`.
void hit(std::uint16_t port, const std::string& data, std::chrono::milliseconds wait = 300ms) {
  tcp_conn c(port);
  if (!c.ok()) return;
  c.send(data);
  c.read(wait, complete_response);
}

std::vector<abuse_class> http_classes(const std::string& session) {
  std::vector<abuse_class> out;
  out.push_back({"random bytes", [](std::uint16_t port) {
                   std::mt19937 rng(42);
                   for (int i = 0; i < 20; ++i)
                     hit(port, random_bytes(rng, 64 + rng() % 4096), 100ms);
                   return 20;
                 }});
  out.push_back(
      {"truncated chunked bodies", [](std::uint16_t port) {
         const std::string head =
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
         const std::string body = "10\r\n{\"jsonrpc\":\"2.0\"\r\n5\r\n,\"id\"\r\n0\r\n\r\n";
         int n = 0;
         for (std::size_t cut = 1; cut < body.size(); cut += 4, ++n) {
           hit(port, head + body.substr(0, cut), 20ms);
         }
         return n;
       }});
  out.push_back(
      {"oversized chunked bodies", [](std::uint16_t port) {
         const std::string head =
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             "Accept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
         hit(port, head + "FFFFFFFFFFFFFFFFFFFF\r\nx");
         hit(port, head + "7FFFFFFF\r\n" + std::string(1000, 'x'));
         std::string many;
         for (int i = 0; i < 600; ++i) many += "2000\r\n" + std::string(0x2000, 'a') + "\r\n";
         hit(port, head + many + "0\r\n\r\n", 2000ms);  // 4.9 MB > the 4 MiB limit
         hit(port, head + "1;" + std::string(40000, 'e') + "\r\nx\r\n0\r\n\r\n");
         hit(port, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 999999999\r\n\r\nabc");
         return 5;
       }});
  out.push_back(
      {"huge headers", [](std::uint16_t port) {
         std::string many;
         for (int i = 0; i < 2000; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
         hit(port, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + "\r\n");
         hit(port, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(70000, 'b') +
                       "\r\n\r\n");
         hit(port, "GET /" + std::string(100000, 'p') + " HTTP/1.1\r\n\r\n");
         hit(port, "POST /mcp HTTP/1.1\r\n" + std::string(20000, 'X') + ": y\r\n\r\n");
         hit(port, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: " + std::string(16000, 'c') +
                       "\r\nX: " + std::string(16000, 'd') + "\r\n\r\n");
         return 5;
       }});
  out.push_back(
      {"huge trailers", [](std::uint16_t port) {
         const std::string head =
             "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
             "2\r\n{}\r\n0\r\n";
         hit(port, head + "X-T: " + std::string(70000, 'a') + "\r\n\r\n");
         hit(port, head + "X-T: " + std::string(65535, 'a') + "\r\n\r\n");
         std::string many;
         for (int i = 0; i < 5000; ++i) many += "T" + std::to_string(i) + ": v\r\n";
         hit(port, head + many + "\r\n");
         hit(port, head + std::string(70000, 'N') + ": v\r\n\r\n");
         hit(port, head + "X-T: " + std::string(200000, 'a'));  // never ends
         return 5;
       }});
  out.push_back({"slowloris headers", [](std::uint16_t port) {
                   std::vector<std::unique_ptr<tcp_conn>> conns;
                   for (int i = 0; i < 20; ++i) {
                     conns.push_back(std::make_unique<tcp_conn>(port));
                     conns.back()->send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
                   }
                   for (int step = 0; step < 8; ++step) {  // a byte now and then, never the end
                     std::this_thread::sleep_for(100ms);
                     for (auto& c : conns) c->send("X");
                   }
                   int cut = 0;
                   for (auto& c : conns) {
                     c->read(3000ms);
                     cut += c->closed();
                   }
                   EXPECT_EQ(cut, 20) << "the header timeout closes slow headers";
                   return 20;
                 }});
  out.push_back({"slowloris bodies", [session](std::uint16_t port) {
                   std::vector<std::unique_ptr<tcp_conn>> conns;
                   for (int i = 0; i < 10; ++i) {
                     conns.push_back(std::make_unique<tcp_conn>(port));
                     std::string r = http_request(port, std::string(1000, ' '), {}, session);
                     conns.back()->send(r.substr(0, r.size() - 990));
                   }
                   int cut = 0;
                   for (auto& c : conns) {
                     c->read(4000ms);
                     cut += c->closed();
                   }
                   EXPECT_EQ(cut, 10) << "the body timeout closes slow bodies";
                   return 10;
                 }});
  out.push_back({"pipelined garbage", [session](std::uint16_t port) {
                   const std::string ok = http_request(
                       port, R"({"jsonrpc":"2.0","id":2,"method":"ping"})", {}, session);
                   std::mt19937 rng(7);
                   for (int i = 0; i < 10; ++i) hit(port, ok + random_bytes(rng, 200) + ok, 200ms);
                   return 10;
                 }});
  out.push_back({"invalid UTF-8 in headers", [session](std::uint16_t port) {
                   int n = 0;
                   for (const char* name : {"MCP-Protocol-Version", "Mcp-Session-Id",
                                            "Last-Event-ID", "Accept", "Content-Type"}) {
                     for (const char* bad : {"\xF5", "\xC0\xAF", "\xED\xA0\x80", "a\xFFz"}) {
                       const std::string body = R"({"jsonrpc":"2.0","id":3,"method":"ping"})";
                       std::string r = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n";
                       r += std::string(name) + ": " + bad + "\r\n";
                       if (std::string_view(name) != "Mcp-Session-Id")
                         r += "Mcp-Session-Id: " + session + "\r\n";
                       r += "Content-Type: application/json\r\nAccept: application/json, "
                            "text/event-stream\r\n";
                       r += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
                       tcp_conn c(port);
                       c.send(r);
                       const std::string answer = c.read(500ms, complete_response);
                       const auto at = answer.find("\r\n\r\n");
                       if (at != std::string::npos && at + 4 < answer.size()) {
                         const std::string json = answer.substr(at + 4);
                         EXPECT_TRUE(mcp::parse_json(json)) << name << ": " << json;
                       }
                       ++n;
                     }
                   }
                   return n;
                 }});
  out.push_back(
      {"invalid UTF-8 in JSON fields", [session](std::uint16_t port) {
         const std::vector<std::string> bodies = {
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/\xF5\"}",
             R"({"jsonrpc":"2.0","id":4,"method":"tools/\udc80"})",
             R"({"jsonrpc":"2.0","id":"\ud800","method":"ping"})",
             R"({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///a%95b"}})",
             R"({"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"\udfff"}})",
             R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"\ud800"}})",
             R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\udc00"}}})",
             "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/"
             "call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"t\xFF\":1}}}",
             R"({"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{"name":"\udbff\udbff"}})",
             R"([{"jsonrpc":"2.0","id":11,"method":"\ud800"},{"jsonrpc":"2.0","id":12,"method":"ping"}])"};
         for (const auto& b : bodies) {
           tcp_conn c(port);
           c.send(http_request(port, b, {}, session));
           const std::string answer = c.read(1000ms, complete_response);
           const auto at = answer.find("\r\n\r\n");
           if (at != std::string::npos && answer.find("application/json") != std::string::npos) {
             EXPECT_TRUE(mcp::parse_json(answer.substr(at + 4))) << b << " -> " << answer;
           }
         }
         return static_cast<int>(bodies.size());
       }});
  out.push_back(
      {"deeply nested JSON", [session](std::uint16_t port) {
         int n = 0;
         for (std::size_t depth : {129U, 1000U, 100000U, 1000000U}) {
           hit(port,
               http_request(port, std::string(depth, '[') + std::string(depth, ']'), {}, session));
           ++n;
         }
         std::string objects;
         for (int i = 0; i < 50000; ++i) objects += "{\"a\":";
         hit(port, http_request(port, objects + "1" + std::string(50000, '}'), {}, session));
         return n + 1;
       }});
  out.push_back(
      {"enormous numbers", [session](std::uint16_t port) {
         const std::vector<std::string> nums = {"1e999999", std::string(10000, '9'), "-0", "1e-400",
                                                "123456789012345678901234567890"};
         for (const auto& num : nums) {
           hit(port,
               http_request(
                   port,
                   R"({"jsonrpc":"2.0","id":)" + num +
                       R"(,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo","days":)" +
                       num + "}}}",
                   {}, session));
         }
         return static_cast<int>(nums.size());
       }});
  out.push_back(
      {"unknown session ids and Last-Event-ID garbage", [session](std::uint16_t port) {
         const std::string ping = R"({"jsonrpc":"2.0","id":13,"method":"ping"})";
         for (const char* sid :
              {"0", "ffffffffffffffffffffffffffffffff", "../../etc", "", "\x01\x02"}) {
           hit(port, http_request(port, ping, {}, sid));
         }
         for (const char* id : {"-1", "99999999999999999999999", "a/b/c", "", "0/0/0/0/0"}) {
           hit(port,
               "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
               "Mcp-Session-Id: " +
                   session + "\r\nLast-Event-ID: " + id + "\r\n\r\n",
               100ms);
         }
         return 10;
       }});
  out.push_back({"thousands of idle connections", [](std::uint16_t port) {
                   std::vector<std::unique_ptr<tcp_conn>> conns;
                   for (int i = 0; i < 2000; ++i) {
                     conns.push_back(std::make_unique<tcp_conn>(port));
                     if (!conns.back()->ok()) conns.pop_back();
                   }
                   EXPECT_GE(conns.size(), 1900U);
                   std::this_thread::sleep_for(200ms);
                   return static_cast<int>(conns.size() > 0);
                 }});
  return out;
}

class abuse : public ::testing::Test {
 protected:
  void SetUp() override {
    rlimit r{};
    ::getrlimit(RLIMIT_NOFILE, &r);
    r.rlim_cur = std::min<rlim_t>(r.rlim_max, 8192);
    ::setrlimit(RLIMIT_NOFILE, &r);  // the 2,000 idle connections; inherited by the server
  }
};

/// A fresh client: initialize, then the echo comes back verbatim.
std::string expect_serving(std::uint16_t port) {
  tcp_conn c(port);
  c.send(http_request(port, init_body));
  const std::string init = c.read(5000ms, complete_response);
  const auto at = init.find("Mcp-Session-Id: ");
  EXPECT_NE(at, std::string::npos) << init;
  if (at == std::string::npos) return {};
  const std::string sid = init.substr(at + 16, 32);
  c.send(http_request(port, R"({"jsonrpc":"2.0","method":"notifications/initialized"})", {}, sid));
  c.read(2000ms, complete_response);
  const std::string text = "verbatim \xC3\xA9\xE2\x9C\x93 \\\"quoted\\\" 123";
  c.send(http_request(
      port,
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":")" +
          text + R"("}}})",
      {}, sid));
  const std::string echo = c.read(5000ms, complete_response);
  EXPECT_NE(echo.find(R"("text":")" + text + "\""), std::string::npos) << echo;
  return sid;
}

TEST_F(abuse, the_http_server_survives_every_class_and_returns_to_its_baseline) {
  mcp::test::subprocess server({MCP_DEMO_SERVER, "--http", "127.0.0.1:0", "--no-rate-limit",
                                "--header-timeout-ms", "1000", "--body-timeout-ms", "1500",
                                "--keep-alive-timeout-ms", "2000"});
  ASSERT_TRUE(server.started());
  std::string err;
  for (int i = 0; i < 200 && err.find("http://") == std::string::npos; ++i) {
    std::this_thread::sleep_for(20ms);
    err = server.drain_stderr();
  }
  const auto at = err.find("http://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << err;
  const auto port = static_cast<std::uint16_t>(std::stoul(err.substr(at + 17)));
  const std::string session = expect_serving(port);
  ASSERT_FALSE(session.empty());
  auto classes = http_classes(session);

  // Warm-up: every class once, so that the baseline is the allocator's steady state.
  for (auto& c : classes) c.run(port);
  auto settle = [&](const usage& base) {
    usage now;
    for (int i = 0; i < 60; ++i) {  // up to 3 s for closes and timeouts to land
      now = usage_of(server.pid());
      if (now.threads <= base.threads && now.fds <= base.fds) break;
      std::this_thread::sleep_for(50ms);
    }
    return now;
  };
  std::this_thread::sleep_for(2500ms);  // kept-alive warm-up connections time out
  const usage base = settle(usage_of(server.pid()));
  int total = 0;
  for (auto& c : classes) {
    const int n = c.run(port);
    total += n;
    expect_serving(port);
    std::this_thread::sleep_for(2200ms);  // this class's kept-alive connections time out
    const usage now = settle(base);
    EXPECT_LE(now.threads, base.threads) << c.name;
    EXPECT_LE(now.fds, base.fds) << c.name;
    EXPECT_LE(now.rss_kib, base.rss_kib + base.rss_kib / 10) << c.name;
    std::printf(
        "abuse: %-48s %3d inputs  serving  rss %ld KiB (baseline %ld)  threads %zu  fds %zu\n",
        c.name.c_str(), n, now.rss_kib, base.rss_kib, now.threads, now.fds);
  }
  EXPECT_GE(total, 100);
  std::printf("abuse: %d inputs over HTTP\n", total);
}

TEST_F(abuse, a_100_mb_stdio_line_and_garbage_lines_leave_the_server_serving) {
  mcp::test::subprocess server({MCP_DEMO_SERVER});
  ASSERT_TRUE(server.started());
  auto call = [&](int id) {
    EXPECT_TRUE(server.write_line(
        R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
        R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}})"));
    // Garbage lines before it got their own error answers: skip to this call's.
    for (int i = 0; i < 100; ++i) {
      auto line = server.read_line(10s);
      ASSERT_TRUE(line);
      if (line->find(R"("id":)" + std::to_string(id) + ",") == std::string::npos) continue;
      EXPECT_NE(line->find(R"("text":"still here")"), std::string::npos) << *line;
      return;
    }
    ADD_FAILURE() << "no answer to call " << id;
  };
  ASSERT_TRUE(server.write_line(
      R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"));
  ASSERT_TRUE(server.read_line(10s));
  ASSERT_TRUE(server.write_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  call(1);
  const usage base = usage_of(server.pid());
  std::string huge(std::size_t{100} << 20U, 'x');
  ASSERT_TRUE(server.write_line(huge));  // skipped whole: one -32600 for it
  huge.clear();
  huge.shrink_to_fit();
  auto refused = server.read_line(30s);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("-32600"), std::string::npos) << *refused;
  std::mt19937 rng(3);
  for (int i = 0; i < 20; ++i) {
    std::string garbage = random_bytes(rng, 1 + rng() % 2000);
    std::erase(garbage, '\n');
    if (garbage.empty()) continue;
    server.write_line(garbage);
  }
  call(2);
  std::this_thread::sleep_for(200ms);
  const usage now = usage_of(server.pid());
  EXPECT_LE(now.threads, base.threads);
  EXPECT_LE(now.fds, base.fds);
  EXPECT_LE(now.rss_kib, base.rss_kib + base.rss_kib / 10);
  std::printf("abuse: stdio: a 100 MB line and 20 garbage lines; rss %ld KiB (baseline %ld)\n",
              now.rss_kib, base.rss_kib);
}

}  // namespace
