// Format checks (RFC 3339 dates and times, RFC 5321 addresses, RFC 1123 host names, IP
// addresses, RFC 3986 URIs via Boost.URL, UUIDs, JSON Pointers, ECMA-262 regexes).
#include "json_schema/formats.hpp"

#include <boost/url/parse.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "json_schema/idna.hpp"
#include "json_schema/regex.hpp"

namespace mcp::json_schema::detail {

namespace {

constexpr std::array<std::pair<std::string_view, format_kind>, 19> format_names{{
    {"date-time", format_kind::date_time},
    {"date", format_kind::date},
    {"time", format_kind::time},
    {"duration", format_kind::duration},
    {"email", format_kind::email},
    {"idn-email", format_kind::idn_email},
    {"hostname", format_kind::hostname},
    {"idn-hostname", format_kind::idn_hostname},
    {"ipv4", format_kind::ipv4},
    {"ipv6", format_kind::ipv6},
    {"uri", format_kind::uri},
    {"uri-reference", format_kind::uri_reference},
    {"iri", format_kind::iri},
    {"iri-reference", format_kind::iri_reference},
    {"uuid", format_kind::uuid},
    {"json-pointer", format_kind::json_pointer},
    {"relative-json-pointer", format_kind::relative_json_pointer},
    {"regex", format_kind::regex},
    {"uri-template", format_kind::uri_template},
}};

bool digit(char c) { return c >= '0' && c <= '9'; }
bool hex(char c) { return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Reads exactly `n` digits at s[i..]; advances i.
bool read_digits(std::string_view s, std::size_t& i, std::size_t n, int& out) {
  if (i + n > s.size()) return false;
  out = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (!digit(s[i + k])) return false;
    out = out * 10 + (s[i + k] - '0');
  }
  i += n;
  return true;
}

bool leap_year(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

bool valid_date(std::string_view s) {
  std::size_t i = 0;
  int y = 0, m = 0, d = 0;
  if (!read_digits(s, i, 4, y) || i >= s.size() || s[i++] != '-' || !read_digits(s, i, 2, m) ||
      i >= s.size() || s[i++] != '-' || !read_digits(s, i, 2, d) || i != s.size())
    return false;
  if (m < 1 || m > 12 || d < 1) return false;
  static constexpr std::array<int, 12> days{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (d > days[static_cast<std::size_t>(m - 1)]) return false;
  return !(m == 2 && d == 29 && !leap_year(y));
}

// full-time: HH:MM:SS[.frac](Z|+HH:MM|-HH:MM); a leap second must fall on 23:59 UTC.
bool valid_time(std::string_view s) {
  std::size_t i = 0;
  int h = 0, m = 0, sec = 0;
  if (!read_digits(s, i, 2, h) || i >= s.size() || s[i++] != ':' || !read_digits(s, i, 2, m) ||
      i >= s.size() || s[i++] != ':' || !read_digits(s, i, 2, sec))
    return false;
  if (h > 23 || m > 59 || sec > 60) return false;
  if (i < s.size() && s[i] == '.') {
    const std::size_t start = ++i;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == start) return false;
  }
  if (i >= s.size()) return false;
  int offset = 0;
  if (s[i] == 'Z' || s[i] == 'z') {
    ++i;
  } else if (s[i] == '+' || s[i] == '-') {
    const int sign = s[i] == '+' ? 1 : -1;
    ++i;
    int oh = 0, om = 0;
    if (!read_digits(s, i, 2, oh) || i >= s.size() || s[i++] != ':' || !read_digits(s, i, 2, om))
      return false;
    if (oh > 23 || om > 59) return false;
    offset = sign * (oh * 60 + om);
  } else {
    return false;
  }
  if (i != s.size()) return false;
  if (sec == 60) {
    const int utc = ((h * 60 + m - offset) % 1440 + 1440) % 1440;
    if (utc != 23 * 60 + 59) return false;
  }
  return true;
}

bool valid_date_time(std::string_view s) {
  if (s.size() < 20 || (s[10] != 'T' && s[10] != 't')) return false;
  return valid_date(s.substr(0, 10)) && valid_time(s.substr(11));
}

bool valid_duration(std::string_view s) {
  if (s.size() < 2 || s[0] != 'P') return false;
  std::size_t i = 1;
  // Date part units in order Y M D (contiguous), or W alone; time part H M S (contiguous).
  const std::string_view date_units = "YMD";
  const std::string_view time_units = "HMS";
  int last = -1;
  bool any = false, in_time = false, week = false, time_any = false;
  while (i < s.size()) {
    if (s[i] == 'T') {
      if (in_time) return false;
      in_time = true;
      last = -1;
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == start || i >= s.size()) return false;
    const char u = s[i++];
    if (!in_time && u == 'W') {
      if (any) return false;
      week = true;
      any = true;
      continue;
    }
    if (week) return false;
    const std::string_view units = in_time ? time_units : date_units;
    const std::size_t pos = units.find(u);
    if (pos == std::string_view::npos) return false;
    const int p = static_cast<int>(pos);
    if (last >= 0 && p != last + 1) return false;
    last = p;
    any = true;
    if (in_time) time_any = true;
  }
  if (in_time && !time_any) return false;
  return any;
}

bool valid_ipv4(std::string_view s) {
  int parts = 0;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = i;
    int v = 0;
    while (i < s.size() && digit(s[i]) && i - start < 3) v = v * 10 + (s[i++] - '0');
    const std::size_t len = i - start;
    if (len == 0 || v > 255 || (len > 1 && s[start] == '0')) return false;
    ++parts;
    if (i == s.size()) break;
    if (s[i] != '.' || parts == 4) return false;
    ++i;
  }
  return parts == 4;
}

bool valid_ipv6(std::string_view s) {
  if (s.empty()) return false;
  int groups = 0;
  bool compressed = false;
  std::size_t i = 0;
  if (s.substr(0, 2) == "::") {
    compressed = true;
    i = 2;
    if (i == s.size()) return true;
  } else if (s[0] == ':') {
    return false;
  }
  while (i < s.size()) {
    const std::size_t start = i;
    while (i < s.size() && hex(s[i]) && i - start < 5) ++i;
    const std::size_t len = i - start;
    if (i < s.size() && s[i] == '.') {
      // Trailing IPv4: counts as two groups.
      if (!valid_ipv4(s.substr(start))) return false;
      groups += 2;
      i = s.size();
      break;
    }
    if (len == 0 || len > 4) return false;
    ++groups;
    if (i == s.size()) break;
    if (s[i] != ':') return false;
    ++i;
    if (i < s.size() && s[i] == ':') {
      if (compressed) return false;
      compressed = true;
      ++i;
      if (i == s.size()) break;
    } else if (i == s.size()) {
      return false;  // trailing single colon
    }
  }
  return compressed ? groups < 8 : groups == 8;
}

constexpr std::array<bool, 256> atext_table = [] {
  std::array<bool, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view("!#$%&'*+-/=?^_`{|}~"))
    t[static_cast<unsigned char>(c)] = true;
  return t;
}();

bool atext(char c) { return atext_table[static_cast<unsigned char>(c)]; }

bool valid_email(std::string_view s, bool idn) {
  const std::size_t at = s.rfind('@');
  if (at == std::string_view::npos || at == 0 || at + 1 >= s.size()) return false;
  const std::string_view local = s.substr(0, at);
  const std::string_view domain = s.substr(at + 1);
  if (local.size() >= 2 && local.front() == '"' && local.back() == '"') {
    for (std::size_t i = 1; i + 1 < local.size(); ++i) {
      const auto c = static_cast<unsigned char>(local[i]);
      if (c == '\\') {
        ++i;
        continue;
      }
      if (c == '"' || c < 0x20) return false;
    }
  } else {
    if (local.front() == '.' || local.back() == '.') return false;
    char prev = 0;
    for (const char c : local) {
      if (c == '.' && prev == '.') return false;
      const bool non_ascii = static_cast<unsigned char>(c) >= 0x80;
      if (c != '.' && !atext(c) && !(idn && non_ascii)) return false;
      prev = c;
    }
  }
  if (domain.front() == '[') {
    if (domain.back() != ']') return false;
    const std::string_view lit = domain.substr(1, domain.size() - 2);
    if (lit.substr(0, 5) == "IPv6:") return valid_ipv6(lit.substr(5));
    return valid_ipv4(lit);
  }
  return idn ? valid_idn_hostname(domain) : valid_hostname(domain);
}

bool valid_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < 36; ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (!hex(s[i])) {
      return false;
    }
  }
  return true;
}

