// Host names: LDH labels, Punycode and a table-light subset of IDNA2008 (see idna.hpp).
#include "json_schema/idna.hpp"

#include <algorithm>
#include <cstdint>
#include <locale>
#include <optional>
#include <string>
#include <vector>

#include "json_schema/regex.hpp"
#include "json_schema/unicode_tables.hpp"

namespace mcp::json_schema::detail {

namespace {

constexpr std::uint32_t base = 36, tmin = 1, tmax = 26, skew = 38, damp = 700;
constexpr std::uint32_t initial_bias = 72, initial_n = 128;

std::uint32_t adapt(std::uint32_t delta, std::uint32_t points, bool first) {
  delta = first ? delta / damp : delta / 2;
  delta += delta / points;
  std::uint32_t k = 0;
  while (delta > ((base - tmin) * tmax) / 2) {
    delta /= base - tmin;
    k += base;
  }
  return k + (base - tmin + 1) * delta / (delta + skew);
}

char encode_digit(std::uint32_t d) { return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26)); }

// RFC 3492 decoding of the part after "xn--".
std::optional<std::u32string> punycode_decode(std::string_view in) {
  std::u32string out;
  const std::size_t b = in.rfind('-');
  std::size_t pos = 0;
  if (b != std::string_view::npos) {
    for (std::size_t k = 0; k < b; ++k) {
      if (static_cast<unsigned char>(in[k]) >= 0x80) return std::nullopt;
      out.push_back(static_cast<unsigned char>(in[k]));
    }
    pos = b + 1;
  }
  std::uint32_t n = initial_n, i = 0, bias = initial_bias;
  while (pos < in.size()) {
    const std::uint32_t oldi = i;
    std::uint32_t w = 1;
    for (std::uint32_t k = base;; k += base) {
      if (pos >= in.size()) return std::nullopt;
      const char c = in[pos++];
      std::uint32_t digit = 0;
      if (c >= '0' && c <= '9')
        digit = static_cast<std::uint32_t>(c - '0') + 26;
      else if (c >= 'a' && c <= 'z')
        digit = static_cast<std::uint32_t>(c - 'a');
      else if (c >= 'A' && c <= 'Z')
        digit = static_cast<std::uint32_t>(c - 'A');
      else
        return std::nullopt;
      if (digit > (0xFFFFFFFFU - i) / w) return std::nullopt;
      i += digit * w;
      const std::uint32_t t = k <= bias ? tmin : (k >= bias + tmax ? tmax : k - bias);
      if (digit < t) break;
      if (w > 0xFFFFFFFFU / (base - t)) return std::nullopt;
      w *= base - t;
    }
    const auto len = static_cast<std::uint32_t>(out.size() + 1);
    bias = adapt(i - oldi, len, oldi == 0);
    n += i / len;
    i %= len;
    if (n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF)) return std::nullopt;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(i), static_cast<char32_t>(n));
    ++i;
  }
  return out;
}

// RFC 3492 encoding (the part after "xn--").
std::string punycode_encode(const std::u32string& in) {
  std::string out;
  for (const char32_t c : in)
    if (c < 0x80) out += static_cast<char>(c);
  const auto basic = static_cast<std::uint32_t>(out.size());
  std::uint32_t h = basic;
  if (basic > 0) out += '-';
  std::uint32_t n = initial_n, delta = 0, bias = initial_bias;
  const auto total = static_cast<std::uint32_t>(in.size());
  while (h < total) {
    std::uint32_t m = 0x10FFFF + 1;
    for (const char32_t c : in)
      if (c >= n && c < m) m = c;
    delta += (m - n) * (h + 1);
    n = m;
    for (const char32_t c : in) {
      if (c < n) ++delta;
      if (c != n) continue;
      std::uint32_t q = delta;
      for (std::uint32_t k = base;; k += base) {
        const std::uint32_t t = k <= bias ? tmin : (k >= bias + tmax ? tmax : k - bias);
        if (q < t) break;
        out += encode_digit(t + (q - t) % (base - t));
        q = (q - t) / (base - t);
      }
      out += encode_digit(q);
      bias = adapt(delta, h + 1, h == basic);
      delta = 0;
      ++h;
    }
    ++delta;
    ++n;
  }
  return out;
}

