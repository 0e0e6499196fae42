#include "detail/call_scan.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

#include "detail/message_storage.hpp"
#include "detail/plain_ascii.hpp"

// Small on purpose: the reader is worth having only while its code takes far fewer cache lines
// than the parser and decoder it stands in for (bench/RESULTS.md, "A plain tool call read
// without a document"). It reads in two passes: the text into string views (no allocation, no
// JSON value), then the request built from them, each value made in place. Its helpers are not
// inlined, so each exists once, but for the usual case of `eat` and `peek` (the next byte is
// the one looked for), which is a few instructions.

namespace mcp::detail {

namespace {

/// What one argument or `_meta` entry is: a string, an integer, true, false or null; in `_meta`
/// also the start of an object (`number`: how many members it has) and its end.
enum class kind : unsigned char { string, integer, yes, no, null, open, close };

/// Only the first `found::count` (`found::meta_count`) are read; nothing of them is set until
/// the scan writes it.
struct argument {
  std::string_view key;
  std::string_view text;  // a string's contents
  std::int64_t number;
  kind what;
};

/// At most this many arguments: a call with more takes the general path.
constexpr std::size_t max_arguments = 16;
/// At most this many entries in `_meta`: one a member, and one for the end of each object.
constexpr std::size_t max_meta = 32;
/// `_meta`'s objects nest at most this deep, `_meta` itself counted (depth 3 in the message).
constexpr std::size_t max_meta_depth = 4;

/// What the first pass found.
struct found {
  std::string_view id_text;  // a string id's contents
  std::int64_t id_number = 0;
  bool id_is_string = false;
  std::string_view name;
  bool name_first = false;  // `name` before `arguments` in `params`
  std::size_t count = 0;
  // In unions, so that they are not constructed: each entry is written before it is read.
  union {
    argument args[max_arguments];
  };
  /// `_meta` in `params` (where: 0 absent, else 1 + how many of `name` and `arguments` precede
  /// it), its entries in text order, and the deepest of its objects in the message.
  unsigned meta_at = 0;
  std::size_t meta_count = 0;
  std::size_t meta_members = 0;  // `_meta`'s own
  std::size_t depth = 3;
  std::string_view meta_text;   // `_meta`'s object, braces included
  bool meta_duplicate = false;  // two members of one of `_meta`'s objects have the same key
  /// Whether a `_meta` that may stay text is wanted (scan_tool_call's `lazy`), and whether it
  /// was found so: `kept` (set only then) says where it is.
  bool want_kept = false;
  bool is_kept = false;
  union {
    argument meta[max_meta];
  };
  union {
    detail::meta_text kept;
  };
  found() noexcept {}  // NOLINT: the entries are left unset
};

/// A cursor over the text. Every reader returns false for anything it does not take, leaving
/// the text to the general parser.
class scanner {
 public:
  scanner(const char* p, const char* end) noexcept : p_(p), end_(end) {}

