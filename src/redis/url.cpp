// Redis URLs: redis://[[user]:password@]host[:port][/db] and unix://[[user]:password@]/path[?db=N],
// with percent-decoding of the user and password. Hand-written: the grammar is small, and every
// refusal names what is wrong.
#include <mcp/redis.hpp>

#include <charconv>
#include <string>

namespace mcp {

namespace {

constexpr std::size_t max_url = 4096;

error bad(std::string what) { return error{errc::invalid_params, "redis URL: " + std::move(what)}; }

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// `s` with %XX decoded; nothing for a bad escape.
std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_value(s[i + 1]);
    const int lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

/// A decimal in [0, max]; nothing otherwise.
std::optional<int> small_number(std::string_view s, int max) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  int v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size() || v < 0 || v > max) return std::nullopt;
  return v;
}

/// Splits "[user]:password@" off `rest` into `ep`.
result<void> take_credentials(std::string_view& rest, redis_endpoint& ep) {
  const auto at = rest.rfind('@');
  if (at == std::string_view::npos) return {};
  const std::string_view userinfo = rest.substr(0, at);
  rest.remove_prefix(at + 1);
  const auto colon = userinfo.find(':');
  if (colon == std::string_view::npos) {
    return bad("the credentials must be [user]:password");  // no bare user
  }
  auto user = percent_decode(userinfo.substr(0, colon));
  auto password = percent_decode(userinfo.substr(colon + 1));
  if (!user || !password) return bad("a bad %-escape in the credentials");
  if (password->empty()) return bad("an empty password");
  ep.user = std::move(*user);
  ep.password = std::move(*password);
  return {};
}

result<redis_endpoint> parse_tcp(std::string_view rest) {
  redis_endpoint ep;
  // The credentials end at the last '@' (a password may hold '/' or '@'), the authority at the
  // first '/' after them (the database number follows).
  if (auto r = take_credentials(rest, ep); !r) return r.error();
  const auto slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  const std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return bad("an unclosed [ in the host");
    ep.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("junk after the IPv6 host");
      port = after.substr(1);
      if (port.empty()) return bad("an empty port");
    }
  } else {
    const auto colon = authority.find(':');
    ep.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      if (port.empty()) return bad("an empty port");
    }
  }
  if (ep.host.empty()) return bad("no host");
  for (const char c : ep.host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == ':' || c == '_';
    if (!ok) return bad("a character that cannot be in a host name");
  }
  if (!port.empty()) {
    const auto p = small_number(port, 65535);
    if (!p || *p == 0) return bad("the port must be a number from 1 to 65535");
    ep.port = static_cast<std::uint16_t>(*p);
  }
  if (!path.empty()) {
    const auto db = small_number(path, 1'000'000);
    if (!db) return bad("the path must be a database number");
    ep.db = *db;
  }
  return ep;
}

result<redis_endpoint> parse_unix(std::string_view rest) {
  redis_endpoint ep;
  const auto query = rest.find('?');
  std::string_view q = query == std::string_view::npos ? "" : rest.substr(query + 1);
  rest = rest.substr(0, query);
  if (auto r = take_credentials(rest, ep); !r) return r.error();
  if (rest.empty() || rest.front() != '/') return bad("a unix socket path must be absolute");
  auto path = percent_decode(rest);
  if (!path) return bad("a bad %-escape in the path");
  if (path->find('\0') != std::string::npos) return bad("a NUL in the path");
  ep.unix_path = std::move(*path);
  ep.port = 0;
  while (!q.empty()) {
    const auto amp = q.find('&');
    const std::string_view item = q.substr(0, amp);
    q = amp == std::string_view::npos ? "" : q.substr(amp + 1);
    if (item.substr(0, 3) != "db=") return bad("the only query parameter is db");
    const auto db = small_number(item.substr(3), 1'000'000);
    if (!db) return bad("db must be a database number");
    ep.db = *db;
  }
  return ep;
}

}  // namespace

result<redis_endpoint> parse_redis_url(std::string_view url) {
  if (url.size() > max_url) return bad("longer than 4 KiB");
  for (const char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return bad("a space or control character");
    }
  }
  constexpr std::string_view tcp = "redis://";
  constexpr std::string_view unix_scheme = "unix://";
  if (url.substr(0, tcp.size()) == tcp) return parse_tcp(url.substr(tcp.size()));
  if (url.substr(0, unix_scheme.size()) == unix_scheme) {
    return parse_unix(url.substr(unix_scheme.size()));
  }
  return bad("the scheme must be redis:// or unix://");
}

}  // namespace mcp
