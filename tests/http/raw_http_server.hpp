// A raw HTTP/1.1 server on 127.0.0.1 for client tests that need a server misbehaving in exact
// ways (answering once then dropping, never answering): it accepts connections and runs the
// test's handler for each on a thread of its own; `read_http_request` reads one request.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace mcp_test {

/// Reads one request (head, and a body of its Content-Length) from connection `c`, keeping
/// what follows in `buf`; its body goes to `body` and its head (request line and headers) to
/// `head` when given. False at the end of the stream.
inline bool read_http_request(int c, std::string& buf, std::string* body = nullptr,
                              std::string* head = nullptr) {
  for (;;) {
    const auto head_end = buf.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      std::size_t length = 0;
      const auto cl = buf.find("Content-Length: ");
      if (cl != std::string::npos && cl < head_end) length = std::stoul(buf.substr(cl + 16));
      if (buf.size() >= head_end + 4 + length) {
        if (body != nullptr) *body = buf.substr(head_end + 4, length);
        if (head != nullptr) *head = buf.substr(0, head_end);
        buf.erase(0, head_end + 4 + length);
        return true;
      }
    }
    char tmp[4096];
    const auto n = ::recv(c, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf.append(tmp, static_cast<std::size_t>(n));
  }
}

/// Listens on a free loopback port; each accepted connection goes to `serve` on its own thread
/// and is closed after it returns. The destructor ends every connection and joins the threads.
class raw_http_server {
 public:
  explicit raw_http_server(std::function<void(int)> serve) : serve_(std::move(serve)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd_, 16) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("raw_http_server: cannot listen");
    }
    port_ = ntohs(addr.sin_port);
    accepter_ = std::thread([this] { accept_loop(); });
  }
  ~raw_http_server() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    accepter_.join();
    {
      std::lock_guard lock(mu_);
      for (const int c : conns_) ::shutdown(c, SHUT_RDWR);
    }
    for (auto& t : handlers_) t.join();
    for (const int c : conns_) ::close(c);
  }
  raw_http_server(const raw_http_server&) = delete;
  raw_http_server& operator=(const raw_http_server&) = delete;

  [[nodiscard]] std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/mcp";
  }

 private:
  void accept_loop() {
    for (;;) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::lock_guard lock(mu_);
      conns_.push_back(c);
      handlers_.emplace_back([this, c] {
        serve_(c);
        ::shutdown(c, SHUT_RDWR);  // closed by the destructor: the number stays ours
      });
    }
  }

  std::function<void(int)> serve_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread accepter_;
  std::mutex mu_;
  std::vector<int> conns_;
  std::vector<std::thread> handlers_;
};

}  // namespace mcp_test
