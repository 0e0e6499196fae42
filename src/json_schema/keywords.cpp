// Compiling keyword values into a node: value checks with located errors, vocabulary and
// dialect rules (draft-07 $ref overrides its siblings; 2020-12 vocabularies gate keywords).
#include <algorithm>

#include "json_schema/compiler.hpp"
#include "json_schema/formats.hpp"
#include "json_schema/values.hpp"

namespace mcp::json_schema::detail {

namespace {

std::string at(const std::string& location, std::string_view keyword) {
  std::string s = location;
  append_pointer_token(s, keyword);
  return s;
}

std::uint8_t type_bit_of(std::string_view name) {
  if (name == "null") return null_bit;
  if (name == "boolean") return boolean_bit;
  if (name == "object") return object_bit;
  if (name == "array") return array_bit;
  if (name == "number") return number_bit;
  if (name == "string") return string_bit;
  if (name == "integer") return integer_bit;
  return 0;
}

void build_property_table(node& n) {
  if (n.properties.size() >= 0x8000U) return;  // binary search instead
  std::uint32_t size = 8;
  while (size < n.properties.size() * 2) size *= 2;
  n.property_slots.assign(size, 0);
  n.property_mask = size - 1;
  for (std::size_t i = 0; i < n.properties.size(); ++i) {
    std::uint32_t h = property_hash(n.properties[i].name) & n.property_mask;
    while (n.property_slots[h] != 0) h = (h + 1) & n.property_mask;
    n.property_slots[h] = static_cast<std::uint16_t>(i + 1);
  }
}

}  // namespace

node_id compiler::sub(const json::value& v, const std::string& location) {
  return node_for(v, location);
}

std::vector<node_id> compiler::sub_array(const json::value& v, const std::string& location) {
  if (!v.is_array() || v.get_array().empty())
    fail(location, "must be a non-empty array of schemas");
  std::vector<node_id> out;
  const auto& a = v.get_array();
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(sub(a[i], location + "/" + std::to_string(i)));
  return out;
}

std::size_t compiler::non_negative(const json::value& v, const std::string& location) const {
  if (!is_integer(v) || to_long_double(v) < 0)
    fail(location, "must be a non-negative integer, not " + snippet(v));
  const long double d = to_long_double(v);
  if (d > static_cast<long double>(SIZE_MAX / 2)) return SIZE_MAX / 2;
  return static_cast<std::size_t>(d);
}

number_bound compiler::number(const json::value& v, const std::string& location) const {
  if (!v.is_number()) fail(location, "must be a number, not " + snippet(v));
  return number_bound{v, to_long_double(v)};
}

std::shared_ptr<const ecma_regex> compiler::regex(std::string_view pattern,
                                                  const std::string& location) const {
  std::string err;
  auto re = ecma_regex::compile(pattern, err);
  if (!re) fail(location, "invalid regular expression \"" + std::string(pattern) + "\": " + err);
  return re;
}

std::vector<std::string> compiler::string_array(const json::value& v,
                                                const std::string& location) const {
  if (!v.is_array()) fail(location, "must be an array of strings");
  std::vector<std::string> out;
  for (const auto& s : v.get_array()) {
    if (!s.is_string()) fail(location, "must be an array of strings, found " + snippet(s));
    out.emplace_back(s.get_string());
  }
  return out;
}

void compiler::compile_node(node_id id, const json::value& v) {
  auto it = info_.find(&v);
  if (it == info_.end()) {
    // Reached only through a pointer into a place the index pass did not walk.
    fail("", "internal: subschema was not indexed");
  }
  const schema_info si = it->second;
  node n;
  n.location = si.location;
  n.resource = si.resource;
  if (v.is_bool()) {
    n.always_false = !v.get_bool();
  } else {
    compile_keywords(n, v.get_object(), si);
  }
  prog_.nodes[id] = std::move(n);
}

void compiler::compile_keywords(node& n, const json::object& o, const schema_info& si) {
  const std::string& loc = si.location;
  const bool d7 = si.dial.d == dialect::draft7;
  const std::uint16_t vocabs = si.dial.vocabs;
  const bool applicator = d7 || (vocabs & v_applicator) != 0;
  const bool validation = d7 || (vocabs & v_validation) != 0;
  const bool unevaluated = !d7 && (vocabs & v_unevaluated) != 0;
  const bool assert_format = opts_.format_assertion || (!d7 && (vocabs & v_format_assertion) != 0);
  // draft-07 and 2019-09: `items` may be an array (a tuple) followed by `additionalItems`.
  const bool tuple_items = d7 || si.dial.draft2019;

  if (const auto* r = o.if_contains("$ref")) {
    n.ref = sub(*resolve_ref(si, *r, at(loc, "$ref"), nullptr), at(loc, "$ref"));
    n.groups |= g_ref;
    if (d7) return;  // draft-07: $ref overrides every sibling keyword
  }
  if (!d7) {
    if (const auto* r = o.if_contains("$dynamicRef")) {
      std::string frag;
      const json::value* target = resolve_ref(si, *r, at(loc, "$dynamicRef"), &frag);
      n.dynamic_ref = sub(*target, at(loc, "$dynamicRef"));
      n.groups |= g_dynref;
      const json::value* anchor =
          target->is_object() ? target->get_object().if_contains("$dynamicAnchor") : nullptr;
      if (!frag.empty() && frag.front() != '/' && anchor != nullptr && anchor->is_string() &&
          anchor->get_string() == frag) {
        n.dynamic_name = frag;
        dynamic_names_.insert(frag);
        prog_.uses_dynamic_scope = true;
      }
    }
  }

  if (validation) {
    if (const auto* t = o.if_contains("type")) {
      const std::string l = at(loc, "type");
      auto add = [&](const json::value& name) {
        const std::uint8_t bit = name.is_string() ? type_bit_of(name.get_string()) : 0;
        if (bit == 0)
          fail(l, snippet(name) +
                      " is not a type (use null, boolean, object, array, number, string or "
                      "integer)");
        n.types = static_cast<std::uint8_t>(n.types | bit);
      };
      if (t->is_array()) {
        for (const auto& e : t->get_array()) add(e);
      } else {
        add(*t);
      }
      n.groups |= g_type;
    }
    if (const auto* e = o.if_contains("enum")) {
      if (!e->is_array()) fail(at(loc, "enum"), "must be an array");
      n.enum_values.assign(e->get_array().begin(), e->get_array().end());
      n.groups |= g_enum;
    }
    if (const auto* c = o.if_contains("const")) {
      n.const_value = *c;
      n.groups |= g_const;
    }
    auto bound = [&](const char* kw, std::optional<number_bound>& out) {
      if (const auto* b = o.if_contains(kw)) {
        out = number(*b, at(loc, kw));
        n.groups |= g_number;
      }
    };
    bound("minimum", n.minimum);
    bound("maximum", n.maximum);
    bound("exclusiveMinimum", n.exclusive_minimum);
    bound("exclusiveMaximum", n.exclusive_maximum);
    bound("multipleOf", n.multiple_of);
    if (n.multiple_of && n.multiple_of->value <= 0)
      fail(at(loc, "multipleOf"), "must be a number greater than 0");
    auto count = [&](const char* kw, std::optional<std::size_t>& out, std::uint32_t group) {
      if (const auto* b = o.if_contains(kw)) {
        out = non_negative(*b, at(loc, kw));
        n.groups |= group;
      }
    };
    count("minLength", n.min_length, g_string);
    count("maxLength", n.max_length, g_string);
    count("minItems", n.min_items, g_array);
    count("maxItems", n.max_items, g_array);
    count("minProperties", n.min_properties, g_object);
    count("maxProperties", n.max_properties, g_object);
    if (const auto* p = o.if_contains("pattern")) {
      if (!p->is_string()) fail(at(loc, "pattern"), "must be a string");
      n.pattern = regex(p->get_string(), at(loc, "pattern"));
      n.groups |= g_string;
    }
    if (const auto* u = o.if_contains("uniqueItems")) {
      if (!u->is_bool()) fail(at(loc, "uniqueItems"), "must be a boolean");
      n.unique_items = u->get_bool();
      if (n.unique_items) n.groups |= g_array;
    }
    if (const auto* r = o.if_contains("required")) {
      n.required = string_array(*r, at(loc, "required"));
      n.groups |= g_object;
    }
    if (!d7) {
      if (const auto* dr = o.if_contains("dependentRequired")) {
        if (!dr->is_object()) fail(at(loc, "dependentRequired"), "must be an object");
        for (const auto& kv : dr->get_object())
          n.dependent_required_.push_back(dependent_required{
              std::string(kv.key()),
              string_array(kv.value(), at(at(loc, "dependentRequired"), kv.key()))});
        n.groups |= g_object;
      }
    }
  }

  if (const auto* f = o.if_contains("format"); f != nullptr && f->is_string() && assert_format) {
    n.format = format_from_name(f->get_string());
    if (n.format != format_kind::none) n.groups |= g_string;
  }

  if (applicator) {
    if (const auto* p = o.if_contains("properties")) {
      if (!p->is_object()) fail(at(loc, "properties"), "must be an object of schemas");
      for (const auto& kv : p->get_object())
        n.properties.push_back(named_node{std::string(kv.key()),
                                          sub(kv.value(), at(at(loc, "properties"), kv.key()))});
      std::sort(n.properties.begin(), n.properties.end(),
                [](const named_node& a, const named_node& b) { return name_less(a.name, b.name); });
      build_property_table(n);
      n.groups |= g_object;
    }
    if (const auto* p = o.if_contains("patternProperties")) {
      if (!p->is_object()) fail(at(loc, "patternProperties"), "must be an object of schemas");
      for (const auto& kv : p->get_object()) {
        const std::string l = at(at(loc, "patternProperties"), kv.key());
        n.pattern_properties.push_back(pattern_node{regex(kv.key(), l), sub(kv.value(), l)});
      }
      n.groups |= g_object;
    }
    if (const auto* a = o.if_contains("additionalProperties")) {
      n.additional_properties = sub(*a, at(loc, "additionalProperties"));
      n.groups |= g_object;
    }
    if (const auto* p = o.if_contains("propertyNames")) {
      n.property_names = sub(*p, at(loc, "propertyNames"));
      n.groups |= g_object;
    }
    if (const auto* d = o.if_contains("dependencies")) {
      if (!d->is_object()) fail(at(loc, "dependencies"), "must be an object");
      for (const auto& kv : d->get_object()) {
        const std::string l = at(at(loc, "dependencies"), kv.key());
        if (kv.value().is_array())
          n.dependent_required_.push_back(
              dependent_required{std::string(kv.key()), string_array(kv.value(), l)});
        else
          n.dependent_schemas.push_back(named_node{std::string(kv.key()), sub(kv.value(), l)});
      }
      n.groups |= g_object;
    }
    if (!d7) {
      if (const auto* d = o.if_contains("dependentSchemas")) {
        if (!d->is_object()) fail(at(loc, "dependentSchemas"), "must be an object of schemas");
        for (const auto& kv : d->get_object())
          n.dependent_schemas.push_back(named_node{
              std::string(kv.key()), sub(kv.value(), at(at(loc, "dependentSchemas"), kv.key()))});
        n.groups |= g_object;
      }
      if (const auto* p = o.if_contains("prefixItems"); p != nullptr && !si.dial.draft2019) {
        n.prefix_items = sub_array(*p, at(loc, "prefixItems"));
        n.groups |= g_array;
      }
    }
    if (const auto* i = o.if_contains("items"); i != nullptr && !tuple_items) {
      n.items = sub(*i, at(loc, "items"));
      n.groups |= g_array;
    } else if (i != nullptr && tuple_items) {
      if (i->is_array()) {
        const auto& arr = i->get_array();
        for (std::size_t k = 0; k < arr.size(); ++k)
          n.prefix_items.push_back(sub(arr[k], at(loc, "items") + "/" + std::to_string(k)));
        if (const auto* ai = o.if_contains("additionalItems"))
          n.items = sub(*ai, at(loc, "additionalItems"));
      } else {
        n.items = sub(*i, at(loc, "items"));
      }
      n.groups |= g_array;
    }
    if (const auto* c = o.if_contains("contains")) {
      n.contains = sub(*c, at(loc, "contains"));
      n.groups |= g_array;
      if (!d7 && validation) {
        if (const auto* m = o.if_contains("minContains"))
          n.min_contains = non_negative(*m, at(loc, "minContains"));
        if (const auto* m = o.if_contains("maxContains"))
          n.max_contains = non_negative(*m, at(loc, "maxContains"));
      }
    }
    if (const auto* a = o.if_contains("allOf")) n.all_of = sub_array(*a, at(loc, "allOf"));
    if (const auto* a = o.if_contains("anyOf")) n.any_of = sub_array(*a, at(loc, "anyOf"));
    if (const auto* a = o.if_contains("oneOf")) n.one_of = sub_array(*a, at(loc, "oneOf"));
    if (const auto* x = o.if_contains("not")) n.not_ = sub(*x, at(loc, "not"));
    if (const auto* x = o.if_contains("if")) {
      n.if_ = sub(*x, at(loc, "if"));
      if (const auto* t = o.if_contains("then")) n.then_ = sub(*t, at(loc, "then"));
      if (const auto* e = o.if_contains("else")) n.else_ = sub(*e, at(loc, "else"));
    }
    if (!n.all_of.empty() || !n.any_of.empty() || !n.one_of.empty() || n.not_ != no_node ||
        n.if_ != no_node)
      n.groups |= g_logic;
  }

  if (unevaluated) {
    if (const auto* u = o.if_contains("unevaluatedProperties")) {
      n.unevaluated_properties = sub(*u, at(loc, "unevaluatedProperties"));
      n.groups |= g_unevaluated;
    }
    if (const auto* u = o.if_contains("unevaluatedItems")) {
      n.unevaluated_items = sub(*u, at(loc, "unevaluatedItems"));
      n.groups |= g_unevaluated;
    }
  }

  // Required names that `properties` also lists are checked with a bit mask.
  for (const auto& name : n.required) {
    const auto pit = std::lower_bound(
        n.properties.begin(), n.properties.end(), name,
        [](const named_node& a, const std::string& b) { return name_less(a.name, b); });
    const auto idx = static_cast<std::size_t>(pit - n.properties.begin());
    if (pit != n.properties.end() && pit->name == name && idx < 64)
      n.required_mask |= std::uint64_t{1} << idx;
    else
      n.required_other.push_back(name);
  }
}

}  // namespace mcp::json_schema::detail