bool valid_json_pointer(std::string_view s) {
  if (s.empty()) return true;
  if (s[0] != '/') return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '~' && (i + 1 >= s.size() || (s[i + 1] != '0' && s[i + 1] != '1'))) return false;
  return true;
}

bool valid_relative_json_pointer(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && digit(s[i])) ++i;
  if (i == 0 || (i > 1 && s[0] == '0')) return false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {  // index manipulation
    const std::size_t start = ++i;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == start || (i - start > 1 && s[start] == '0') || (s[start] == '0' && i - start == 1))
      return false;
  }
  const std::string_view rest = s.substr(i);
  return rest == "#" || valid_json_pointer(rest);
}

// Percent-encodes non-ASCII bytes so Boost.URL's RFC 3986 grammar can check an IRI.
std::string iri_to_uri(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  static constexpr char digits[] = "0123456789ABCDEF";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      out += '%';
      out += digits[u >> 4U];
      out += digits[u & 15U];
    } else {
      out += c;
    }
  }
  return out;
}

// Checks Boost.URL's grammar lets through: the authority (after "//", up to the path, query
// or fragment) has at most one '@' and its port, if any, is all digits.
bool authority_ok(std::string_view s) {
  const std::size_t start = s.find("//");
  const std::size_t first_delim = s.find_first_of("/?#");
  if (start == std::string_view::npos || start != first_delim) return true;
  std::string_view auth = s.substr(start + 2);
  auth = auth.substr(0, std::min(auth.find_first_of("/?#"), auth.size()));
  if (std::count(auth.begin(), auth.end(), '@') > 1) return false;
  const std::size_t at = auth.find('@');
  std::string_view host_port = at == std::string_view::npos ? auth : auth.substr(at + 1);
  if (!host_port.empty() && host_port.front() == '[') {
    const std::size_t close = host_port.find(']');
    if (close == std::string_view::npos) return false;
    host_port = host_port.substr(close + 1);
    if (!host_port.empty() && host_port.front() != ':') return false;
  }
  const std::size_t colon = host_port.find(':');
  if (colon == std::string_view::npos) return true;
  const std::string_view port = host_port.substr(colon + 1);
  return std::all_of(port.begin(), port.end(), [](char c) { return digit(c); });
}

