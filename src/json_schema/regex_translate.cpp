// ECMA-262 pattern translation to Boost.Regex perl syntax, on code points.
#include "json_schema/regex_translate.hpp"

#include <array>
#include <string_view>

#include "json_schema/regex.hpp"

namespace mcp::json_schema::detail {

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

}  // namespace

std::optional<std::u32string> translate_ecma(const std::u32string& p, std::string& error) {
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

}  // namespace mcp::json_schema::detail
