// A collector's answer to an OTLP/HTTP export, read for what it rejected: the input is read as a
// JSON answer and as a protobuf answer (never a crash, a hang or an unbounded read), and as a
// Retry-After value. Then a count taken from the input is wrapped in a well-formed protobuf
// partial_success and a JSON partialSuccess, and both readers must give it back.
#include <mcp/observe/otlp.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "observe/otlp_answer.hpp"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80U) {
    out.push_back(static_cast<char>((v & 0x7FU) | 0x80U));
    v >>= 7U;
  }
  out.push_back(static_cast<char>(v));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace o = mcp::observe;
  const std::string_view in(reinterpret_cast<const char*>(data), size);

  (void)o::otlp_rejected_json(in, "rejectedSpans");
  (void)o::otlp_rejected_json(in, "rejectedDataPoints");
  (void)o::otlp_rejected_protobuf(in);
  if (auto s = o::parse_retry_after(in, std::chrono::system_clock::now())) {
    require(s->count() >= 0);
  }

  std::uint64_t n = 0;
  if (size > 0) std::memcpy(&n, data, size < sizeof n ? size : sizeof n);
  std::string inner;
  put_varint(inner, 1U << 3U);  // rejected_spans, varint
  put_varint(inner, n);
  std::string answer;
  put_varint(answer, (1U << 3U) | 2U);  // partial_success, length-delimited
  put_varint(answer, inner.size());
  answer += inner;
  require(o::otlp_rejected_protobuf(answer) == n);
  const std::string json = R"({"partialSuccess":{"rejectedSpans":")" + std::to_string(n) + R"("}})";
  require(o::otlp_rejected_json(json, "rejectedSpans") == n);
  return 0;
}
