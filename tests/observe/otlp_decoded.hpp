// The spans of an OTLP/JSON trace request, as the OTLP tests read them back: the JSON the SDK
// writes (otlp_test.cpp) and what the receiver decodes (otlp_sink.hpp).
#pragma once

#include <mcp/json.hpp>

namespace otlp_test {

/// The spans of ExportTraceServiceRequest `request` of one resource and one scope (as the SDK
/// writes them). Throws (Boost.JSON's) when the request has no such spans.
inline const mcp::json::array& spans_in(const mcp::json::value& request) {
  return request.at("resourceSpans").at(0).at("scopeSpans").at(0).at("spans").as_array();
}

}  // namespace otlp_test
