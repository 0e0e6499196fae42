#include "detail/call_scan.hpp"

#include <cstdint>
#include <cstring>
#include <utility>

#include "detail/message_storage.hpp"

// Small on purpose: the reader is worth having only while its code takes far fewer cache lines
// than the parser and decoder it stands in for (bench/RESULTS.md, "A plain tool call read
// without a document"). It reads in two passes: the text into string views (no allocation, no
// JSON value), then the request built from them. Its helpers are not inlined, so each exists
// once.

namespace mcp::detail {

namespace {

/// What one argument is: a string, an integer, true, false or null.
enum class kind : unsigned char { string, integer, yes, no, null };

/// Only the first `found::count` are read; their numbers and kinds are left unset until then
/// (the views are empty from their constructors).
struct argument {
  std::string_view key;
  std::string_view text;  // a string's contents
  std::int64_t number;
  kind what;
};

/// At most this many arguments: a call with more takes the general path.
constexpr std::size_t max_arguments = 16;

/// What the first pass found.
struct found {
  std::string_view id_text;  // a string id's contents
  std::int64_t id_number = 0;
  bool id_is_string = false;
  std::string_view name;
  bool name_first = false;  // `name` before `arguments` in `params`
  std::size_t count = 0;
  argument args[max_arguments];
};

/// A cursor over the text. Every reader returns false for anything it does not take, leaving
/// the text to the general parser.
class scanner {
 public:
  scanner(const char* p, const char* end) noexcept : p_(p), end_(end) {}

