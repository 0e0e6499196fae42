// The loopback redirect of a native OAuth client (RFC 8252 §7.3): a listener on 127.0.0.1 that
// receives the browser's redirect from the authorization server. Plain sockets: one request
// read at a time, each within a few seconds, for as long as `authorize` waits.
#include <mcp/oauth.hpp>

#include <boost/url/parse.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mcp::auth {
namespace {

using clock = std::chrono::steady_clock;

/// Runs `program url` without waiting for it (a thread reaps it). False when it cannot start.
bool launch(const char* program, const std::string& url) {
  pid_t pid = 0;
  std::string prog = program;
  std::string arg = url;
  char* argv[] = {prog.data(), arg.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);       // a browser's chatter goes to stderr
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // no socket of ours outlives us in it
  const int rc = posix_spawnp(&pid, program, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return false;
  std::thread([pid] {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }).detach();
  return true;
}

void default_open(const std::string& url) {
  std::cerr << "Open this URL to authorize mcp-cpp:\n  " << url << "\n";
  if (const char* b = std::getenv("BROWSER"); b != nullptr && *b != '\0') {
    if (!launch(b, url)) std::cerr << "(could not run $BROWSER: " << b << ")\n";
    return;
  }
  if (::access("/usr/bin/xdg-open", X_OK) == 0) launch("/usr/bin/xdg-open", url);
}

/// Reads one request head from `fd` within `until`; empty on timeout, error or oversize.
std::string read_head(int fd, clock::time_point until) {
  std::string head;
  char buf[2048];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 8192) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - clock::now());
    if (left.count() <= 0) return {};
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return {};
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return {};
    head.append(buf, static_cast<std::size_t>(n));
  }
  return head;
}

/// The decoded value of `key` in the query of `url` (empty: none).
std::string query_value(std::string_view url, std::string_view key) {
  auto u = boost::urls::parse_uri_reference(url);
  if (!u) return {};
  for (const auto& p : u->params()) {
    if (p.key == key) return p.value;
  }
  return {};
}

void answer(int fd, std::string_view status, std::string_view body) {
  std::string out = "HTTP/1.1 ";
  out += status;
  out += "\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n";
  out += "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  std::size_t done = 0;
  while (done < out.size()) {
    const auto n = ::send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

struct loopback_agent::impl {
  loopback_options opts;
  std::mutex mu;
  int listener = -1;
  std::uint16_t port = 0;

  result<void> listen() {
    if (listener >= 0) return {};
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      return error{errc::connection_closed,
                   std::string("loopback redirect: ") + std::strerror(errno)};
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port != 0 ? port : opts.port);  // the same port once chosen
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 8) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return error{errc::connection_closed, "loopback redirect: cannot listen on 127.0.0.1:" +
                                                std::to_string(ntohs(addr.sin_port)) + ": " + why};
    }
    listener = fd;
    port = ntohs(addr.sin_port);
    return {};
  }

  std::string uri() const { return "http://127.0.0.1:" + std::to_string(port) + opts.path; }

  void stop() {
    if (listener >= 0) ::close(listener);
    listener = -1;
  }
};

loopback_agent::loopback_agent(loopback_options opts) : impl_(std::make_unique<impl>()) {
  if (opts.path.empty() || opts.path.front() != '/') opts.path = "/" + opts.path;
  impl_->opts = std::move(opts);
}

loopback_agent::~loopback_agent() { impl_->stop(); }

result<std::string> loopback_agent::redirect_uri() {
  std::lock_guard lock(impl_->mu);
  // Listening from now on keeps the port this flow registers or sends; `authorize` closes it.
  if (auto r = impl_->listen(); !r) return r.error();
  return impl_->uri();
}

result<std::string> loopback_agent::authorize(const std::string& authorization_url) {
  std::lock_guard lock(impl_->mu);
  if (auto r = impl_->listen(); !r) return r.error();
  const std::string state = query_value(authorization_url, "state");
  struct closer {
    impl& m;
    ~closer() { m.stop(); }
  } close_after{*impl_};
  if (impl_->opts.open) {
    impl_->opts.open(authorization_url);
  } else {
    default_open(authorization_url);
  }
  const auto until = clock::now() + impl_->opts.timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - clock::now());
    if (left.count() <= 0) {
      return error{errc::request_timeout, "no redirect reached " + impl_->uri() + " within " +
                                              std::to_string(impl_->opts.timeout.count()) + " s"};
    }
    pollfd p{impl_->listener, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000))) <= 0) continue;
    const int fd = ::accept4(impl_->listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    // A connection a browser opened ahead and left idle is given up on quickly.
    const auto head = read_head(fd, std::min(until, clock::now() + std::chrono::seconds(2)));
    // "GET <target> HTTP/1.1"
    const auto sp1 = head.find(' ');
    const auto sp2 = sp1 == std::string::npos ? sp1 : head.find(' ', sp1 + 1);
    const std::string target =
        sp2 == std::string::npos ? std::string() : head.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string path = target.substr(0, target.find('?'));
    if (!head.starts_with("GET ") || path != impl_->opts.path) {
      answer(fd, "404 Not Found", "Not found.");
      ::close(fd);
      continue;
    }
    // Only the redirect of this authorization (its `state`) ends the wait: another local
    // program cannot cut the flow short.
    if (!state.empty() && query_value(target, "state") != state) {
      answer(fd, "400 Bad Request", "This is not the authorization this application waits for.");
      ::close(fd);
      continue;
    }
    answer(fd, "200 OK",
           "<!doctype html><title>mcp-cpp</title><p>Authorization received. You can close this "
           "window and return to the application.</p>");
    ::close(fd);
    return std::string("http://127.0.0.1:") + std::to_string(impl_->port) + target;
  }
}

}  // namespace mcp::auth
