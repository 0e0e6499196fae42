// The compiled form of a schema: a flat vector of nodes (one per subschema) that refer to each
// other by index, with every `$ref` already resolved to a node index. Built by compile.cpp, run
// by evaluate.cpp; immutable once built.
#pragma once

#include <mcp/json_schema.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "json_schema/regex.hpp"

namespace mcp::json_schema::detail {

using node_id = std::uint32_t;
inline constexpr node_id no_node = std::numeric_limits<node_id>::max();

/// Bits of `node::types`.
enum type_bit : std::uint8_t {
  null_bit = 1U << 0U,
  boolean_bit = 1U << 1U,
  object_bit = 1U << 2U,
  array_bit = 1U << 3U,
  number_bit = 1U << 4U,  ///< any number
  string_bit = 1U << 5U,
  integer_bit = 1U << 6U,  ///< a number with no fractional part
};

/// Keyword groups present in a node, so evaluation skips whole groups with one test.
enum group_bit : std::uint32_t {
  g_type = 1U << 0U,
  g_enum = 1U << 1U,
  g_const = 1U << 2U,
  g_number = 1U << 3U,        ///< minimum, maximum, exclusive*, multipleOf
  g_string = 1U << 4U,        ///< minLength, maxLength, pattern, asserted format
  g_array = 1U << 5U,         ///< prefixItems, items, contains, min/maxItems, uniqueItems
  g_object = 1U << 6U,        ///< properties ... propertyNames, required, dependent*
  g_ref = 1U << 7U,           ///< $ref
  g_dynref = 1U << 8U,        ///< $dynamicRef
  g_logic = 1U << 9U,         ///< allOf, anyOf, oneOf, not, if/then/else
  g_unevaluated = 1U << 10U,  ///< unevaluatedProperties / unevaluatedItems
};

/// The bit of json::kind `k` in node::accepts.
constexpr std::uint8_t kind_bit(json::kind k) noexcept {
  return static_cast<std::uint8_t>(1U << static_cast<unsigned>(k));
}

enum class format_kind : std::uint8_t {
  none,
  date_time,
  date,
  time,
  duration,
  email,
  idn_email,
  hostname,
  idn_hostname,
  ipv4,
  ipv6,
  uri,
  uri_reference,
  iri,
  iri_reference,
  uuid,
  json_pointer,
  relative_json_pointer,
  regex,
  uri_template,
};

/// A numeric bound: the JSON number as written (for messages and exact multipleOf) and as a
/// long double (exact for every int64, uint64 and double, so comparisons are exact).
struct number_bound {
  json::value number;
  long double value = 0;
};

struct named_node {
  std::string name;
  node_id schema = no_node;
};

struct pattern_node {
  std::shared_ptr<const ecma_regex> re;
  node_id schema = no_node;
};

struct dependent_required {
  std::string name;
  std::vector<std::string> required;
};

/// One compiled subschema.
struct node {
  std::string location;  ///< JSON Pointer of the subschema ("uri#pointer" outside the root doc)
  std::uint32_t groups = 0;
  std::uint32_t resource = 0;   ///< index into program::resources (the dynamic scope unit)
  bool always_false = false;    ///< the boolean schema `false`
  std::uint8_t accepts = 0xFF;  ///< kind_bit set of instances that can pass (from `type`)
  std::uint8_t types = 0;       ///< type_bit mask of `type`

  node_id ref = no_node;
  node_id dynamic_ref = no_node;  ///< the statically resolved target of $dynamicRef
  std::string dynamic_name;       ///< non-empty: look `dynamic_name` up in the dynamic scope

  std::vector<json::value> enum_values;
  json::value const_value;

  std::optional<number_bound> minimum, maximum, exclusive_minimum, exclusive_maximum;
  std::optional<number_bound> multiple_of;

  std::optional<std::size_t> min_length, max_length;
  std::shared_ptr<const ecma_regex> pattern;
  format_kind format = format_kind::none;

  std::vector<node_id> prefix_items;
  node_id items = no_node;  ///< applies to items after prefix_items (draft-07 additionalItems)
  node_id contains = no_node;
  std::size_t min_contains = 1;
  std::optional<std::size_t> max_contains;
  std::optional<std::size_t> min_items, max_items;
  bool unique_items = false;
  node_id unevaluated_items = no_node;

  std::vector<named_node> properties;         ///< sorted by (size, bytes): see name_less
  std::vector<std::uint16_t> property_slots;  ///< open-addressing table: index + 1, 0 = empty
  std::uint32_t property_mask = 0;
  std::uint64_t required_mask = 0;          ///< required names found in `properties` (<= 64)
  std::vector<std::string> required_other;  ///< required names not covered by required_mask
  std::vector<std::string> required;        ///< all required names, for messages
  std::vector<pattern_node> pattern_properties;
  node_id additional_properties = no_node;
  std::vector<dependent_required> dependent_required_;
  std::vector<named_node> dependent_schemas;
  node_id property_names = no_node;
  std::optional<std::size_t> min_properties, max_properties;
  node_id unevaluated_properties = no_node;

  std::vector<node_id> all_of, any_of, one_of;
  node_id not_ = no_node;
  node_id if_ = no_node, then_ = no_node, else_ = no_node;
};

/// A schema resource (a document or a subschema with `$id`): the unit of the dynamic scope.
struct resource {
  std::string uri;
  std::vector<named_node> dynamic_anchors;  ///< compiled only for names some $dynamicRef uses
};

struct program {
  std::vector<node> nodes;
  std::vector<resource> resources;
  node_id root = 0;
  bool uses_dynamic_scope = false;
  std::size_t max_depth = 256;
  std::size_t max_steps = 10'000'000;
  dialect root_dialect = dialect::draft2020_12;
  /// The root is a flat object schema (optimize.cpp, `is_flat`): `type` and `properties` whose
  /// schemas test at most a `type`, `required`, `additionalProperties: false` and annotations.
  /// `validator::is_valid` then checks an instance in one pass without the evaluator.
  bool flat = false;
};

/// The hash of a property name for node::property_slots (length and three bytes: cheap, and
/// enough to spread the names of one schema).
inline std::uint32_t property_hash(std::string_view k) noexcept {
  const auto n = static_cast<std::uint32_t>(k.size());
  std::uint32_t h = n * 0x9E3779B1U;
  if (n != 0) {
    h ^= static_cast<std::uint32_t>(static_cast<unsigned char>(k[0])) * 0x85EBCA6BU;
    h ^= static_cast<std::uint32_t>(static_cast<unsigned char>(k[n - 1])) * 0xC2B2AE35U;
    h ^= static_cast<std::uint32_t>(static_cast<unsigned char>(k[n / 2])) * 0x27D4EB2FU;
  }
  return h ^ (h >> 15U);
}

/// Orders property names by length, then bytes: cheap comparisons for binary search.
inline bool name_less(std::string_view a, std::string_view b) noexcept {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

}  // namespace mcp::json_schema::detail
