#include <mcp/json.hpp>

#include <boost/json/error.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/parser.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "detail/plain_ascii.hpp"
#include "detail/utf8.hpp"

namespace mcp {

result<json::value> parse_json(std::string_view text, const json_limits& limits,
                               json::storage_ptr storage) {
  if (text.size() > limits.max_size) {
    return error{errc::limit_exceeded, "JSON text of " + std::to_string(text.size()) +
                                           " bytes exceeds the limit of " +
                                           std::to_string(limits.max_size) + " bytes"};
  }
  json::parse_options opts;
  opts.max_depth = limits.max_depth;
  // The parser's working stack starts in this buffer: small messages parse without allocating
  // for it.
  unsigned char stack[4096];
  json::parser p(json::storage_ptr(), opts, stack, sizeof stack);
  p.reset(std::move(storage));
  boost::system::error_code ec;
  p.write(text.data(), text.size(), ec);
  if (ec) {
    if (ec == json::error::too_deep) {
      return error{errc::limit_exceeded,
                   "JSON nesting exceeds the limit of " + std::to_string(limits.max_depth)};
    }
    return error{errc::parse_error, "Parse error: " + ec.message()};
  }
  return p.release();
}

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;  // start of the pending run of characters needing no escape
  for (std::size_t i = 0; i < s.size(); ++i) {
    while (i + 8 <= s.size() && detail::plain_ascii_block(s.data() + i)) i += 8;  // 8 at a time
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') continue;
    if (c >= 0x80) {
      // Valid UTF-8 is copied; each byte of an invalid sequence becomes U+FFFD, so that the
      // text is valid JSON whatever a peer or a handler put in the string.
      const std::size_t len = detail::decode_utf8(s, i).length;
      if (len != 0) {
        i += len - 1;
        continue;
      }
      out.append(s.data() + run, i - run);
      run = i + 1;
      out += "\\ufffd";
      continue;
    }
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        out += "\\u00";
        out.push_back(hex[c >> 4U]);
        out.push_back(hex[c & 0xFU]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

namespace {

template <class T>
void append_number(std::string& out, T v) {
  std::array<char, 32> buf{};
  auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), r.ptr);
}

void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) {  // JSON has no NaN or infinity
    out += "null";
    return;
  }
  append_number(out, d);
}

}  // namespace

void append_json(std::string& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      out += "null";
      break;
    case json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      break;
    case json::kind::int64:
      append_number(out, v.get_int64());
      break;
    case json::kind::uint64:
      append_number(out, v.get_uint64());
      break;
    case json::kind::double_:
      append_double(out, v.get_double());
      break;
    case json::kind::string:
      append_json_string(out, v.get_string());
      break;
    case json::kind::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) out.push_back(',');
        first = false;
        append_json(out, e);
      }
      out.push_back(']');
      break;
    }
    case json::kind::object:
      append_json(out, v.get_object());
      break;
  }
}

void append_json(std::string& out, const json::object& o) {
  out.push_back('{');
  bool first = true;
  for (const auto& kv : o) {
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, kv.key());
    out.push_back(':');
    append_json(out, kv.value());
  }
  out.push_back('}');
}

std::string to_json_string(const json::value& v) {
  std::string out;
  append_json(out, v);
  return out;
}

}  // namespace mcp