// ABNF literals are case-insensitive: "[V1.x]" is an IPvFuture literal like "[v1.x]", which
// Boost.URL's grammar spells in lowercase only.
std::string lower_ipvfuture(std::string_view s) {
  std::string out(s);
  const std::size_t p = out.find("[V");
  if (p != std::string::npos) out[p + 1] = 'v';
  return out;
}

bool valid_uri(std::string_view s) {
  if (s.find("[V") != std::string_view::npos) {
    const std::string lowered = lower_ipvfuture(s);
    return boost::urls::parse_uri(lowered).has_value() && authority_ok(lowered);
  }
  return boost::urls::parse_uri(s).has_value() && authority_ok(s);
}
bool valid_uri_reference(std::string_view s) {
  return boost::urls::parse_uri_reference(s).has_value() && authority_ok(s);
}

// RFC 6570: literals and {expressions} of [operator] varspec *("," varspec).
bool valid_uri_template(std::string_view s) {
  auto pct = [&](std::size_t i) { return i + 2 < s.size() && hex(s[i + 1]) && hex(s[i + 2]); };
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c != '{') {
      if (c <= 0x20 || c == 0x7F ||
          std::string_view("\"<>\\^`|}").find(static_cast<char>(c)) != std::string_view::npos)
        return false;
      if (c == '%') {
        if (!pct(i)) return false;
        i += 3;
        continue;
      }
      ++i;
      continue;
    }
    ++i;  // '{'
    if (i < s.size() && std::string_view("+#./;?&=,!@|").find(s[i]) != std::string_view::npos) ++i;
    while (true) {
      // varname: varchar *(["."] varchar)
      bool any = false, after_dot = false;
      while (i < s.size()) {
        if (alpha(s[i]) || digit(s[i]) || s[i] == '_') {
          ++i;
        } else if (s[i] == '%' && pct(i)) {
          i += 3;
        } else if (s[i] == '.' && any && !after_dot) {
          ++i;
          after_dot = true;
          continue;
        } else {
          break;
        }
        any = true;
        after_dot = false;
      }
      if (!any || after_dot || i >= s.size()) return false;
      if (s[i] == '*') {
        ++i;
      } else if (s[i] == ':') {
        const std::size_t start = ++i;
        while (i < s.size() && digit(s[i])) ++i;
        if (i == start || i - start > 4 || s[start] == '0') return false;
      }
      if (i >= s.size()) return false;
      if (s[i] == '}') {
        ++i;
        break;
      }
      if (s[i] != ',') return false;
      ++i;
    }
  }
  return true;
}

}  // namespace

format_kind format_from_name(std::string_view name) noexcept {
  for (const auto& [n, k] : format_names)
    if (n == name) return k;
  return format_kind::none;
}

const char* format_name(format_kind f) noexcept {
  for (const auto& [n, k] : format_names)
    if (k == f) return n.data();
  return "unknown";
}

bool check_format(format_kind f, std::string_view s) {
  switch (f) {
    case format_kind::none:
      return true;
    case format_kind::date_time:
      return valid_date_time(s);
    case format_kind::date:
      return valid_date(s);
    case format_kind::time:
      return valid_time(s);
    case format_kind::duration:
      return valid_duration(s);
    case format_kind::email:
      return valid_email(s, false);
    case format_kind::idn_email:
      return valid_email(s, true);
    case format_kind::hostname:
      return valid_hostname(s);
    case format_kind::idn_hostname:
      return valid_idn_hostname(s);
    case format_kind::ipv4:
      return valid_ipv4(s);
    case format_kind::ipv6:
      return valid_ipv6(s);
    case format_kind::uri:
      return valid_uri(s);
    case format_kind::uri_reference:
      return valid_uri_reference(s);
    case format_kind::iri:
      return valid_uri(iri_to_uri(s));
    case format_kind::iri_reference:
      return valid_uri_reference(iri_to_uri(s));
    case format_kind::uuid:
      return valid_uuid(s);
    case format_kind::json_pointer:
      return valid_json_pointer(s);
    case format_kind::relative_json_pointer:
      return valid_relative_json_pointer(s);
    case format_kind::regex: {
      std::string error;
      return ecma_regex::compile(s, error) != nullptr;
    }
    case format_kind::uri_template:
      return valid_uri_template(s);
  }
  return true;
}

}  // namespace mcp::json_schema::detail
