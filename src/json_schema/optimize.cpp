// Post-compile passes over the program: `$ref`-only nodes are bypassed (their users point at
// the target directly) and every node gets the set of instance kinds it can accept, so
// anyOf/oneOf skip branches whose `type` rules the instance out without evaluating them; a root
// that is a flat object schema (the usual tool inputSchema) is marked for a one-pass check.
#include "json_schema/optimize.hpp"

#include <algorithm>
#include <vector>

namespace mcp::json_schema::detail {

namespace {

// The node a `$ref`-only chain starting at `id` ends on (or `id` on a cycle).
node_id skip_refs(const program& p, node_id id) {
  node_id cur = id;
  for (std::size_t hops = 0; hops < 64; ++hops) {
    const node& n = p.nodes[cur];
    if (n.always_false || n.groups != g_ref) return cur;
    if (n.ref == id) return id;  // a loop of bare $refs: keep it, the depth limit stops it
    cur = n.ref;
  }
  return id;
}

template <class F>
void for_each_child(node& n, F&& f) {
  auto one = [&](node_id& id) {
    if (id != no_node) f(id);
  };
  one(n.ref);
  one(n.dynamic_ref);
  for (auto& id : n.prefix_items) one(id);
  one(n.items);
  one(n.contains);
  one(n.unevaluated_items);
  for (auto& p : n.properties) one(p.schema);
  for (auto& p : n.pattern_properties) one(p.schema);
  one(n.additional_properties);
  for (auto& d : n.dependent_schemas) one(d.schema);
  one(n.property_names);
  one(n.unevaluated_properties);
  for (auto& id : n.all_of) one(id);
  for (auto& id : n.any_of) one(id);
  for (auto& id : n.one_of) one(id);
  one(n.not_);
  one(n.if_);
  one(n.then_);
  one(n.else_);
}

std::uint8_t kinds_of_types(std::uint8_t types) {
  std::uint8_t k = 0;
  if ((types & null_bit) != 0) k |= kind_bit(json::kind::null);
  if ((types & boolean_bit) != 0) k |= kind_bit(json::kind::bool_);
  if ((types & (number_bit | integer_bit)) != 0)
    k |= static_cast<std::uint8_t>(kind_bit(json::kind::int64) | kind_bit(json::kind::uint64) |
                                   kind_bit(json::kind::double_));
  if ((types & string_bit) != 0) k |= kind_bit(json::kind::string);
  if ((types & array_bit) != 0) k |= kind_bit(json::kind::array);
  if ((types & object_bit) != 0) k |= kind_bit(json::kind::object);
  return k;
}

/// Whether the root is a flat object schema: its only assertions are `type`, `properties` whose
/// subschemas assert at most a `type` (or are `false`), `required` (names among the properties)
/// and `additionalProperties: false`. Keywords of any other group, or a dynamic scope, keep the
/// evaluator.
bool is_flat(const program& p) {
  if (p.uses_dynamic_scope) return false;
  const node& r = p.nodes[p.root];
  if (r.always_false || (r.groups & ~(g_type | g_object)) != 0) return false;
  if (r.properties.size() > 64 || !r.required_other.empty() || !r.pattern_properties.empty() ||
      !r.dependent_required_.empty() || !r.dependent_schemas.empty() ||
      r.property_names != no_node || r.min_properties || r.max_properties ||
      r.unevaluated_properties != no_node) {
    return false;
  }
  if (r.additional_properties != no_node && !p.nodes[r.additional_properties].always_false) {
    return false;
  }
  return std::all_of(r.properties.begin(), r.properties.end(), [&](const named_node& prop) {
    const node& n = p.nodes[prop.schema];
    return n.always_false || (n.groups & ~g_type) == 0;
  });
}

}  // namespace

void optimize(program& p) {
  // Dynamic scope tracks resources as nodes are entered; bypassing nodes would change it.
  if (!p.uses_dynamic_scope) {
    for (auto& n : p.nodes) for_each_child(n, [&](node_id& id) { id = skip_refs(p, id); });
    p.root = skip_refs(p, p.root);
  }
  for (auto& n : p.nodes) {
    if (n.always_false)
      n.accepts = 0;
    else if ((n.groups & g_type) != 0)
      n.accepts = kinds_of_types(n.types);
  }
  p.flat = is_flat(p);
}

}  // namespace mcp::json_schema::detail