bool alpha(char32_t c) { return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z'); }
bool digit(char32_t c) { return c >= U'0' && c <= U'9'; }
bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

bool combining_mark(char32_t c) {
  const auto it = std::upper_bound(
      combining_marks.begin(), combining_marks.end(), c,
      [](char32_t v, const std::pair<char32_t, char32_t>& r) { return v < r.first; });
  return it != combining_marks.begin() && c <= std::prev(it)->second;
}

bool virama(char32_t c) { return std::binary_search(viramas.begin(), viramas.end(), c); }
bool greek(char32_t c) { return in(c, 0x370, 0x3FF) || in(c, 0x1F00, 0x1FFF); }
bool hebrew(char32_t c) { return in(c, 0x591, 0x5F4) || in(c, 0xFB1D, 0xFB4F); }
bool hiragana_katakana_han(char32_t c) {
  return (in(c, 0x3040, 0x30FF) && c != 0x30FB) || in(c, 0x31F0, 0x31FF) || in(c, 0xFF66, 0xFF9F) ||
         in(c, 0x2E80, 0x2FDF) || c == 0x3005 || c == 0x3007 || in(c, 0x3021, 0x3029) ||
         in(c, 0x3038, 0x303B) || in(c, 0x3400, 0x4DBF) || in(c, 0x4E00, 0x9FFF) ||
         in(c, 0xF900, 0xFAFF) || in(c, 0x20000, 0x3FFFF);
}
bool arabic_letter(char32_t c) {
  return in(c, 0x620, 0x64A) || in(c, 0x66E, 0x6D3) || in(c, 0x6FA, 0x6FF) || in(c, 0x750, 0x77F) ||
         in(c, 0x8A0, 0x8C9);
}

bool upper_case(char32_t c) { return std::isupper(static_cast<wchar_t>(c), unicode_locale()); }

bool alpha_like(char32_t c) {
  const auto w = static_cast<wchar_t>(c);
  return std::isalpha(w, unicode_locale()) || std::isdigit(w, unicode_locale());
}

// RFC 5892 2.6 exceptions that are PVALID although they are not letters.
bool pvalid_exception(char32_t c) {
  return c == 0x00DF || c == 0x03C2 || c == 0x06FD || c == 0x06FE || c == 0x0F0B || c == 0x3007;
}

// Bidi classes as far as RFC 5893 distinguishes them (N: ES, CS, ET, ON or BN).
enum class bidi { l, r, an, en, nsm, n };

bidi bidi_class(char32_t c) {
  if (c < 0x80) return digit(c) ? bidi::en : (alpha(c) ? bidi::l : bidi::n);
  if (combining_mark(c)) return bidi::nsm;
  if (in(c, 0x660, 0x669) || in(c, 0x66B, 0x66C) || c == 0x6DD || in(c, 0x890, 0x891) ||
      c == 0x8E2 || in(c, 0x10E60, 0x10E7E))
    return bidi::an;
  if (in(c, 0x6F0, 0x6F9) || c == 0xB2 || c == 0xB3 || c == 0xB9 || in(c, 0xFF10, 0xFF19))
    return bidi::en;
  if (c == 0x200C || c == 0x200D) return bidi::n;
  if (in(c, 0x590, 0x8FF) || in(c, 0xFB1D, 0xFDFF) || in(c, 0xFE70, 0xFEFF) ||
      in(c, 0x10800, 0x10FFF) || in(c, 0x1E800, 0x1EFFF))
    return bidi::r;
  return bidi::l;
}

bool rtl_label(const std::u32string& l) {
  return std::any_of(l.begin(), l.end(), [](char32_t c) {
    const bidi b = bidi_class(c);
    return b == bidi::r || b == bidi::an;
  });
}

// The RFC 5893 Bidi rule for one label of a domain name that has right-to-left labels.
bool bidi_rule(const std::u32string& l) {
  if (l.empty()) return false;
  const bidi first = bidi_class(l.front());
  std::size_t end = l.size();
  while (end > 0 && bidi_class(l[end - 1]) == bidi::nsm) --end;
  if (end == 0) return false;
  const bidi last = bidi_class(l[end - 1]);
  if (first == bidi::r) {
    bool en = false, an = false;
    for (const char32_t c : l) {
      const bidi b = bidi_class(c);
      if (b == bidi::l) return false;
      en = en || b == bidi::en;
      an = an || b == bidi::an;
    }
    return !(en && an) && (last == bidi::r || last == bidi::en || last == bidi::an);
  }
  if (first != bidi::l) return false;
  for (const char32_t c : l) {
    const bidi b = bidi_class(c);
    if (b == bidi::r || b == bidi::an) return false;
  }
  return last == bidi::l || last == bidi::en;
}

// IDNA2008 rules on one U-label (code points); the Bidi rule is checked per domain name.
bool valid_u_label(const std::u32string& l) {
  if (l.empty() || l.front() == U'-' || l.back() == U'-') return false;
  if (l.size() >= 4 && l[2] == U'-' && l[3] == U'-') return false;
  if (combining_mark(l.front())) return false;
  const bool arabic_indic =
      std::any_of(l.begin(), l.end(), [](char32_t c) { return in(c, 0x660, 0x669); });
  const bool extended =
      std::any_of(l.begin(), l.end(), [](char32_t c) { return in(c, 0x6F0, 0x6F9); });
  if (arabic_indic && extended) return false;
  for (std::size_t i = 0; i < l.size(); ++i) {
    const char32_t c = l[i];
    const char32_t prev = i > 0 ? l[i - 1] : 0;
    const char32_t next = i + 1 < l.size() ? l[i + 1] : 0;
    if (c < 0x80) {
      if (!alpha(c) && !digit(c) && c != U'-') return false;
      continue;
    }
    switch (c) {
      case 0x0640:
      case 0x07FA:
      case 0x302E:
      case 0x302F:
      case 0x3031:
      case 0x3032:
      case 0x3033:
      case 0x3034:
      case 0x3035:
      case 0x303B:
        return false;  // RFC 5892 2.6 exceptions: DISALLOWED
      case 0x00B7:
        if (prev != U'l' || next != U'l') return false;
        break;
      case 0x0375:
        if (!greek(next)) return false;
        break;
      case 0x05F3:
      case 0x05F4:
        if (!hebrew(prev)) return false;
        break;
      case 0x30FB:
        if (std::none_of(l.begin(), l.end(), hiragana_katakana_han)) return false;
        break;
      case 0x200D:
        if (!virama(prev)) return false;
        break;
      case 0x200C:
        if (!virama(prev) && !(arabic_letter(prev) && arabic_letter(next))) return false;
        break;
      default:
        if (upper_case(c) || (!alpha_like(c) && !combining_mark(c) && !pvalid_exception(c) &&
                              bidi_class(c) != bidi::an && bidi_class(c) != bidi::en))
          return false;
    }
  }
  return true;
}

bool xn_prefix(std::string_view label) {
  return label.size() >= 4 && (label[0] == 'x' || label[0] == 'X') &&
         (label[1] == 'n' || label[1] == 'N') && label[2] == '-' && label[3] == '-';
}

// An "xn--" label: decodes, re-encodes to itself, and the U-label follows IDNA2008.
bool valid_a_label(std::string_view label) {
  std::string lower(label.substr(4));
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; });
  const auto decoded = punycode_decode(lower);
  if (!decoded || decoded->empty()) return false;
  if (punycode_encode(*decoded) != lower) return false;
  return valid_u_label(*decoded) && (!rtl_label(*decoded) || bidi_rule(*decoded));
}

