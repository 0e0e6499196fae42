// Value helpers: equality, numbers, code points, snippets.
#include "json_schema/values.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <utility>
#include <vector>

namespace mcp::json_schema::detail {

bool is_integer(const json::value& v) noexcept {
  switch (v.kind()) {
    case json::kind::int64:
    case json::kind::uint64:
      return true;
    case json::kind::double_: {
      const double d = v.get_double();
      return std::isfinite(d) && std::floor(d) == d;
    }
    default:
      return false;
  }
}

long double to_long_double(const json::value& v) noexcept {
  switch (v.kind()) {
    case json::kind::int64:
      return static_cast<long double>(v.get_int64());
    case json::kind::uint64:
      return static_cast<long double>(v.get_uint64());
    case json::kind::double_:
      return static_cast<long double>(v.get_double());
    default:
      return 0;
  }
}

bool json_equal(const json::value& a, const json::value& b, bool& too_deep,
                std::size_t max_depth) noexcept {
  if (a.is_number() && b.is_number()) {
    if (a.kind() == b.kind()) {
      if (a.is_int64()) return a.get_int64() == b.get_int64();
      if (a.is_uint64()) return a.get_uint64() == b.get_uint64();
    }
    return to_long_double(a) == to_long_double(b);
  }
  if (a.kind() != b.kind()) return false;
  if (max_depth == 0) {
    too_deep = true;
    return false;
  }
  switch (a.kind()) {
    case json::kind::null:
      return true;
    case json::kind::bool_:
      return a.get_bool() == b.get_bool();
    case json::kind::string:
      return a.get_string() == b.get_string();
    case json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!json_equal(x[i], y[i], too_deep, max_depth - 1)) return false;
      return true;
    }
    case json::kind::object: {
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& kv : x) {
        const auto* other = y.if_contains(kv.key());
        if (other == nullptr || !json_equal(kv.value(), *other, too_deep, max_depth - 1))
          return false;
      }
      return true;
    }
    default:
      return false;
  }
}

namespace {

__extension__ using u128 = unsigned __int128;

// A finite number as mantissa * 10^exponent with the shortest decimal mantissa.
struct decimal {
  u128 mantissa = 0;
  int exponent = 0;
  bool ok = true;
};

decimal to_decimal(const json::value& v) {
  decimal d;
  if (v.is_int64()) {
    const std::int64_t i = v.get_int64();
    d.mantissa = i < 0 ? static_cast<u128>(-(i + 1)) + 1 : static_cast<u128>(i);
    return d;
  }
  if (v.is_uint64()) {
    d.mantissa = v.get_uint64();
    return d;
  }
  const double x = std::fabs(v.get_double());
  if (!std::isfinite(x)) {
    d.ok = false;
    return d;
  }
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  // d.ddddde[+-]xx
  const std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
  const std::size_t e = s.find('e');
  int frac_digits = 0;
  for (std::size_t i = 0; i < e; ++i) {
    if (s[i] == '.') {
      frac_digits = static_cast<int>(e - i - 1);
      continue;
    }
    d.mantissa = d.mantissa * 10 + static_cast<unsigned>(s[i] - '0');
  }
  int exp10 = 0;
  const char* exp_begin = s.data() + e + 1;
  if (*exp_begin == '+') ++exp_begin;
  std::from_chars(exp_begin, s.data() + s.size(), exp10);
  d.exponent = exp10 - frac_digits;
  return d;
}

}  // namespace

bool is_multiple_of(const json::value& value, const json::value& divisor) noexcept {
  if ((value.is_int64() || value.is_uint64()) && (divisor.is_int64() || divisor.is_uint64())) {
    const decimal a = to_decimal(value);
    const decimal b = to_decimal(divisor);
    return b.mantissa != 0 && a.mantissa % b.mantissa == 0;
  }
  const decimal a = to_decimal(value);
  const decimal b = to_decimal(divisor);
  if (!a.ok) return false;
  if (!b.ok || b.mantissa == 0) return false;
  if (a.mantissa == 0) return true;
  // value/divisor = (ma/mb) * 10^(ea-eb): integral iff ma*10^(ea-eb) is divisible by mb
  // (when ea >= eb), or ma is divisible by mb*10^(eb-ea).
  if (a.exponent >= b.exponent) {
    u128 r = a.mantissa % b.mantissa;
    for (int k = a.exponent - b.exponent; k > 0 && r != 0; --k) r = (r * 10) % b.mantissa;
    return r == 0;
  }
  u128 m = b.mantissa;
  for (int k = b.exponent - a.exponent; k > 0; --k) {
    if (m > a.mantissa) return false;
    m *= 10;
  }
  return a.mantissa % m == 0;
}

namespace {

// A hash consistent with json_equal (numbers by value, objects order-independent).
std::size_t json_hash(const json::value& v, std::size_t depth) {
  if (depth > 512) return 0;
  switch (v.kind()) {
    case json::kind::null:
      return 1;
    case json::kind::bool_:
      return v.get_bool() ? 2 : 3;
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return std::hash<long double>{}(to_long_double(v));
    case json::kind::string:
      return std::hash<std::string_view>{}(v.get_string());
    case json::kind::array: {
      std::size_t h = 5;
      for (const auto& e : v.get_array()) h = h * 31 + json_hash(e, depth + 1);
      return h;
    }
    case json::kind::object: {
      std::size_t h = 7;
      for (const auto& kv : v.get_object())
        h += std::hash<std::string_view>{}(kv.key()) * 17 + json_hash(kv.value(), depth + 1);
      return h;
    }
  }
  return 0;
}

}  // namespace

bool find_duplicate(const json::array& a, std::size_t& first, std::size_t& second, bool& too_deep) {
  const std::size_t n = a.size();
  if (n <= 16) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        if (json_equal(a[i], a[j], too_deep)) {
          first = i;
          second = j;
          return true;
        }
    return false;
  }
  std::vector<std::pair<std::size_t, std::size_t>> hashed(n);
  for (std::size_t i = 0; i < n; ++i) hashed[i] = {json_hash(a[i], 0), i};
  std::sort(hashed.begin(), hashed.end());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n && hashed[j].first == hashed[i].first; ++j)
      if (json_equal(a[hashed[i].second], a[hashed[j].second], too_deep)) {
        first = std::min(hashed[i].second, hashed[j].second);
        second = std::max(hashed[i].second, hashed[j].second);
        return true;
      }
  return false;
}

std::size_t code_points(std::string_view s) noexcept {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1U : 0U;
  return n;
}

std::string snippet(const json::value& v, std::size_t max) {
  std::string s = to_json_string(v);
  if (s.size() > max) {
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0U) == 0x80U) --cut;
    s.resize(cut);
    s += "...";
  }
  return s;
}

const char* type_name(const json::value& v) noexcept {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
      return "integer";
    case json::kind::double_:
      return is_integer(v) ? "integer" : "number";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
  }
  return "unknown";
}

void append_pointer_token(std::string& out, std::string_view token) {
  out += '/';
  for (const char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
}

}  // namespace mcp::json_schema::detail
