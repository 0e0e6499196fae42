// W3C Trace Context (traceparent, tracestate) and Baggage as they arrive in `params._meta`: strict
// parsers with the limits of mcp/observe.hpp, and ids from the kernel's CSPRNG.
#include <mcp/observe.hpp>

#include <algorithm>
#include <cstring>

#include "detail/random.hpp"

namespace mcp::observe {
namespace {

constexpr char hex_digits[] = "0123456789abcdef";

template <std::size_t N>
void append_hex(std::string& out, const std::array<std::uint8_t, N>& bytes) {
  for (const auto b : bytes) {
    out += hex_digits[b >> 4U];
    out += hex_digits[b & 0xFU];
  }
}

/// A lowercase hex digit's value, or -1.
int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/// Decodes `text` (2 × N lowercase hex digits) into `out`; false on any other character.
template <std::size_t N>
bool decode_hex(std::string_view text, std::array<std::uint8_t, N>& out) noexcept {
  for (std::size_t i = 0; i < N; ++i) {
    const int hi = hex_value(text[2 * i]);
    const int lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return true;
}

template <std::size_t N>
bool all_zero(const std::array<std::uint8_t, N>& a) noexcept {
  return std::all_of(a.begin(), a.end(), [](std::uint8_t b) { return b == 0; });
}

error invalid(std::string why) { return {errc::invalid_params, std::move(why)}; }

bool ows(char c) noexcept { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && ows(s.back())) s.remove_suffix(1);
  return s;
}

bool lcalpha(char c) noexcept { return c >= 'a' && c <= 'z'; }
bool digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool key_char(char c) noexcept {
  return lcalpha(c) || digit(c) || c == '_' || c == '-' || c == '*' || c == '/';
}

/// `simple-key` or `tenant-id "@" system-id` of W3C tracestate.
bool tracestate_key(std::string_view k) noexcept {
  const auto at = k.find('@');
  if (at == std::string_view::npos) {
    return !k.empty() && k.size() <= 256 && lcalpha(k[0]) &&
           std::all_of(k.begin() + 1, k.end(), key_char);
  }
  const auto tenant = k.substr(0, at);
  const auto system = k.substr(at + 1);
  return !tenant.empty() && tenant.size() <= 241 && (lcalpha(tenant[0]) || digit(tenant[0])) &&
         std::all_of(tenant.begin() + 1, tenant.end(), key_char) && !system.empty() &&
         system.size() <= 14 && lcalpha(system[0]) &&
         std::all_of(system.begin() + 1, system.end(), key_char);
}

/// `0*255(chr) nblk-chr`: printable ASCII and space, no `,` or `=`, not ending in a space.
bool tracestate_value(std::string_view v) noexcept {
  if (v.empty() || v.size() > 256 || v.back() == ' ') return false;
  return std::all_of(v.begin(), v.end(),
                     [](char c) { return c >= 0x20 && c <= 0x7E && c != ',' && c != '='; });
}

/// Splits `s` at commas, calling `f(member)` for each (untrimmed); stops when `f` returns false.
template <class F>
bool each_member(std::string_view s, F&& f) {
  for (;;) {
    const auto comma = s.find(',');
    if (!f(s.substr(0, comma))) return false;
    if (comma == std::string_view::npos) return true;
    s.remove_prefix(comma + 1);
  }
}

/// Per-thread buffer of CSPRNG bytes, so that an id costs no system call; dropped in a forked
/// child (which would otherwise hand out its parent's next ids).
class id_source {
 public:
  template <std::size_t N>
  std::array<std::uint8_t, N> next() {
    std::array<std::uint8_t, N> out{};
    if (const auto now = detail::fork_generation(); now != generation_) {
      used_ = pool_.size();
      generation_ = now;
    }
    do {
      if (used_ + N > pool_.size()) {
        detail::random_bytes(pool_.data(), pool_.size());
        used_ = 0;
      }
      std::copy_n(pool_.begin() + static_cast<std::ptrdiff_t>(used_), N, out.begin());
      used_ += N;
    } while (all_zero(out));
    return out;
  }