bool valid_ldh_label(std::string_view label) {
  if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-')
    return false;
  if (!std::all_of(label.begin(), label.end(), [](char c) {
        return alpha(static_cast<unsigned char>(c)) || digit(static_cast<unsigned char>(c)) ||
               c == '-';
      }))
    return false;
  if (xn_prefix(label)) return valid_a_label(label);
  return !(label.size() >= 4 && label[2] == '-' && label[3] == '-');
}

}  // namespace

bool valid_hostname(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  std::size_t start = 0;
  while (true) {
    std::size_t end = s.find('.', start);
    if (end == std::string_view::npos) end = s.size();
    if (!valid_ldh_label(s.substr(start, end - start))) return false;
    if (end == s.size()) return true;
    start = end + 1;
  }
}

bool valid_idn_hostname(std::string_view s) {
  std::u32string cps;
  utf8_to_utf32(s, cps);
  if (cps.empty() || cps.size() > 253) return false;
  std::u32string label;
  std::vector<std::u32string> labels;
  auto check = [&]() -> bool {
    labels.push_back(label);
    if (label.empty()) return false;
    if (std::all_of(label.begin(), label.end(), [](char32_t c) { return c < 0x80; })) {
      std::string ascii(label.begin(), label.end());
      return valid_ldh_label(ascii);
    }
    if (!valid_u_label(label)) return false;
    return punycode_encode(label).size() + 4 <= 63;  // the A-label must fit a DNS label
  };
  for (const char32_t c : cps) {
    if (c == U'.' || c == 0x3002 || c == 0xFF0E || c == 0xFF61) {
      if (!check()) return false;
      label.clear();
    } else {
      label.push_back(c);
    }
  }
  if (!check()) return false;
  // A domain name with a right-to-left label must satisfy the Bidi rule in every label.
  if (std::none_of(labels.begin(), labels.end(), rtl_label)) return true;
  return std::all_of(labels.begin(), labels.end(), bidi_rule);
}

}  // namespace mcp::json_schema::detail