  /// `c`, after any JSON whitespace. Inline for the usual case, `c` next.
  bool eat(char c) noexcept {
    if (p_ != end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return eat_after_space(c);
  }
  /// Whether the text ends here (but for JSON whitespace).
  [[gnu::noinline]] bool done() noexcept {
    skip_space();
    return p_ == end_;
  }
  /// Where the cursor is.
  [[nodiscard]] const char* here() const noexcept { return p_; }
  /// The byte at the cursor, NUL at the end.
  [[nodiscard]] char next() const noexcept { return p_ != end_ ? *p_ : '\0'; }
  char peek() noexcept {
    if (p_ != end_ && !is_space(*p_)) return *p_;
    skip_space();
    return p_ == end_ ? '\0' : *p_;
  }
  /// A string of ASCII from space up without escapes: its contents. Read 16 bytes at a time
  /// where it can be (SSE2), else 8.
  [[gnu::noinline]] bool plain_string(std::string_view& out) noexcept {
    if (!eat('"')) return false;
    const char* start = p_;
    for (;;) {
#if defined(__SSE2__)
      if (end_ - p_ >= 16) {
        const auto special = special_ascii_16(p_);
        if (special == 0) {
          p_ += 16;
          continue;
        }
        p_ += std::countr_zero(special);  // the first byte that is not plain
        return closing_quote(start, out);
      }
#endif
      if (end_ - p_ >= 8) {
        const auto special = special_ascii_bytes(p_);
        if (special == 0) {
          p_ += 8;
          continue;
        }
        p_ += std::countr_zero(special) / 8;  // the first byte that is not plain
      } else if (p_ == end_) {
        return false;
      } else if (const auto c = static_cast<unsigned char>(*p_);
                 c >= 0x20U && c < 0x80U && c != '"' && c != '\\') {
        ++p_;
        continue;
      }
      return closing_quote(start, out);
    }
  }
  /// A member's key and its colon.
  bool key(std::string_view& out) noexcept { return plain_string(out) && eat(':'); }
  /// `w` next, byte for byte (no whitespace before it).
  bool word(std::string_view w) noexcept {
    if (static_cast<std::size_t>(end_ - p_) < w.size() ||
        std::memcmp(p_, w.data(), w.size()) != 0) {
      return false;
    }
    p_ += w.size();
    return true;
  }
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
  static bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  [[gnu::noinline]] void skip_space() noexcept {
    while (p_ != end_ && is_space(*p_)) ++p_;
  }
  [[gnu::noinline]] bool eat_after_space(char c) noexcept {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }

  /// The string begun at `start` when the byte at the cursor (not plain) ends it.
  bool closing_quote(const char* start, std::string_view& out) noexcept {
    if (*p_ != '"') return false;
    out = std::string_view(start, static_cast<std::size_t>(p_ - start));
    ++p_;
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

/// The members of one of `_meta`'s objects (its `{` read, `open` its entry, its text kept in
/// `open.text`), at `depth` in `_meta`, into `f`: values as arguments' are, or objects of the same.
bool scan_meta_object(scanner& s, found& f, argument& open, std::size_t depth) noexcept {
  const char* start = s.here() - 1;  // the `{`
  open.what = kind::open;
  open.number = 0;
  f.depth = std::max(f.depth, depth + 2);
  std::uint8_t members[max_meta];  // where this object's are in `f.meta`, for duplicates
  if (!s.eat('}')) {
    do {
      if (f.meta_count == max_meta) return false;
      auto& a = f.meta[f.meta_count++];
      if (!s.key(a.key)) return false;
      const auto n = static_cast<std::size_t>(open.number);
      for (std::size_t i = 0; i < n; ++i) {
        f.meta_duplicate = f.meta_duplicate || f.meta[members[i]].key == a.key;
      }
      members[n] = static_cast<std::uint8_t>(f.meta_count - 1);
      ++open.number;
      if (s.peek() == '{') {
        if (depth == max_meta_depth || !s.eat('{') || !scan_meta_object(s, f, a, depth + 1)) {
          return false;
        }
      } else if (!s.value(a)) {
        return false;
      }
    } while (s.eat(','));
    if (!s.eat('}')) return false;
  }
  open.text = std::string_view(start, static_cast<std::size_t>(s.here() - start));
  if (f.meta_count == max_meta) return false;
  f.meta[f.meta_count++].what = kind::close;
  return true;
}

/// Which of the `_meta` members that may stay text the text has next, its key read (quoted, no
/// whitespace inside, byte for byte): 0 revision, 1 capabilities, 2 info, 3 log level; 4 none
/// (the cursor then anywhere).
unsigned kept_member(scanner& s) noexcept {
  constexpr std::string_view prefix = "io.modelcontextprotocol/";
  constexpr std::string_view version = "protocolVersion\"", caps = "clientCapabilities\"",
                             info = "clientInfo\"", level = "logLevel\"";
  static_assert(meta_version_key.substr(0, prefix.size()) == prefix &&
                meta_caps_key.substr(0, prefix.size()) == prefix &&
                meta_info_key.substr(0, prefix.size()) == prefix &&
                meta_level_key.substr(0, prefix.size()) == prefix);
  static_assert(meta_version_key.substr(prefix.size()) == version.substr(0, version.size() - 1) &&
                meta_caps_key.substr(prefix.size()) == caps.substr(0, caps.size() - 1) &&
                meta_info_key.substr(prefix.size()) == info.substr(0, info.size() - 1) &&
                meta_level_key.substr(prefix.size()) == level.substr(0, level.size() - 1));
  if (!s.eat('"') || !s.word(prefix)) return 4;
  switch (s.next()) {
    case 'p':
      return s.word(version) ? 0 : 4;
    case 'c':
      return s.word(caps) ? 1 : s.word(info) ? 2 : 4;
    case 'l':
      return s.word(level) ? 3 : 4;
    default:
      return 4;
  }
}

/// `_meta` (the cursor at its `{`) into `f.kept` when it may stay text: no duplicate key, its
/// members only the revision (a string) and the client's capabilities (an object), and maybe its
/// info and a log level (a string), in any order. Its entries counted and its objects read as
/// scan_meta_object reads them (so it takes no text that that refuses), but its own members not
/// kept as entries: nothing reads them again. False for anything else (`f`'s `_meta` entries
/// and the cursor then anywhere: the caller reads `_meta` again the general way).
bool scan_meta_kept(scanner& s, found& f) noexcept {
  if (!s.eat('{')) return false;
  const char* start = s.here() - 1;
  meta_text m;
  unsigned seen = 0;  // one bit a member
  std::size_t members = 0;
  do {
    if (f.meta_count == max_meta) return false;
    auto& a = f.meta[f.meta_count++];
    const unsigned which = kept_member(s);
    if (which == 4 || (seen & (1U << which)) != 0 || !s.eat(':')) return false;
    seen |= 1U << which;
    ++members;
    const char next = s.peek();
    if (which == 1 || (which == 2 && next == '{')) {
      if (!s.eat('{') || !scan_meta_object(s, f, a, 2)) return false;
      if (which == 1) {
        m.caps = a.text;
        m.caps_members = static_cast<std::size_t>(a.number);
      }
    } else if (which == 2) {
      if (!s.value(a)) return false;
    } else {
      if (next != '"' || !s.plain_string(which == 0 ? m.version : m.level)) return false;
      m.has_level = m.has_level || which == 3;
    }
  } while (s.eat(','));
  if (!s.eat('}') || (seen & 3U) != 3U || f.meta_duplicate) return false;
  if (f.meta_count == max_meta) return false;
  f.meta[f.meta_count++].what = kind::close;
  m.whole = std::string_view(start, static_cast<std::size_t>(s.here() - start));
  f.meta_members = members;
  f.meta_text = m.whole;
  f.kept = m;
  f.is_kept = true;
  return true;
}

/// `params`' members into `f`: exactly `name` and `arguments`, and `_meta` if present.
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
    } else if (k == "_meta" && f.meta_at == 0) {
      f.meta_at = 1U + (name ? 1U : 0U) + (arguments ? 1U : 0U);
      // Last in `params` (a member after it is refused below), maybe kept as text.
      if (f.want_kept && f.meta_at == 3) {
        const scanner at = s;
        if (scan_meta_kept(s, f)) continue;
        s = at;  // read again, the general way
        f.meta_count = 0;
        f.depth = 3;
        f.meta_duplicate = false;
      }
      argument whole;
      if (!s.eat('{') || !scan_meta_object(s, f, whole, 1)) return false;
      f.meta_members = static_cast<std::size_t>(whole.number);
      f.meta_text = whole.text;
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

/// `key` added to `o` with the value `a` says (an object's members are added by the caller),
/// made in place in `o`'s storage, of its kind at once: where it is, null when `key` is there
/// already.
[[gnu::noinline]] json::value* put(json::object& o, std::string_view key, const argument& a) {
  std::pair<json::object::iterator, bool> at;
  switch (a.what) {
    case kind::string:
      at = o.emplace(key, json::string_view(a.text.data(), a.text.size()));
      break;
    case kind::integer:
      at = o.emplace(key, a.number);
      break;
    case kind::yes:
    case kind::no:
      at = o.emplace(key, a.what == kind::yes);
      break;
    case kind::open:
      at = o.emplace(key, json::object_kind);
      if (at.second) at.first->value().get_object().reserve(static_cast<std::size_t>(a.number));
      break;
    case kind::null:
    case kind::close:
      at = o.emplace(key, nullptr);
      break;
  }
  return at.second ? &at.first->value() : nullptr;
}

/// An object of `members` members, or a string, as an entry that `put` makes.
argument object_of(std::size_t members) {
  return argument{
      .key = {}, .text = {}, .number = static_cast<std::int64_t>(members), .what = kind::open};
}
argument string_of(std::string_view text) {
  return argument{.key = {}, .text = text, .number = 0, .what = kind::string};
}

/// `arguments`' members into `args`; false on a duplicate key.
bool build_arguments(const found& f, json::object& args) {
  for (std::size_t i = 0; i < f.count; ++i) {
    if (put(args, f.args[i].key, f.args[i]) == nullptr) return false;
  }
  return true;
}

/// `_meta`'s members into `meta`; false on a duplicate key.
bool build_meta(const found& f, json::object& meta) {
  json::object* open[max_meta_depth];  // the objects being filled, `_meta` first
  std::size_t top = 0;
  open[0] = &meta;
  for (std::size_t i = 0; i + 1 < f.meta_count; ++i) {  // the last entry ends `_meta`
    const auto& a = f.meta[i];
    if (a.what == kind::close) {
      --top;
      continue;
    }
    auto* v = put(*open[top], a.key, a);
    if (v == nullptr) return false;
    if (a.what == kind::open) open[++top] = &v->get_object();
  }
  return true;
}

}  // namespace

json::object meta_object(std::string_view text, json::storage_ptr sp) {
  // Limits it is within (the scanner read it as JSON, at most four objects deep): never refused.
  auto v =
      parse_json(text, json_limits{.max_size = text.size() + 1, .max_depth = 8}, std::move(sp));
  if (!v || !v->is_object()) return json::object(v ? v->storage() : json::storage_ptr());
  return std::move(v->get_object());
}

void put_meta_text(json::object& params, std::string_view text) {
  if (text.empty()) return;
  params.emplace("_meta", meta_object(text, params.storage()));
}

bool scan_tool_call(std::string_view text, const json_limits& limits, jsonrpc::message& out,
                    meta_text* lazy) {
  // Within the general parser's limits with room to spare: its refusals stay its own.
  // (and within what a json::string holds, so that building one never throws but bad_alloc).
  if (text.size() >= limits.max_size || text.size() > json::string::max_size()) return false;
  scanner s(text.data(), text.data() + text.size());
  found f;
  f.want_kept = lazy != nullptr;
  if (!scan(s, f) || f.depth >= limits.max_depth) return false;
  if (f.is_kept) f.meta_at = 0;  // `_meta` stays text
  // Built in place, member by member, in the message's storage, in their order in the text:
  // `_meta` before the (meta_at)th of `name` and `arguments`. `out` is left untouched until
  // the whole request is made (a duplicate key leaves the text to the general path).
  json::object params(make_message_storage());
  params.reserve(f.meta_at != 0 ? 3 : 2);
  for (unsigned i = 0; i <= 2; ++i) {
    if (f.meta_at == i + 1 &&
        !build_meta(f, put(params, "_meta", object_of(f.meta_members))->get_object())) {
      return false;
    }
    if (i == 2) break;
    if ((i == 0) == f.name_first) {
      (void)put(params, "name", string_of(f.name));
    } else if (!build_arguments(f, put(params, "arguments", object_of(f.count))->get_object())) {
      return false;
    }
  }
  // Moved whole into the request: it keeps the message's storage.
  if (lazy != nullptr) *lazy = f.is_kept ? f.kept : meta_text{};
  out.emplace<jsonrpc::request>(jsonrpc::request{f.id_is_string
                                                     ? jsonrpc::request_id(std::string(f.id_text))
                                                     : jsonrpc::request_id(f.id_number),
                                                 "tools/call", std::move(params)});
  return true;
}

}  // namespace mcp::detail