 private:
  std::array<std::uint8_t, 1024> pool_{};
  std::size_t used_ = pool_.size();
  std::uint64_t generation_ = 0;
};

id_source& ids() {
  thread_local id_source source;
  return source;
}

}  // namespace

bool trace_context::valid() const noexcept {
  // Word by word: a span's context is checked several times on its way (the spans ids' checks
  // of std::all_of went byte by byte).
  std::uint64_t t[2];  // NOLINT(cppcoreguidelines-avoid-c-arrays): filled by memcpy
  std::uint64_t s = 0;
  std::memcpy(t, trace_id.data(), sizeof t);
  std::memcpy(&s, span_id.data(), sizeof s);
  return (t[0] | t[1]) != 0 && s != 0;
}

std::string trace_context::traceparent() const {
  std::string out;
  out.reserve(55);
  out += "00-";
  append_hex(out, trace_id);
  out += '-';
  append_hex(out, span_id);
  out += '-';
  out += hex_digits[flags >> 4U];
  out += hex_digits[flags & 0xFU];
  return out;
}

std::string trace_context::trace_id_hex() const {
  std::string out;
  out.reserve(32);
  append_hex(out, trace_id);
  return out;
}

std::string trace_context::span_id_hex() const {
  std::string out;
  out.reserve(16);
  append_hex(out, span_id);
  return out;
}

result<trace_context> parse_traceparent(std::string_view t) {
  // version "-" trace-id "-" parent-id "-" trace-flags: 2 + 1 + 32 + 1 + 16 + 1 + 2.
  if (t.size() < 55) return invalid("traceparent is shorter than 55 characters");
  std::array<std::uint8_t, 1> version{};
  if (!decode_hex(t.substr(0, 2), version)) return invalid("traceparent version is not hex");
  if (version[0] == 0xFF) return invalid("traceparent version ff is invalid");
  if (version[0] == 0 && t.size() != 55) return invalid("traceparent 00 is not 55 characters");
  if (t.size() > 55 && t[55] != '-') return invalid("traceparent has trailing characters");
  if (t[2] != '-' || t[35] != '-' || t[52] != '-') return invalid("traceparent is misformatted");
  trace_context c;
  std::array<std::uint8_t, 1> flags{};
  if (!decode_hex(t.substr(3, 32), c.trace_id) || !decode_hex(t.substr(36, 16), c.span_id) ||
      !decode_hex(t.substr(53, 2), flags)) {
    return invalid("traceparent ids and flags must be lowercase hex");
  }
  if (all_zero(c.trace_id)) return invalid("traceparent trace id is all zeros");
  if (all_zero(c.span_id)) return invalid("traceparent parent id is all zeros");
  c.flags = flags[0];
  return c;
}

result<std::string> parse_tracestate(std::string_view text) {
  if (text.size() > max_tracestate_bytes)
    return invalid("tracestate is longer than 512 characters");
  std::size_t members = 0;
  std::string why;
  // Keys seen so far, as views into `text` (at most 32).
  std::array<std::string_view, max_tracestate_members> keys{};
  const bool ok = each_member(text, [&](std::string_view m) {
    m = trim(m);
    if (m.empty()) return true;  // empty members are allowed and not counted
    if (members == max_tracestate_members) {
      why = "tracestate has more than 32 members";
      return false;
    }
    const auto eq = m.find('=');
    if (eq == std::string_view::npos || !tracestate_key(m.substr(0, eq)) ||
        !tracestate_value(m.substr(eq + 1))) {
      why = "tracestate member is not key=value as W3C Trace Context says";
      return false;
    }
    const auto key = m.substr(0, eq);
    if (std::find(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(members), key) !=
        keys.begin() + static_cast<std::ptrdiff_t>(members)) {
      why = "tracestate has a duplicate key";
      return false;
    }
    keys[members++] = key;
    return true;
  });
  if (!ok) return invalid(std::move(why));
  return std::string(trim(text));
}

result<std::string> parse_baggage(std::string_view text) {
  if (text.size() > max_baggage_bytes) return invalid("baggage is longer than 8192 characters");
  if (!std::all_of(text.begin(), text.end(),
                   [](char c) { return (c >= 0x20 && c <= 0x7E) || c == '\t'; })) {
    return invalid("baggage has characters other than printable ASCII");
  }
  std::size_t members = 0;
  std::string why;
  const bool ok = each_member(text, [&](std::string_view m) {
    m = trim(m);
    if (m.empty()) return true;
    if (++members > max_baggage_members) {
      why = "baggage has more than 64 members";
      return false;
    }
    const auto eq = m.find('=');
    if (eq == std::string_view::npos || trim(m.substr(0, eq)).empty()) {
      why = "baggage member is not key=value";
      return false;
    }
    return true;
  });
  if (!ok) return invalid(std::move(why));
  return std::string(trim(text));
}

carrier extract(const json::object* meta) noexcept {
  carrier c;
  if (meta == nullptr) return c;
  const auto read = [meta](std::string_view key) -> std::string_view {
    const auto* v = meta->if_contains(key);
    if (v == nullptr || !v->is_string()) return {};
    return v->get_string();
  };
  c.traceparent = read("traceparent");
  c.tracestate = read("tracestate");
  c.baggage = read("baggage");
  return c;
}

trace_context remote_parent(const carrier& c, std::string* baggage) {
  if (baggage != nullptr) {
    baggage->clear();
    if (!c.baggage.empty()) {
      if (auto b = parse_baggage(c.baggage)) *baggage = std::move(*b);
    }
  }
  if (c.traceparent.empty()) return {};
  auto parsed = parse_traceparent(c.traceparent);
  if (!parsed) return {};
  if (!c.tracestate.empty()) {
    if (auto ts = parse_tracestate(c.tracestate)) parsed->trace_state = std::move(*ts);
  }
  return std::move(*parsed);
}

std::array<std::uint8_t, 16> new_trace_id() { return ids().next<16>(); }
std::array<std::uint8_t, 8> new_span_id() { return ids().next<8>(); }

}  // namespace mcp::observe
