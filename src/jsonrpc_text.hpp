// Internal: what an answer written by the encoders of jsonrpc.cpp is, read in place. Encoders
// write `{"jsonrpc":"2.0","id":<id>,` (no id for an error without one) and then `"result":` or
// `"error":{"code":<code>,`; reading past the id tells a result from an error, and an error's
// code, without scanning or parsing the rest. The HTTP handler picks a status by it and the
// observed peer an outcome.
//   const auto h = jsonrpc::read_answer_head(R"({"jsonrpc":"2.0","id":"a","error":{"code":-1,)");
//   // h.what == answer_head::kind::error, h.code == -1
#pragma once

#include <cstddef>
#include <string_view>

namespace mcp::jsonrpc {

struct answer_head {
  enum class kind {
    result,  ///< `"result":` follows the id
    error,   ///< `"error":{"code":` follows the id (or the version, with no id)
    other,   ///< not the encoders' shape (text from elsewhere): the caller searches
  };
  kind what = kind::other;
  std::size_t member = 0;  ///< where `"result":` or `"error":` starts (result, error)
  int code = 0;            ///< error: the code (0 when it is not an int)
};

/// Reads `message` up to its member (see above). Never reads past its end; noexcept.
[[nodiscard]] answer_head read_answer_head(std::string_view message) noexcept;

}  // namespace mcp::jsonrpc
