// Reading a collector's answer for what it rejected (observe/otlp_answer.hpp).
#include "observe/otlp_answer.hpp"

#include <mcp/json.hpp>

#include <charconv>

namespace mcp::observe {

namespace {

/// Reads a varint at `p` (before `end`); false when it runs past the end or 10 bytes.
bool read_varint(const unsigned char*& p, const unsigned char* end, std::uint64_t& v) {
  v = 0;
  for (unsigned shift = 0; shift < 70 && p < end; shift += 7) {
    const unsigned char b = *p++;
    v |= std::uint64_t{b & 0x7FU} << shift;
    if ((b & 0x80U) == 0) return true;
  }
  return false;
}

}  // namespace

std::uint64_t otlp_rejected_json(std::string_view body, std::string_view field) {
  if (body.find("partialSuccess") == std::string_view::npos) return 0;
  auto v = parse_json(body, {.max_size = max_otlp_answer_bytes, .max_depth = 16});
  if (!v || !v->is_object()) return 0;
  const auto* ps = v->as_object().if_contains("partialSuccess");
  if (ps == nullptr || !ps->is_object()) return 0;
  const auto* n = ps->as_object().if_contains(field);
  if (n == nullptr) return 0;
  if (n->is_string()) {
    std::uint64_t x = 0;
    const auto s = n->get_string();
    std::from_chars(s.data(), s.data() + s.size(), x);
    return x;
  }
  if (n->is_int64() && n->get_int64() > 0) return static_cast<std::uint64_t>(n->get_int64());
  if (n->is_uint64()) return n->get_uint64();
  return 0;
}

/// `partial_success.rejected_spans` of an OTLP/protobuf ExportTraceServiceResponse (field 1,
/// its field 1); 0 when absent or unreadable.
std::uint64_t otlp_rejected_protobuf(std::string_view body) {
  const auto* p = reinterpret_cast<const unsigned char*>(body.data());
  const auto* end = p + body.size();
  bool inside = false;  // within partial_success
  std::uint64_t key = 0;
  std::uint64_t n = 0;
  while (p < end) {
    if (!read_varint(p, end, key)) return 0;
    const auto field = key >> 3U;
    const auto wire = key & 7U;
    if (wire == 0) {
      if (!read_varint(p, end, n)) return 0;
      if (inside && field == 1) return n;
      continue;
    }
    const std::uint64_t left = static_cast<std::uint64_t>(end - p);
    if (wire == 1 || wire == 5) {
      const std::uint64_t size = wire == 1 ? 8 : 4;
      if (left < size) return 0;
      p += size;
      continue;
    }
    if (wire != 2 || !read_varint(p, end, n) || n > static_cast<std::uint64_t>(end - p)) return 0;
    if (!inside && field == 1) {
      end = p + n;
      inside = true;
      continue;
    }
    p += n;
  }
  return 0;
}

}  // namespace mcp::observe
