// Part of evaluate.cpp's translation unit (included there, inside its anonymous namespace):
// the evaluator's array, object and unevaluatedItems/unevaluatedProperties keywords. Kept in
// one translation unit with evaluate.cpp so that the compiler can inline across both files.

// Byte comparison of two short strings of equal length; a libc memcmp call costs more than the
// comparison itself for property names.
bool same_bytes(const char* a, const char* b, std::size_t size) noexcept {
  for (std::size_t i = 0; i < size; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

const named_node* find_property(const node& n, std::string_view key) {
  const auto& props = n.properties;
  if (!n.property_slots.empty()) {
    std::uint32_t h = property_hash(key) & n.property_mask;
    while (const std::uint16_t slot = n.property_slots[h]) {
      const named_node& p = props[slot - 1U];
      if (p.name.size() == key.size() && same_bytes(p.name.data(), key.data(), key.size()))
        return &p;
      h = (h + 1) & n.property_mask;
    }
    return nullptr;
  }
  const auto it = std::lower_bound(
      props.begin(), props.end(), key,
      [](const named_node& a, std::string_view b) { return name_less(a.name, b); });
  return it != props.end() && it->name == key ? &*it : nullptr;
}

inline bool evaluator::eval_array(const node& n, const json::array& a, annotations* local) {
  bool ok = true;
  const std::size_t size = a.size();
  if (n.min_items && size < *n.min_items) {
    ok = false;
    if (!fail(n, "minItems", [&] {
          return "the array has " + std::to_string(size) + " items, fewer than the minimum " +
                 std::to_string(*n.min_items);
        }))
      return false;
  }
  if (n.max_items && size > *n.max_items) {
    ok = false;
    if (!fail(n, "maxItems", [&] {
          return "the array has " + std::to_string(size) + " items, more than the maximum " +
                 std::to_string(*n.max_items);
        }))
      return false;
  }
  const std::size_t prefix = std::min(size, n.prefix_items.size());
  for (std::size_t i = 0; i < prefix; ++i) {
    push(i);
    const bool r = eval(n.prefix_items[i], a[i], nullptr);
    pop();
    if (!r) {
      ok = false;
      if (!keep_going()) return false;
    }
  }
  if (local != nullptr) local->prefix = std::max(local->prefix, prefix);
  if (n.items != no_node && size > prefix) {
    if (p_.nodes[n.items].always_false) {
      ok = false;
      if (!fail(n, "items", [&] {
            return "the array has " + std::to_string(size) + " items, at most " +
                   std::to_string(prefix) + " are allowed";
          }))
        return false;
    } else {
      for (std::size_t i = prefix; i < size; ++i) {
        push(i);
        const bool r = eval(n.items, a[i], nullptr);
        pop();
        if (!r) {
          ok = false;
          if (!keep_going()) return false;
        }
      }
    }
    if (local != nullptr) local->all_items = true;
  }
  if (n.contains != no_node) {
    std::size_t matches = 0;
    for (std::size_t i = 0; i < size; ++i) {
      if (silent_eval(n.contains, a[i], nullptr)) {
        ++matches;
        if (local != nullptr) {
          local->mark_item(i);
        } else if (!n.max_contains && matches >= n.min_contains) {
          break;
        }
      }
    }
    if (matches < n.min_contains) {
      ok = false;
      if (!fail(n, "contains", [&] {
            return n.min_contains == 1
                       ? std::string("no item of the array matches the 'contains' schema")
                       : std::to_string(matches) + " items match the 'contains' schema, fewer " +
                             "than minContains " + std::to_string(n.min_contains);
          }))
        return false;
    }
    if (n.max_contains && matches > *n.max_contains) {
      ok = false;
      if (!fail(n, "maxContains", [&] {
            return std::to_string(matches) + " items match the 'contains' schema, more than " +
                   "maxContains " + std::to_string(*n.max_contains);
          }))
        return false;
    }
  }
  std::size_t first = 0, second = 0;
  const bool duplicate = n.unique_items && find_duplicate(a, first, second, too_deep_);
  if (too_deep_) {
    too_deep_to_compare(n, "uniqueItems");
    return false;
  }
  if (duplicate) {
    ok = false;
    if (!fail(n, "uniqueItems", [&] {
          return "items " + std::to_string(first) + " and " + std::to_string(second) +
                 " are equal (" + snippet(a[first], 40) + "); items must be unique";
        }))
      return false;
  }
  return ok;
}

inline bool evaluator::eval_object(const node& n, const json::value& inst, annotations* local) {
  bool ok = true;
  const json::object& o = inst.get_object();
  const std::size_t size = o.size();
  if (n.min_properties && size < *n.min_properties) {
    ok = false;
    if (!fail(n, "minProperties", [&] {
          return "the object has " + std::to_string(size) + " properties, fewer than the minimum " +
                 std::to_string(*n.min_properties);
        }))
      return false;
  }
  if (n.max_properties && size > *n.max_properties) {
    ok = false;
    if (!fail(n, "maxProperties", [&] {
          return "the object has " + std::to_string(size) + " properties, more than the maximum " +
                 std::to_string(*n.max_properties);
        }))
      return false;
  }
  std::uint64_t found = 0;
  if (!n.properties.empty() || !n.pattern_properties.empty() ||
      n.additional_properties != no_node) {
    std::size_t idx = 0;
    for (const auto& kv : o) {
      const std::string_view key = kv.key();
      bool matched = false;
      if (!n.properties.empty()) {
        if (const named_node* p = find_property(n, key)) {
          matched = true;
          const auto pi = static_cast<std::size_t>(p - n.properties.data());
          if (pi < 64) found |= std::uint64_t{1} << pi;
          push(key);
          const bool r = eval(p->schema, kv.value(), nullptr);
          pop();
          if (local != nullptr) local->mark_prop(idx);
          if (!r) {
            ok = false;
            if (!keep_going()) return false;
          }
        }
      }
      for (const auto& pp : n.pattern_properties) {
        const match_result m = pp.re->search(key);
        if (m == match_result::too_complex) {
          abort(n, "patternProperties",
                "the pattern " + quoted(pp.re->source()) + " is too complex to match against " +
                    quoted(key));
          return false;
        }
        if (m == match_result::no_match) continue;
        matched = true;
        push(key);
        const bool r = eval(pp.schema, kv.value(), nullptr);
        pop();
        if (local != nullptr) local->mark_prop(idx);
        if (!r) {
          ok = false;
          if (!keep_going()) return false;
        }
      }
      if (!matched && n.additional_properties != no_node) {
        bool r = false;
        if (p_.nodes[n.additional_properties].always_false) {
          r = fail(n, "additionalProperties", [&] {
            return "property " + quoted(key) + " is not allowed" + allowed_names(n);
          });
          ok = false;
          if (!r) return false;
        } else {
          push(key);
          r = eval(n.additional_properties, kv.value(), nullptr);
          pop();
          if (!r) {
            ok = false;
            if (!keep_going()) return false;
          }
        }
        if (local != nullptr) local->mark_prop(idx);
      }
      ++idx;
    }
  }
  if ((found & n.required_mask) != n.required_mask || !n.required_other.empty()) {
    for (const auto& name : n.required) {
      if (o.contains(name)) continue;
      ok = false;
      if (!fail(n, "required", [&] { return "missing required property " + quoted(name); }))
        return false;
    }
  }
  for (const auto& dr : n.dependent_required_) {
    if (!o.contains(dr.name)) continue;
    for (const auto& name : dr.required) {
      if (o.contains(name)) continue;
      ok = false;
      if (!fail(n, "dependentRequired", [&] {
            return "property " + quoted(name) + " is required when " + quoted(dr.name) +
                   " is present";
          }))
        return false;
    }
  }
  for (const auto& ds : n.dependent_schemas) {
    if (!o.contains(ds.name)) continue;
    if (!eval(ds.schema, inst, local)) {
      ok = false;
      if (!keep_going()) return false;
    }
  }
  if (n.property_names != no_node) {
    for (const auto& kv : o) {
      const json::value name(kv.key());
      if (silent_eval(n.property_names, name, nullptr)) continue;
      ok = false;
      if (!fail(n, "propertyNames", [&] {
            return "property name " + quoted(kv.key()) + " is not allowed by propertyNames";
          }))
        return false;
    }
  }
  return ok;
}

inline std::string evaluator::allowed_names(const node& n) {
  if (n.properties.empty() || !n.pattern_properties.empty()) return "";
  std::vector<std::string_view> names;
  for (const auto& p : n.properties) names.emplace_back(p.name);
  std::sort(names.begin(), names.end());
  std::string s = " (allowed: ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (s.size() > 200) {
      s += ", ...";
      break;
    }
    if (i != 0) s += ", ";
    s += names[i];
  }
  return s + ")";
}