  [[gnu::noinline]] bool eat(char c) noexcept {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  /// Whether the text ends here (but for JSON whitespace).
  [[gnu::noinline]] bool done() noexcept {
    skip_space();
    return p_ == end_;
  }
  [[gnu::noinline]] char peek() noexcept {
    skip_space();
    return p_ == end_ ? '\0' : *p_;
  }
  /// A string of printable ASCII without escapes: its contents.
  [[gnu::noinline]] bool plain_string(std::string_view& out) noexcept {
    if (!eat('"')) return false;
    for (const char* start = p_; p_ != end_; ++p_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out = std::string_view(start, static_cast<std::size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c < 0x20U || c > 0x7eU || c == '\\') return false;
    }
    return false;
  }
  /// A member's key and its colon.
  bool key(std::string_view& out) noexcept { return plain_string(out) && eat(':'); }
  /// An integer as the general parser reads into int64: no fraction, exponent or leading zero,
  /// not "-0" (left to the general parser), within int64's range.
  [[gnu::noinline]] bool integer(std::int64_t& out) noexcept {
    skip_space();
    const bool negative = p_ != end_ && *p_ == '-';
    if (negative) ++p_;
    const char* start = p_;
    std::uint64_t n = 0;
    for (; p_ != end_ && *p_ >= '0' && *p_ <= '9'; ++p_) {
      if (p_ - start == 19) return false;  // 19 digits cannot overflow 64 bits
      n = n * 10 + static_cast<unsigned>(*p_ - '0');
    }
    const auto digits = p_ - start;
    if (digits == 0 || (*start == '0' && (digits > 1 || negative))) return false;
    if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    constexpr auto most = static_cast<std::uint64_t>(INT64_MAX);
    if (n > most + (negative ? 1U : 0U)) return false;
    out = negative ? static_cast<std::int64_t>(0U - n) : static_cast<std::int64_t>(n);
    return true;
  }
  /// One argument's value.
  [[gnu::noinline]] bool value(argument& a) noexcept {
    switch (peek()) {
      case '"':
        a.what = kind::string;
        return plain_string(a.text);
      case 't':
        a.what = kind::yes;
        return word("true");
      case 'f':
        a.what = kind::no;
        return word("false");
      case 'n':
        a.what = kind::null;
        return word("null");
      default:
        a.what = kind::integer;
        return integer(a.number);
    }
  }

 private:
  void skip_space() noexcept {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool word(std::string_view w) noexcept {
    if (static_cast<std::size_t>(end_ - p_) < w.size() ||
        std::memcmp(p_, w.data(), w.size()) != 0) {
      return false;
    }
    p_ += w.size();
    return true;
  }

  const char* p_;
  const char* end_;
};

/// `arguments`' members into `f`.
bool scan_arguments(scanner& s, found& f) noexcept {
  if (!s.eat('{')) return false;
  if (s.eat('}')) return true;
  do {
    if (f.count == max_arguments) return false;
    auto& a = f.args[f.count++];
    if (!s.key(a.key) || !s.value(a)) return false;
  } while (s.eat(','));
  return s.eat('}');
}

/// `params`' members into `f`: exactly `name` and `arguments`.
bool scan_params(scanner& s, found& f) noexcept {
  if (!s.eat('{')) return false;
  bool name = false, arguments = false;
  do {
    std::string_view k;
    if (!s.key(k)) return false;
    if (k == "name" && !name) {
      name = true;
      f.name_first = !arguments;
      if (!s.plain_string(f.name)) return false;
    } else if (k == "arguments" && !arguments) {
      arguments = true;
      if (!scan_arguments(s, f)) return false;
    } else {
      return false;
    }
  } while (s.eat(','));
  return s.eat('}') && name && arguments;
}

/// The whole message into `f`.
bool scan(scanner& s, found& f) noexcept {
  if (!s.eat('{')) return false;
  unsigned seen = 0;  // one bit a member
  do {
    std::string_view k, v;
    if (!s.key(k)) return false;
    unsigned bit = 0;
    bool ok = false;
    if (k == "jsonrpc") {
      bit = 1;
      ok = s.plain_string(v) && v == "2.0";
    } else if (k == "id") {
      bit = 2;
      f.id_is_string = s.peek() == '"';
      ok = f.id_is_string ? s.plain_string(f.id_text) : s.integer(f.id_number);
    } else if (k == "method") {
      bit = 4;
      ok = s.plain_string(v) && v == "tools/call";
    } else if (k == "params") {
      bit = 8;
      ok = scan_params(s, f);
    }
    if (!ok || (seen & bit) != 0) return false;
    seen |= bit;
  } while (s.eat(','));
  return s.eat('}') && s.done() && seen == 15;
}

/// `key: v` added to `o` (of `v`'s storage); false when `key` is there already.
[[gnu::noinline]] bool put(json::object& o, std::string_view key, json::value&& v) {
  return o.emplace(key, std::move(v)).second;
}

}  // namespace

bool scan_tool_call(std::string_view text, const json_limits& limits, jsonrpc::message& out) {
  // Within the general parser's limits with room to spare: its refusals stay its own.
  // (and within what a json::string holds, so that building one never throws but bad_alloc).
  if (text.size() >= limits.max_size || text.size() > json::string::max_size() ||
      limits.max_depth < 4) {
    return false;
  }
  scanner s(text.data(), text.data() + text.size());
  found f;
  if (!scan(s, f)) return false;
  const json::storage_ptr sp = make_message_storage();
  json::value arguments(sp);
  auto& args = arguments.emplace_object();
  args.reserve(f.count);
  for (std::size_t i = 0; i < f.count; ++i) {
    const auto& a = f.args[i];
    json::value v(sp);
    switch (a.what) {
      case kind::string:
        v.emplace_string().assign(a.text);
        break;
      case kind::integer:
        v.emplace_int64() = a.number;
        break;
      case kind::yes:
      case kind::no:
        v.emplace_bool() = a.what == kind::yes;
        break;
      case kind::null:
        break;
    }
    if (!put(args, a.key, std::move(v))) return false;  // a duplicate
  }
  json::value name(sp);
  name.emplace_string().assign(f.name);
  // Made in place, so that the params keep the message's storage (moving a value into one of
  // another storage would copy it).
  auto& req = out.emplace<jsonrpc::request>(
      jsonrpc::request{f.id_is_string ? jsonrpc::request_id(std::string(f.id_text))
                                      : jsonrpc::request_id(f.id_number),
                       "tools/call", json::object(sp)});
  req.params.reserve(2);
  if (f.name_first) {
    (void)put(req.params, "name", std::move(name));
    (void)put(req.params, "arguments", std::move(arguments));
  } else {
    (void)put(req.params, "arguments", std::move(arguments));
    (void)put(req.params, "name", std::move(name));
  }
  return true;
}

}  // namespace mcp::detail
