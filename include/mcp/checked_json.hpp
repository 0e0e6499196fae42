// File: mcp/checked_json.hpp
//
// Validate, then decode: `from_json_checked<T>(v)` checks `v` against `schema_for<T>()` (the
// types and every keyword the fields declare: bounds, lengths, patterns, formats, enums) and
// then decodes it into a `T`. It is what the tool pipeline does with tool arguments (the
// session validates, the typed adapter decodes), packaged for everything else that receives
// JSON from a peer: typed elicitation answers, a client's typed tool results.
//
// Example:
//
//   struct forecast_out { std::string city; double high; };
//   MCP_FIELDS(forecast_out, (city, {.min_length = 1}), (high))
//   mcp::result<forecast_out> out = mcp::from_json_checked<forecast_out>(structured_content);
//   if (!out) return out.error();  // invalid_params, "/city: \"\" is shorter than ..."
#pragma once

#include <mcp/error.hpp>
#include <mcp/json.hpp>
#include <mcp/json_schema.hpp>
#include <mcp/reflect.hpp>

#include <utility>

namespace mcp {

/// The validator of `schema_for<T>()`, compiled on first use (formats asserted) and shared by
/// all later calls. Errors: `errc::invalid_params` when the schema does not compile, i.e. a
/// field declares an invalid `.pattern`. Thread-safe.
template <class T>
[[nodiscard]] const result<json_schema::validator>& validator_for() {
  static const result<json_schema::validator> compiled = json_schema::validator::compile(
      json::value(schema_for<T>()), json_schema::compile_options{.format_assertion = true});
  return compiled;
}

/// Validates `v` against `schema_for<T>()`, then decodes it as `from_json<T>` does.
/// Errors: `errc::invalid_params` with the validator's message for the first violation,
/// naming the field ("/days: 17 is greater than the maximum 16"), and data
/// `{"path": "<JSON Pointer>"}`; the decoder's error for what only it checks (an integer
/// outside the C++ type's range); the compile error of `validator_for<T>()`.
/// Thread-safe; never throws except std::bad_alloc.
template <class T>
[[nodiscard]] result<T> from_json_checked(const json::value& v) {
  const result<json_schema::validator>& validator = validator_for<T>();
  if (!validator) return validator.error();
  auto errors = validator->validate(v);
  if (!errors.empty()) {
    json::object data;
    data.emplace("path", errors.front().instance_location);
    return error{errc::invalid_params, std::move(errors.front().message),
                 json::value(std::move(data))};
  }
  return from_json<T>(v);
}

}  // namespace mcp
