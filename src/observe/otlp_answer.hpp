// What an OTLP/HTTP collector's answer says was rejected: the `partialSuccess` of a JSON answer
// and the `partial_success` of a protobuf ExportTraceServiceResponse. Both read a peer's bytes,
// so both are bounded (size, depth) and fuzzed (tests/fuzz/otlp_answer_fuzz.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mcp::observe {

/// The largest answer read from a collector (the OTLP specification's advice).
inline constexpr std::size_t max_otlp_answer_bytes = std::size_t{4} << 20U;

/// `partialSuccess.<field>` (`rejectedSpans` or `rejectedDataPoints`) of a JSON answer, as a
/// number or a decimal string; 0 when absent, negative or unreadable. Never throws.
[[nodiscard]] std::uint64_t otlp_rejected_json(std::string_view body, std::string_view field);

/// `partial_success.rejected_spans` (field 1 of field 1) of a protobuf answer; 0 when absent or
/// unreadable (a truncated varint, a length past the end, a group wire type). Never throws.
[[nodiscard]] std::uint64_t otlp_rejected_protobuf(std::string_view body);

}  // namespace mcp::observe