inline bool evaluator::eval_unevaluated(const node& n, const json::value& inst, annotations& own) {
  bool ok = true;
  if (n.unevaluated_properties != no_node && inst.is_object()) {
    const bool forbid = p_.nodes[n.unevaluated_properties].always_false;
    std::size_t idx = 0;
    for (const auto& kv : inst.get_object()) {
      if (!own.prop(idx)) {
        bool r = false;
        if (forbid) {
          r = fail(n, "unevaluatedProperties", [&] {
            return "property " + quoted(kv.key()) +
                   " is not allowed (unevaluatedProperties is false)";
          });
          ok = false;
          if (!r) return false;
        } else {
          push(kv.key());
          r = eval(n.unevaluated_properties, kv.value(), nullptr);
          pop();
          if (!r) {
            ok = false;
            if (!keep_going()) return false;
          }
        }
      }
      ++idx;
    }
    own.all_props = true;
  }
  if (n.unevaluated_items != no_node && inst.is_array()) {
    const auto& a = inst.get_array();
    const bool forbid = p_.nodes[n.unevaluated_items].always_false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (own.item(i)) continue;
      if (forbid) {
        ok = false;
        if (!fail(n, "unevaluatedItems", [&] {
              return "item " + std::to_string(i) + " is not allowed (unevaluatedItems is false)";
            }))
          return false;
      } else {
        push(i);
        const bool r = eval(n.unevaluated_items, a[i], nullptr);
        pop();
        if (!r) {
          ok = false;
          if (!keep_going()) return false;
        }
      }
    }
    own.all_items = true;
  }
  return ok;
}
