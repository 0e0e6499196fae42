// ECMA-262 pattern translation to Boost.Regex, and the fast matcher for simple patterns.
#include "json_schema/regex.hpp"

#include "detail/utf8.hpp"
#include "json_schema/regex_translate.hpp"

// Boost.Regex's own bounds: it gives up (throws, reported as too_complex) after about
// max(1,000,000, pattern states^2 x subject length) steps instead of the default 100,000,000,
// and when its backtracking states fill 2048 blocks of 4 KiB (8 MiB; twice the default,
// because the states hold our metered iterator, twice a pointer's size). The time budget that
// matters is ours (metered_iterator below). Only this file uses Boost.Regex.
// Boost casts the macro C-style inside its templates; the cast is reported where the macro is
// spelled, here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#define BOOST_REGEX_MAX_STATE_COUNT 1000000
#define BOOST_REGEX_MAX_BLOCKS 2048
#include <boost/regex.hpp>
#pragma GCC diagnostic pop

#include <array>
#include <cctype>
#include <cstdint>
#include <exception>
#include <iterator>
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

// The time budget of a Boost.Regex search. Boost bounds its backtracking by about
// (pattern states)^2 x subject length steps: for a pattern of a few hundred characters and a
// long subject that is minutes. Ours is counted by the iterator Boost reads the subject
// through: every character read costs one unit, and a search may spend
// `search_budget_base + search_budget_per_char` x (subject length) units, enough for any
// pattern that reads each character a bounded number of times, and a few milliseconds of a
// catastrophic one.
constexpr std::int64_t search_budget_base = 100'000;
constexpr std::int64_t search_budget_per_char = 100;

struct budget_exhausted {};

// The operations Boost.Regex uses, over a pointer; reads are metered.
class metered_iterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = wchar_t;
  using difference_type = std::ptrdiff_t;
  using pointer = const wchar_t*;
  using reference = const wchar_t&;

  metered_iterator() = default;
  metered_iterator(const wchar_t* p, std::int64_t* left) : p_(p), left_(left) {}

  reference operator*() const {
    if (--*left_ < 0) throw budget_exhausted{};
    return *p_;
  }
  pointer operator->() const { return &**this; }
  reference operator[](difference_type n) const { return *(*this + n); }
  metered_iterator& operator++() {
    ++p_;
    return *this;
  }
  metered_iterator operator++(int) {
    auto t = *this;
    ++p_;
    return t;
  }
  metered_iterator& operator--() {
    --p_;
    return *this;
  }
  metered_iterator operator--(int) {
    auto t = *this;
    --p_;
    return t;
  }
  metered_iterator& operator+=(difference_type n) {
    p_ += n;
    return *this;
  }
  metered_iterator& operator-=(difference_type n) {
    p_ -= n;
    return *this;
  }
  friend metered_iterator operator+(metered_iterator a, difference_type n) { return a += n; }
  friend difference_type operator-(const metered_iterator& a, const metered_iterator& b) {
    return a.p_ - b.p_;
  }
  // Every state Boost visits compares its position with the end: comparisons are metered too,
  // so loops through states that read no character (empty alternatives) run out as well.
  friend bool operator==(const metered_iterator& a, const metered_iterator& b) {
    auto* left = a.left_ != nullptr ? a.left_ : b.left_;
    if (left != nullptr && --*left < 0) throw budget_exhausted{};
    return a.p_ == b.p_;
  }

 private:
  const wchar_t* p_ = nullptr;
  std::int64_t* left_ = nullptr;
};

}  // namespace

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
  auto translated = translate_ecma(cps, error);
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
  std::int64_t left =
      search_budget_base + search_budget_per_char * static_cast<std::int64_t>(wide.size());
  const metered_iterator first(wide.data(), &left);
  const metered_iterator last(wide.data() + wide.size(), &left);
  try {
    return boost::regex_search(first, last, re->re) ? match_result::match : match_result::no_match;
  } catch (const budget_exhausted&) {
    return match_result::too_complex;
  } catch (const std::exception&) {  // Boost's own bound, or memory
    return match_result::too_complex;
  }
}

}  // namespace mcp::json_schema::detail
