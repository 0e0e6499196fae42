// A fetch or an HTTP client connection whose host name lookup never gets an answer still ends
// at its deadline.
//
// The process makes itself a world where DNS is silent, before anything else runs: its own
// network namespace (loopback only, up), a mount namespace where /etc/resolv.conf names
// 127.0.0.1, and a UDP socket on 127.0.0.1:53 that takes every query and answers none. A lookup
// there waits for the resolver's own timeouts (5 s per attempt, two attempts). Where the process
// may not make those namespaces (no user namespaces, no privilege), or where host names are not
// looked up in DNS at all (nsswitch), it says SKIPPED and why, and exits 77.
#include <mcp/auth.hpp>
#include <mcp/client.hpp>
#include <mcp/http_client.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "auth/jose.hpp"
#include "http/lookup.hpp"
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using clock_type = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr const char* silent_host = "keys.silent.test";

bool write_file(const char* path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  return static_cast<bool>(f.flush());
}

/// Why the silent world cannot be made here; empty when it is made.
std::string make_silent_dns() {
  const auto uid = ::getuid();
  const auto gid = ::getgid();
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) == 0) {
    // Root inside the new user namespace: the mounts and the loopback below are ours to change.
    if (!write_file("/proc/self/setgroups", "deny") ||
        !write_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
        !write_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1")) {
      return "cannot map the user into its namespace";
    }
  } else if (::unshare(CLONE_NEWNS | CLONE_NEWNET) != 0) {
    return std::string("cannot make network and mount namespaces: ") + std::strerror(errno);
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("cannot make the mounts private: ") + std::strerror(errno);
  }
  if (::access("/etc/resolv.conf", F_OK) == 0) {
    // Without a resolv.conf the resolver asks 127.0.0.1 anyway.
    char path[] = "/tmp/mcp-silent-dns-XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return "cannot write a resolv.conf";
    ::close(fd);
    if (!write_file(path, "nameserver 127.0.0.1\noptions timeout:5 attempts:2\n")) {
      return "cannot write a resolv.conf";
    }
    const int bound = ::mount(path, "/etc/resolv.conf", nullptr, MS_BIND, nullptr);
    ::unlink(path);  // the mount keeps the file
    if (bound != 0) return std::string("cannot mount a resolv.conf: ") + std::strerror(errno);
  }
  const int s = ::socket(AF_INET, SOCK_DGRAM, 0);
  ifreq lo{};
  std::strncpy(lo.ifr_name, "lo", IFNAMSIZ - 1);
  if (s < 0 || ::ioctl(s, SIOCGIFFLAGS, &lo) != 0) return "cannot read the loopback's flags";
  lo.ifr_flags = static_cast<short>(lo.ifr_flags | IFF_UP);
  if (::ioctl(s, SIOCSIFFLAGS, &lo) != 0) return "cannot bring the loopback up";
  sockaddr_in dns{};
  dns.sin_family = AF_INET;
  dns.sin_port = htons(53);
  dns.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // The silent server: queries queue on this socket, open until the process ends.
  if (::bind(s, reinterpret_cast<const sockaddr*>(&dns), sizeof dns) != 0) {
    return std::string("cannot listen on 127.0.0.1:53: ") + std::strerror(errno);
  }
  // The resolver must really be waiting on DNS: a lookup still unanswered after 1 s.
  std::vector<boost::asio::ip::tcp::endpoint> found;
  if (mcp::http_detail::lookup(silent_host, 443, clock_type::now() + std::chrono::seconds(1),
                               found) != boost::asio::error::timed_out) {
    return "host names are not looked up in DNS here (nsswitch): a lookup ended at once";
  }
  return {};
}

template <class F>
milliseconds time_of(F&& f) {
  const auto t0 = clock_type::now();
  f();
  return std::chrono::duration_cast<milliseconds>(clock_type::now() - t0);
}

TEST(SilentDns, AFetchEndsAtItsDeadlineWhileTheLookupHangs) {
  std::string why;
  const auto took = time_of([&] {
    try {
      (void)mcp::auth::detail::fetch_url(std::string("https://") + silent_host + "/jwks.json",
                                         milliseconds(300), 65536);
    } catch (const std::runtime_error& e) {
      why = e.what();
    }
  });
  EXPECT_NE(why.find("timed out"), std::string::npos) << why;
  EXPECT_LT(took, milliseconds(2000)) << "the lookup held the fetch past its deadline";
}

TEST(SilentDns, AVerifierWhoseKeysAreBehindAHungLookupRefusesInTime) {
  mcp::auth::jwt_options opts;
  opts.issuer = "https://issuer.silent.test";
  opts.audience = "https://mcp.silent.test/mcp";
  opts.keys.location = std::string("https://") + silent_host + "/jwks.json";
  opts.keys.fetch_timeout = milliseconds(300);
  const mcp::auth::jwt_verifier v(std::move(opts));
  std::string why;
  const auto took = time_of([&] {
    if (auto loaded = v.load_keys(); !loaded) why = loaded.error().message;
  });
  EXPECT_NE(why.find("timed out"), std::string::npos) << why;
  EXPECT_LT(took, milliseconds(2000));
}

TEST(SilentDns, AnHttpClientConnectionFailsWithinItsConnectTimeout) {
  auto conn = mcp::make_http_client_connection(
                  {.url = "http://mcp.silent.test:8080/mcp", .connect_timeout = milliseconds(300)})
                  .value();
  mcp::client_session client(conn);
  conn->on_receive([&client](std::string_view m) { client.receive(m); });
  mcp::result<mcp::json::object> init = mcp::json::object{};
  const auto took = time_of([&] { init = client.initialize(); });
  ASSERT_FALSE(init) << "initialized through a DNS that never answers";
  EXPECT_NE(init.error().message.find("timed out"), std::string::npos) << init.error().message;
  EXPECT_LT(took, milliseconds(2000));
  client.close();
}

}  // namespace

int main(int argc, char** argv) {
  // Namespaces first: unshare(CLONE_NEWUSER) refuses a process that runs threads.
  if (const auto why = make_silent_dns(); !why.empty()) {
    std::printf("SKIPPED: %s\n", why.c_str());
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
