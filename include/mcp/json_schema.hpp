// File: mcp/json_schema.hpp
//
// A compiled JSON Schema validator for dialects 2020-12 (the default) and draft-07. It knows
// nothing about MCP: it takes a schema as a `json::value`, compiles it once into an immutable
// program (all `$ref`s resolved, regexes compiled, property lookups sorted) and then validates
// any number of instances, from any number of threads.
//
// Remote `$ref`s are resolved only through a `schema_registry` that the caller fills; there is
// no network access. The official 2020-12 and draft-07 meta-schemas are built in.
//
// Errors carry the instance location (a JSON Pointer), the keyword location (a JSON Pointer into
// the schema document; for keywords reached through a `$ref` into another document it is
// prefixed with that document's URI and `#`) and a one-line message meant to be shown to a
// person or a language model as it is: "/days: 17 is greater than the maximum 16".
//
// Example:
//
//   auto schema = mcp::parse_json(R"({"type":"object","properties":{"days":{"maximum":16}}})");
//   auto v = mcp::json_schema::validator::compile(*schema);
//   if (!v) return v.error();                       // errc::invalid_params, names the location
//   auto errors = v->validate(*mcp::parse_json(R"({"days":17})"));
//   // errors[0].message == "/days: 17 is greater than the maximum 16"
//   bool ok = v->is_valid(*mcp::parse_json(R"({"days":3})"));   // true
#pragma once

#include <mcp/json.hpp>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mcp::json_schema {

/// The JSON Schema dialects the validator implements.
enum class dialect { draft2020_12, draft7 };

/// How many errors `validator::validate` collects.
enum class mode {
  first_error,  ///< stop at the first failing keyword (fast)
  all_errors,   ///< evaluate every keyword and report every failure
};

/// Remote schemas by absolute URI, filled by the caller and read at compile time (a `$ref` to a
/// URI that is neither registered nor built in is a compile error; nothing is ever fetched).
/// Not thread-safe while being filled; safe to share read-only between concurrent compiles.
class schema_registry {
 public:
  /// Registers `schema` under the absolute `uri` (a trailing empty fragment "#" is ignored).
  /// A later `add` with the same URI replaces the earlier one. Not thread-safe.
  void add(std::string uri, json::value schema);

  /// The schema registered under `uri`, or nullptr. Thread-safe for concurrent readers.
  [[nodiscard]] const json::value* find(const std::string& uri) const;

  /// Number of registered schemas. Thread-safe for concurrent readers.
  [[nodiscard]] std::size_t size() const noexcept { return schemas_.size(); }

 private:
  std::map<std::string, json::value, std::less<>> schemas_;
};

/// Options fixed at compile time.
struct compile_options {
  dialect default_dialect = dialect::draft2020_12;  ///< used when the schema has no $schema
  bool format_assertion = false;  ///< true: `format` fails invalid values; false: annotation only
  const schema_registry* registry = nullptr;  ///< remote schemas; must outlive `compile` only
  std::size_t max_depth = 256;  ///< nesting bound during validation (instance + ref recursion)
  /// Bound on the number of subschema evaluations for one instance, i.e. on the work one
  /// validation may do: it grows with the instance size and guards against schemas whose cost
  /// explodes (nested anyOf/oneOf over deep data). The instance's byte size is bounded where it
  /// is parsed (`mcp::json_limits`).
  std::size_t max_steps = 10'000'000;
};

/// One validation failure.
struct validation_error {
  std::string instance_location;  ///< JSON Pointer, "" for the root
  std::string keyword_location;   ///< JSON Pointer into the schema, e.g. "/properties/days/maximum"
  std::string message;            ///< one line, e.g. "/days: 17 is greater than the maximum 16"
};

namespace detail {
struct program;
}

/// A compiled schema. Cheap to copy (copies share the immutable compiled program); all const
/// member functions are thread-safe.
class validator {
 public:
  /// Compiles `schema` (an object or a boolean). The schema and the registry are copied as
  /// needed; neither has to outlive the call.
  /// Errors: `errc::invalid_params` with a message naming the schema location on a bad keyword
  /// value, an unresolvable `$ref`, an unknown `$schema` dialect or an invalid regex.
  /// Thread-safe (no shared mutable state).
  static result<validator> compile(const json::value& schema, const compile_options& opts = {});

  /// True when `instance` is valid. Allocates nothing on the success path unless the schema
  /// uses `unevaluatedProperties`/`unevaluatedItems`, `$dynamicRef`, `propertyNames`, or
  /// `uniqueItems` on more than 16 items. A depth, step or regex complexity limit hit during
  /// validation makes the instance invalid. Thread-safe.
  [[nodiscard]] bool is_valid(const json::value& instance) const;

  /// The errors of `instance`: empty when valid; in `mode::first_error` at most one.
  /// Limits hit during validation are reported as errors. Thread-safe.
  [[nodiscard]] std::vector<validation_error> validate(const json::value& instance,
                                                       mode m = mode::first_error) const;

  /// The dialect of the root schema (from `$schema`, else `compile_options::default_dialect`).
  /// Thread-safe.
  [[nodiscard]] dialect root_dialect() const noexcept;

 private:
  explicit validator(std::shared_ptr<const detail::program> p) : program_(std::move(p)) {}
  std::shared_ptr<const detail::program> program_;
};

}  // namespace mcp::json_schema
