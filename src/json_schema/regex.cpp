// ECMA-262 pattern translation to Boost.Regex, and the fast matcher for simple patterns.
#include "json_schema/regex.hpp"

#include "detail/utf8.hpp"

// Bound Boost.Regex's backtracking: it gives up (throws, reported as too_complex) after about
// max(1,000,000, pattern states^2 x subject length) steps instead of the default 100,000,000,
// so a catastrophic pattern costs milliseconds, not seconds. Only this file uses Boost.Regex.
// Boost casts the macro C-style inside its templates; the cast is reported where the macro is
// spelled, here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#define BOOST_REGEX_MAX_STATE_COUNT 1000000
#include <boost/regex.hpp>
#pragma GCC diagnostic pop

#include <array>
#include <cctype>
#include <cstdint>
#include <exception>
#include <locale>
#include <optional>
#include <vector>

namespace mcp::json_schema::detail {

void utf8_to_utf32(std::string_view s, std::u32string& out) {
  for (std::size_t i = 0; i < s.size();) {
    const auto ch = mcp::detail::decode_utf8(s, i);
    if (ch.length == 0) {  // not produced by the JSON parser, which rejects invalid UTF-8
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    out.push_back(ch.code_point);
    i += ch.length;
  }
}

namespace {

// ---------------------------------------------------------------------------------------------
// Translation ECMA-262 -> Boost perl syntax, on code points.

constexpr std::u32string_view ecma_space =
    U"\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    U"\\x{205F}\\x{3000}\\x{FEFF}";

bool is_hex(char32_t c) {
  return (c >= U'0' && c <= U'9') || (c >= U'a' && c <= U'f') || (c >= U'A' && c <= U'F');
}

// First code points of the ten-digit blocks of Unicode category Nd (Unicode 14).
constexpr std::array<char32_t, 66> decimal_digit_blocks{
    0x30,    0x660,   0x6F0,   0x7C0,   0x966,   0x9E6,   0xA66,   0xAE6,   0xB66,   0xBE6,
    0xC66,   0xCE6,   0xD66,   0xDE6,   0xE50,   0xED0,   0xF20,   0x1040,  0x1090,  0x17E0,
    0x1810,  0x1946,  0x19D0,  0x1A80,  0x1A90,  0x1B50,  0x1BB0,  0x1C40,  0x1C50,  0xA620,
    0xA8D0,  0xA900,  0xA9D0,  0xA9F0,  0xAA50,  0xABF0,  0xFF10,  0x104A0, 0x10D30, 0x11066,
    0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0,
    0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2,
    0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0};

const std::u32string& decimal_digit_class() {
  static const std::u32string cls = [] {
    std::u32string s;
    auto hex = [&](char32_t c) {
      static constexpr char digits[] = "0123456789ABCDEF";
      s += U"\\x{";
      bool started = false;
      for (int shift = 20; shift >= 0; shift -= 4) {
        const auto d = static_cast<std::size_t>((c >> static_cast<unsigned>(shift)) & 0xFU);
        if (d != 0 || started || shift == 0) {
          s += static_cast<char32_t>(digits[d]);
          started = true;
        }
      }
      s += U'}';
    };
    for (const char32_t b : decimal_digit_blocks) {
      hex(b);
      s += U'-';
      hex(b + 9);
    }
    return s;
  }();
  return cls;
}

// The class body for a Unicode property name; [:alpha:] and friends are evaluated with the
// C.UTF-8 locale.
const char32_t* unicode_class(const std::u32string& name) {
  if (name == U"digit" || name == U"Nd" || name == U"Decimal_Number")
    return decimal_digit_class().c_str();
  if (name == U"L" || name == U"Letter" || name == U"Alphabetic" || name == U"Alpha")
    return U"[:alpha:]";
  if (name == U"Lu" || name == U"Uppercase_Letter" || name == U"Uppercase") return U"[:upper:]";
  if (name == U"Ll" || name == U"Lowercase_Letter" || name == U"Lowercase") return U"[:lower:]";
  if (name == U"White_Space" || name == U"space") return U"[:space:]";
  if (name == U"P" || name == U"Punctuation") return U"[:punct:]";
  return nullptr;
}

void append_code_point(std::u32string& out, char32_t c) {
  static constexpr char32_t hex[] = U"0123456789abcdef";
  out += U"\\x{";
  bool started = false;
  for (int shift = 20; shift >= 0; shift -= 4) {
    const char32_t d = (c >> static_cast<unsigned>(shift)) & 0xFU;
    if (d == 0 && !started && shift != 0) continue;
    started = true;
    out += hex[d];
  }
  out += U'}';
}

// Returns the translated pattern, or nullopt with `error` set.
std::optional<std::u32string> translate(const std::u32string& p, std::string& error) {
  std::u32string out;
  out.reserve(p.size() + 16);
  bool in_class = false;
  std::size_t depth = 0;  // open groups
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char32_t c = p[i];
    if (!in_class && c == U'(' && ++depth > max_group_depth) {
      // Both matchers' parsers recurse per group: refuse before either runs.
      error = "pattern nests groups more than " + std::to_string(max_group_depth) + " deep";
      return std::nullopt;
    }
    if (!in_class && c == U')' && depth > 0) --depth;
    if (c == U'\\') {
      if (i + 1 >= p.size()) {
        error = "pattern ends with a lone backslash";
        return std::nullopt;
      }
      const char32_t e = p[++i];
      switch (e) {
        case U'd':
          out += in_class ? U"0-9" : U"[0-9]";
          break;
        case U'D':
          out += in_class ? U"\\x{0}-/:-\\x{10FFFF}" : U"[^0-9]";
          break;
        case U'w':
          out += in_class ? U"A-Za-z0-9_" : U"[A-Za-z0-9_]";
          break;
        case U'W':
          out += in_class ? U"\\x{0}-/:-@\\[-\\^`\\{-\\x{10FFFF}" : U"[^A-Za-z0-9_]";
          break;
        case U's':
          if (!in_class) out += U'[';
          out += ecma_space;
          if (!in_class) out += U']';
          break;
        case U'S':
          if (in_class) {
            out += U"\\S";  // rare; Boost's own (ASCII) notion of space
          } else {
            out += U"[^";
            out += ecma_space;
            out += U']';
          }
          break;
        case U'u':
          if (i + 4 < p.size() && is_hex(p[i + 1]) && is_hex(p[i + 2]) && is_hex(p[i + 3]) &&
              is_hex(p[i + 4])) {
            out += U"\\x{";
            out.append(p, i + 1, 4);
            out += U'}';
            i += 4;
          } else if (i + 1 < p.size() && p[i + 1] == U'{') {
            out += U"\\x";  // \u{...} -> \x{...}
          } else {
            out += U'u';
          }
          break;
        case U'c':
          if (i + 1 < p.size() &&
              ((p[i + 1] >= U'a' && p[i + 1] <= U'z') || (p[i + 1] >= U'A' && p[i + 1] <= U'Z'))) {
            out += U"\\c";
            out += p[++i];
          } else {
            out += U"\\\\c";
          }
          break;
        case U'p':
        case U'P': {
          const std::size_t close = p.find(U'}', i);
          if (i + 1 >= p.size() || p[i + 1] != U'{' || close == std::u32string::npos) {
            error = "\\p and \\P need a property name in braces";
            return std::nullopt;
          }
          const std::u32string name = p.substr(i + 2, close - i - 2);
          const char32_t* cls = unicode_class(name);
          if (cls == nullptr || (e == U'P' && in_class)) {
            error = "unsupported Unicode property escape";
            return std::nullopt;
          }
          if (in_class) {
            out += cls;
          } else {
            out += e == U'p' ? U"[" : U"[^";
            out += cls;
            out += U']';
          }
          i = close;
          break;
        }
        case U'Z':
        case U'z':
        case U'A':
        case U'a':
        case U'e':
        case U'G':
        case U'Q':
        case U'E':
        case U'l':
        case U'L':
        case U'U':
        case U'h':
        case U'H':
        case U'K':
        case U'R':
        case U'X':
        case U'C':
        case U'N':
          error = std::string("\\") + static_cast<char>(e) + " is not an ECMA-262 escape";
          return std::nullopt;
        case U'b':
        case U'B':
        case U'f':
        case U'n':
        case U'r':
        case U't':
        case U'v':
        case U'x':
        case U'k':
          out += U'\\';
          out += e;
          break;
        default:
          if (e >= U'0' && e <= U'9') {  // \0 and back-references mean the same in both
            out += U'\\';
            out += e;
            break;
          }
          // An identity escape: the character itself, as ECMA-262 reads it. Written as a code
          // point, because Boost gives some escaped characters a meaning of their own
          // (\` \' buffer start and end, \< \> word start and end, \g, \i, \y, ...).
          append_code_point(out, e);
      }
      continue;
    }
    if (in_class) {
      if (c == U']') in_class = false;
      if (c == U'[' && i + 1 < p.size() && p[i + 1] == U':') {
        out += U"\\[";  // POSIX classes do not exist in ECMA-262
        continue;
      }
      out += c;
      continue;
    }
    if (c == U'(' && i + 1 < p.size() && p[i + 1] == U'?') {
      const char32_t k = i + 2 < p.size() ? p[i + 2] : U'\0';
      const bool lookbehind_or_name = k == U'<';
      if (k != U':' && k != U'=' && k != U'!' && !lookbehind_or_name) {
        error = "(? groups other than (?:, (?=, (?!, (?<=, (?<! and (?<name> are not ECMA-262";
        return std::nullopt;
      }
    }
    switch (c) {
      case U'[':
        in_class = true;
        out += c;
        if (i + 1 < p.size() && p[i + 1] == U'^') out += p[++i];
        if (i + 1 < p.size() && p[i + 1] == U']') {
          // ECMA: `[]` matches nothing, `[^]` matches anything.
          const bool negated = out.back() == U'^';
          out.resize(out.size() - (negated ? 2 : 1));
          out += negated ? U"[\\x{0}-\\x{10FFFF}]" : U"(?!)";
          in_class = false;
          ++i;
        }
        break;
      case U'.':
        out += U"[^\\n\\r\\x{2028}\\x{2029}]";
        break;
      case U'^':
        out += U"\\A";
        break;
      case U'$':
        out += U"\\z";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The simple matcher: ASCII classes and literals with quantifiers, optional groups, anchors.

struct ascii_set {
  std::array<std::uint64_t, 2> bits{};
  void add(unsigned char c) { bits[c >> 6U] |= std::uint64_t{1} << (c & 63U); }
  void add_range(unsigned char a, unsigned char b) {
    for (unsigned c = a; c <= b; ++c) add(static_cast<unsigned char>(c));
  }
  [[nodiscard]] bool has(unsigned char c) const {
    return c < 128 && ((bits[c >> 6U] >> (c & 63U)) & 1U) != 0;
  }
};

struct simple_item {
  ascii_set set;
  std::vector<simple_item> group;  // non-empty: a group (max 1 repetition)
  std::size_t min = 1, max = 1;
};

}  // namespace

struct ecma_regex::simple {
  std::vector<simple_item> items;
  bool anchored_start = false;
  bool anchored_end = false;
};

// C.UTF-8, whose ctype classifies non-ASCII code points (for [:alpha:] and friends).
const std::locale& unicode_locale() {
  static const std::locale loc = [] {
    try {
      return std::locale("C.UTF-8");
    } catch (const std::exception&) {
      return std::locale::classic();
    }
  }();
  return loc;
}

struct ecma_regex::impl {
  boost::basic_regex<wchar_t> re;
};

namespace {

class simple_parser {
 public:
  explicit simple_parser(std::string_view p) : p_(p) {}

  std::optional<ecma_regex::simple> parse() {
    ecma_regex::simple s;
    if (!p_.empty() && p_.front() == '^') {
      s.anchored_start = true;
      ++i_;
    }
    std::string_view body = p_;
    if (body.size() > i_ && body.back() == '$' && !escaped_end()) {
      s.anchored_end = true;
      end_ = body.size() - 1;
    } else {
      end_ = body.size();
    }
    if (!parse_seq(s.items, false) || i_ != end_) return std::nullopt;
    return s;
  }

 private:
  bool escaped_end() const {
    std::size_t n = 0;
    for (std::size_t k = p_.size() - 1; k > 0 && p_[k - 1] == '\\'; --k) ++n;
    return n % 2 == 1;
  }

  static bool special(char c) {
    return c == '.' || c == '|' || c == '*' || c == '+' || c == '?' || c == '(' || c == ')' ||
           c == '[' || c == ']' || c == '{' || c == '}' || c == '^' || c == '$' || c == '\\';
  }

  bool parse_seq(std::vector<simple_item>& items, bool in_group) {
    while (i_ < end_) {
      const char c = p_[i_];
      if (c == ')') return in_group;
      simple_item it;
      if (c == '(') {
        ++i_;
        if (p_.substr(i_, 2) == "?:") i_ += 2;
        if (i_ < end_ && p_[i_] == '?') return false;  // lookaround, named group
        if (!parse_seq(it.group, true) || i_ >= end_ || p_[i_] != ')' || it.group.empty())
          return false;
        ++i_;
      } else if (c == '[') {
        if (!parse_class(it.set)) return false;
      } else if (c == '\\') {
        if (!parse_escape(it.set)) return false;
      } else if (special(c) || static_cast<unsigned char>(c) >= 128) {
        return false;
      } else {
        it.set.add(static_cast<unsigned char>(c));
        ++i_;
      }
      if (!parse_quantifier(it)) return false;
      if (!it.group.empty() && it.max > 1) return false;
      items.push_back(std::move(it));
    }
    return !in_group;
  }

  bool parse_escape(ascii_set& set) {
    if (i_ + 1 >= end_) return false;
    const char e = p_[i_ + 1];
    i_ += 2;
    if (e == 'd') {
      set.add_range('0', '9');
    } else if (e == 'w') {
      set.add_range('a', 'z');
      set.add_range('A', 'Z');
      set.add_range('0', '9');
      set.add('_');
    } else if (static_cast<unsigned char>(e) < 128 &&
               !std::isalnum(static_cast<unsigned char>(e))) {
      set.add(static_cast<unsigned char>(e));
    } else {
      return false;
    }
    return true;
  }

  bool parse_class(ascii_set& set) {
    ++i_;  // '['
    if (i_ < end_ && (p_[i_] == '^' || p_[i_] == ']')) return false;
    while (i_ < end_ && p_[i_] != ']') {
      unsigned char lo = 0;
      if (p_[i_] == '\\') {
        ascii_set one;
        const std::size_t before = i_;
        if (!parse_escape(one)) return false;
        const char e = p_[before + 1];
        if (e == 'd' || e == 'w') {
          for (std::size_t k = 0; k < 2; ++k) set.bits[k] |= one.bits[k];
          continue;
        }
        lo = static_cast<unsigned char>(e);
      } else {
        lo = static_cast<unsigned char>(p_[i_]);
        if (lo >= 128 || lo == '[') return false;
        ++i_;
      }
      if (i_ + 1 < end_ && p_[i_] == '-' && p_[i_ + 1] != ']') {
        unsigned char hi = static_cast<unsigned char>(p_[i_ + 1]);
        if (hi == '\\' || hi >= 128 || hi < lo) return false;
        i_ += 2;
        set.add_range(lo, hi);
      } else {
        set.add(lo);
      }
    }
    if (i_ >= end_) return false;
    ++i_;  // ']'
    return true;
  }

  bool parse_number(std::size_t& v) {
    const std::size_t start = i_;
    v = 0;
    while (i_ < end_ && p_[i_] >= '0' && p_[i_] <= '9') {
      v = v * 10 + static_cast<std::size_t>(p_[i_] - '0');
      if (v > 10000) return false;
      ++i_;
    }
    return i_ > start;
  }

  bool parse_quantifier(simple_item& it) {
    if (i_ >= end_) return true;
    const char c = p_[i_];
    if (c == '?' || c == '*' || c == '+') {
      ++i_;
      it.min = c == '+' ? 1 : 0;
      it.max = c == '?' ? 1 : SIZE_MAX;
    } else if (c == '{') {
      ++i_;
      if (!parse_number(it.min)) return false;
      it.max = it.min;
      if (i_ < end_ && p_[i_] == ',') {
        ++i_;
        it.max = SIZE_MAX;
        if (i_ < end_ && p_[i_] != '}' && !parse_number(it.max)) return false;
      }
      if (i_ >= end_ || p_[i_] != '}' || it.max < it.min) return false;
      ++i_;
    } else {
      return true;
    }
    return i_ >= end_ || p_[i_] != '?';  // lazy quantifiers: leave to Boost
  }

  std::string_view p_;
  std::size_t i_ = 0;
  std::size_t end_ = 0;
};

struct continuation {
  const std::vector<simple_item>* seq;
  std::size_t index;
  const continuation* next;
};

class simple_matcher {
 public:
  simple_matcher(const ecma_regex::simple& s, std::string_view subject) : s_(s), text_(subject) {}

  // nullopt: step budget exhausted, let Boost decide.
  std::optional<bool> search() {
    const std::size_t last = s_.anchored_start ? 0 : text_.size();
    for (std::size_t start = 0; start <= last; ++start) {
      if (match(s_.items, 0, start, nullptr))
        return !overflow_ ? std::optional<bool>(true) : std::nullopt;
      if (overflow_) return std::nullopt;
    }
    return false;
  }

 private:
  bool match(const std::vector<simple_item>& seq, std::size_t i, std::size_t pos,
             const continuation* k) {
    if (++steps_ > 20000) {
      overflow_ = true;
      return false;
    }
    if (i == seq.size()) {
      if (k != nullptr) return match(*k->seq, k->index, pos, k->next);
      return !s_.anchored_end || pos == text_.size();
    }
    const simple_item& it = seq[i];
    if (!it.group.empty()) {
      const continuation after{&seq, i + 1, k};
      if (match(it.group, 0, pos, &after)) return true;
      return !overflow_ && it.min == 0 && match(seq, i + 1, pos, k);
    }
    std::size_t n = 0;
    while (n < it.max && pos + n < text_.size() &&
           it.set.has(static_cast<unsigned char>(text_[pos + n])))
      ++n;
    if (n < it.min) return false;
    for (std::size_t c = n;; --c) {
      if (match(seq, i + 1, pos + c, k)) return true;
      if (overflow_ || c == it.min) return false;
    }
  }

  const ecma_regex::simple& s_;
  std::string_view text_;
  std::size_t steps_ = 0;
  bool overflow_ = false;
};

}  // namespace

ecma_regex::ecma_regex(std::string source, std::u32string translated, std::shared_ptr<const impl> i,
                       std::shared_ptr<const simple> s)
    : source_(std::move(source)),
      translated_(std::move(translated)),
      simple_(std::move(s)),
      impl_(std::move(i)) {}

namespace {

// Compiles a translated pattern with Boost.Regex; throws on a syntax error.
std::shared_ptr<const ecma_regex::impl> compile_boost(const std::u32string& translated) {
  auto im = std::make_shared<ecma_regex::impl>();
  // Only \p{...} classes need the Unicode-aware ctype; the default locale is cheaper.
  if (translated.find(U"[:") != std::u32string::npos) im->re.imbue(unicode_locale());
  const std::wstring w(translated.begin(), translated.end());
  im->re.assign(w, boost::regex_constants::perl | boost::regex_constants::no_mod_m);
  return im;
}

}  // namespace

const ecma_regex::impl* ecma_regex::boost_regex() const {
  std::call_once(impl_once_, [this] {
    if (impl_) return;
    try {
      impl_ = compile_boost(translated_);
    } catch (const std::exception&) {
      impl_ = nullptr;
    }
  });
  return impl_.get();
}

std::shared_ptr<const ecma_regex> ecma_regex::compile(std::string_view pattern,
                                                      std::string& error) {
  std::u32string cps;
  utf8_to_utf32(pattern, cps);
  auto translated = translate(cps, error);
  if (!translated) return nullptr;
  std::shared_ptr<const simple> fast;
  if (auto s = simple_parser(pattern).parse()) fast = std::make_shared<const simple>(std::move(*s));
  std::shared_ptr<const impl> im;
  if (!fast) {  // the fast matcher's grammar is valid ECMA-262 and Boost syntax: no check needed
    try {
      im = compile_boost(*translated);
    } catch (const std::exception& e) {
      error = e.what();
      return nullptr;
    }
  }
  return std::make_shared<const ecma_regex>(std::string(pattern), std::move(*translated),
                                            std::move(im), std::move(fast));
}

match_result ecma_regex::search(std::string_view subject) const {
  if (simple_) {
    if (auto r = simple_matcher(*simple_, subject).search())
      return *r ? match_result::match : match_result::no_match;
  }
  return search_translated(subject);
}

match_result ecma_regex::search_translated(std::string_view subject) const {
  const impl* re = boost_regex();
  if (re == nullptr) return match_result::too_complex;
  thread_local std::u32string cps;
  thread_local std::wstring wide;
  cps.clear();
  utf8_to_utf32(subject, cps);
  wide.assign(cps.begin(), cps.end());
  try {
    return boost::regex_search(wide, re->re) ? match_result::match : match_result::no_match;
  } catch (const std::exception&) {
    return match_result::too_complex;
  }
}

}  // namespace mcp::json_schema::detail
