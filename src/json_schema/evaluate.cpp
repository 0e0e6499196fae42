// The evaluator: walks the compiled program over an instance. One evaluator per call; it
// allocates nothing on the success path unless the schema needs annotations (unevaluated*),
// the dynamic scope ($dynamicRef) or uniqueItems hashing.
// Array, object and unevaluated* keywords are defined in evaluate_containers.ipp, included
// below: one translation unit, so the compiler still inlines across the two files (as two
// translation units the validator measured 3 to 5 % slower).
#include <algorithm>
#include <array>
#include <functional>
#include <optional>

#include "json_schema/formats.hpp"
#include "json_schema/program.hpp"
#include "json_schema/values.hpp"

namespace mcp::json_schema {

namespace detail {

namespace {

/// Which properties / items of the current instance some keyword has evaluated (for
/// unevaluatedProperties / unevaluatedItems).
struct annotations {
  bool all_props = false;
  std::vector<bool> props;  // by member position
  bool all_items = false;
  std::size_t prefix = 0;   // items [0, prefix) evaluated
  std::vector<bool> items;  // items marked by contains

  void mark_prop(std::size_t i) {
    if (props.size() <= i) props.resize(i + 1);
    props[i] = true;
  }
  void mark_item(std::size_t i) {
    if (items.size() <= i) items.resize(i + 1);
    items[i] = true;
  }
  [[nodiscard]] bool prop(std::size_t i) const {
    return all_props || (i < props.size() && props[i]);
  }
  [[nodiscard]] bool item(std::size_t i) const {
    return all_items || i < prefix || (i < items.size() && items[i]);
  }
  void merge(const annotations& o) {
    all_props = all_props || o.all_props;
    all_items = all_items || o.all_items;
    prefix = std::max(prefix, o.prefix);
    for (std::size_t i = 0; i < o.props.size(); ++i)
      if (o.props[i]) mark_prop(i);
    for (std::size_t i = 0; i < o.items.size(); ++i)
      if (o.items[i]) mark_item(i);
  }
};

struct path_segment {
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;
};

// type_bit accepted by each json::kind (null, bool, int64, uint64, double, string, array,
// object); a double also matches integer_bit when it has no fractional part.
constexpr std::array<std::uint8_t, 8> kind_bits{null_bit,
                                                boolean_bit,
                                                number_bit | integer_bit,
                                                number_bit | integer_bit,
                                                number_bit,
                                                string_bit,
                                                array_bit,
                                                object_bit};

bool type_matches(std::uint8_t t, const json::value& v) noexcept {
  const auto k = static_cast<std::size_t>(v.kind());
  if (k < kind_bits.size() && (t & kind_bits[k]) != 0) return true;
  return v.is_double() && (t & integer_bit) != 0 && is_integer(v);
}

std::string type_list(std::uint8_t t) {
  static constexpr std::array<std::pair<std::uint8_t, const char*>, 7> names{{
      {null_bit, "null"},
      {boolean_bit, "boolean"},
      {object_bit, "object"},
      {array_bit, "array"},
      {number_bit, "number"},
      {string_bit, "string"},
      {integer_bit, "integer"},
  }};
  std::string out;
  for (const auto& [bit, name] : names) {
    if ((t & bit) == 0) continue;
    if (!out.empty()) out += " or ";
    out += name;
  }
  return out;
}

std::string quoted(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

class evaluator {
 public:
  evaluator(const program& p, std::vector<validation_error>* errors, bool all_errors)
      : p_(p), errors_(errors), all_errors_(all_errors) {}

  bool run(const json::value& instance) {
    const bool ok = eval(p_.root, instance, nullptr);
    if (!aborted_) return ok;
    if (errors_ != nullptr) {
      errors_->clear();
      errors_->push_back(std::move(abort_error_));
    }
    return false;
  }

 private:
  [[nodiscard]] bool collecting() const noexcept { return errors_ != nullptr && silent_ == 0; }
  [[nodiscard]] bool keep_going() const noexcept { return all_errors_ && silent_ == 0; }

  std::string instance_location() const {
    std::string s;
    for (const auto& seg : path_) {
      if (seg.is_index) {
        s += '/';
        s += std::to_string(seg.index);
      } else {
        append_pointer_token(s, seg.key);
      }
    }
    return s;
  }

  // Records an error (when collecting); returns true when evaluation should go on.
  template <class MakeMessage>
  bool fail(const node& n, std::string_view keyword, MakeMessage&& make) {
    if (collecting() && !aborted_) {
      validation_error e;
      e.instance_location = instance_location();
      e.keyword_location = n.location;
      if (!keyword.empty()) append_pointer_token(e.keyword_location, keyword);
      e.message = (e.instance_location.empty() ? std::string("(root)") : e.instance_location) +
                  ": " + make();
      errors_->push_back(std::move(e));
    }
    return keep_going();
  }

  void abort(const node& n, std::string_view keyword, std::string message) {
    if (aborted_) return;
    aborted_ = true;
    abort_error_.instance_location = instance_location();
    abort_error_.keyword_location = n.location;
    if (!keyword.empty()) append_pointer_token(abort_error_.keyword_location, keyword);
    abort_error_.message =
        (abort_error_.instance_location.empty() ? std::string("(root)")
                                                : abort_error_.instance_location) +
        ": " + message;
  }

  void push(std::string_view key) {
    if (errors_ != nullptr) path_.push_back(path_segment{key, 0, false});
  }
  void push(std::size_t index) {
    if (errors_ != nullptr) path_.push_back(path_segment{{}, index, true});
  }
  void pop() {
    if (errors_ != nullptr) path_.pop_back();
  }

  void too_deep_to_compare(const node& n, const char* keyword) {
    too_deep_ = false;
    abort(n, keyword, "the value is nested too deeply to compare (more than 512 levels)");
  }

  bool silent_eval(node_id id, const json::value& inst, annotations* ann) {
    ++silent_;
    const bool ok = eval(id, inst, ann);
    --silent_;
    return ok;
  }

  // The first error of each branch, for anyOf/oneOf messages (error path only).
  std::string branch_reasons(const std::vector<node_id>& branches, const json::value& inst) {
    std::string out;
    auto* saved_errors = errors_;
    const bool saved_all = all_errors_;
    const std::size_t saved_silent = silent_;
    silent_ = 0;
    all_errors_ = false;
    const std::string here = instance_location();
    const std::string prefix = (here.empty() ? std::string("(root)") : here) + ": ";
    for (std::size_t i = 0; i < branches.size() && out.size() < 400; ++i) {
      std::vector<validation_error> errs;
      errors_ = &errs;
      (void)eval(branches[i], inst, nullptr);
      out += i == 0 ? " [" : "; [";
      out += std::to_string(i) + "] ";
      std::string m = errs.empty() ? std::string("invalid") : errs.front().message;
      if (m.rfind(prefix, 0) == 0) m.erase(0, prefix.size());  // same location as the anyOf
      if (m.size() > 160) m = m.substr(0, 157) + "...";
      out += m;
    }
    errors_ = saved_errors;
    all_errors_ = saved_all;
    silent_ = saved_silent;
    return out;
  }

  bool eval(node_id id, const json::value& inst, annotations* ann) {
    const node& n = p_.nodes[id];
    if (aborted_) return false;
    if (++steps_ > p_.max_steps) {
      abort(n, "",
            "validation stopped after " + std::to_string(p_.max_steps) +
                " subschema evaluations (compile_options::max_steps)");
      return false;
    }
    if (n.always_false) {
      (void)fail(n, "", [] { return std::string("no value is allowed here (schema is false)"); });
      return false;
    }
    if (n.groups == 0) return true;
    if (depth_ >= p_.max_depth) {
      abort(n, "",
            "validation stopped: nesting deeper than " + std::to_string(p_.max_depth) +
                " levels (instance depth plus $ref recursion; compile_options::max_depth)");
      return false;
    }
    ++depth_;
    bool pushed = false;
    if (p_.uses_dynamic_scope && (scope_.empty() || scope_.back() != n.resource)) {
      scope_.push_back(n.resource);
      pushed = true;
    }
    const bool ok = (n.groups & g_unevaluated) != 0 ? eval_node_unevaluated(n, inst, ann)
                                                    : eval_node(n, inst, ann);
    if (pushed) scope_.pop_back();
    --depth_;
    return ok;
  }

  // A node with unevaluated*: collects its own annotations, then applies them.
  bool eval_node_unevaluated(const node& n, const json::value& inst, annotations* ann) {
    annotations own;
    bool ok = eval_node(n, inst, &own);
    if (!ok && !keep_going()) return false;
    if (!eval_unevaluated(n, inst, own)) {
      ok = false;
      if (!keep_going()) return false;
    }
    if (ann != nullptr) ann->merge(own);
    return ok;
  }

  bool eval_node(const node& n, const json::value& inst, annotations* local) {
    bool ok = true;
    const std::uint32_t g = n.groups;
    if ((g & (g_enum | g_const)) != 0 && !check_values(n, inst)) {
      ok = false;
      if (!keep_going()) return false;
    }

    if ((g & g_type) != 0 && !type_matches(n.types, inst)) {
      ok = false;
      if (!fail(n, "type", [&] {
            return snippet(inst) + " is not of type " + type_list(n.types) + " (it is " +
                   type_name(inst) + ")";
          }))
        return false;
    }
    if ((g & g_number) != 0 && inst.is_number() && !eval_number(n, inst)) {
      ok = false;
      if (!keep_going()) return false;
    }
    if ((g & g_string) != 0 && inst.is_string() && !eval_string(n, inst)) {
      ok = false;
      if (!keep_going()) return false;
    }
    if ((g & g_array) != 0 && inst.is_array() && !eval_array(n, inst.get_array(), local)) {
      ok = false;
      if (!keep_going()) return false;
    }
    if ((g & g_object) != 0 && inst.is_object() && !eval_object(n, inst, local)) {
      ok = false;
      if (!keep_going()) return false;
    }
    if ((g & g_ref) != 0 && !eval(n.ref, inst, local)) {
      ok = false;
      if (!keep_going()) return false;
    }
    if ((g & g_dynref) != 0 && !eval(dynamic_target(n), inst, local)) {
      ok = false;
      if (!keep_going()) return false;
    }
    if ((g & g_logic) != 0 && !eval_logic(n, inst, local)) {
      ok = false;
      if (!keep_going()) return false;
    }
    return ok;
  }

  node_id dynamic_target(const node& n) const {
    if (!n.dynamic_name.empty()) {
      for (const std::uint32_t r : scope_)
        for (const auto& a : p_.resources[r].dynamic_anchors)
          if (a.name == n.dynamic_name) return a.schema;
    }
    return n.dynamic_ref;
  }

  // enum and const.
  bool check_values(const node& n, const json::value& inst) {
    bool ok = true;
    if ((n.groups & g_enum) != 0) {
      const bool found =
          std::any_of(n.enum_values.begin(), n.enum_values.end(),
                      [&](const json::value& e) { return json_equal(e, inst, too_deep_); });
      if (!found && too_deep_) {
        too_deep_to_compare(n, "enum");
        return false;
      }
      if (!found) {
        ok = false;
        if (!fail(n, "enum", [&] {
              std::string allowed;
              for (const auto& e : n.enum_values) {
                if (allowed.size() > 200) {
                  allowed += ", ...";
                  break;
                }
                if (!allowed.empty()) allowed += ", ";
                allowed += snippet(e, 40);
              }
              return snippet(inst) + " is not one of the allowed values: " + allowed;
            }))
          return false;
      }
    }
    if ((n.groups & g_const) != 0 && !json_equal(n.const_value, inst, too_deep_)) {
      if (too_deep_) {
        too_deep_to_compare(n, "const");
        return false;
      }
      ok = false;
      if (!fail(n, "const", [&] {
            return snippet(inst) + " is not the required value " + snippet(n.const_value);
          }))
        return false;
    }
    return ok;
  }

  bool eval_number(const node& n, const json::value& inst) {
    bool ok = true;
    const long double x = to_long_double(inst);
    auto check = [&](bool bad, const char* kw, const char* what, const number_bound& b) {
      if (!bad) return true;
      ok = false;
      return fail(n, kw, [&] { return snippet(inst) + what + snippet(b.number); });
    };
    if (n.minimum &&
        !check(x < n.minimum->value, "minimum", " is less than the minimum ", *n.minimum))
      return false;
    if (n.maximum &&
        !check(x > n.maximum->value, "maximum", " is greater than the maximum ", *n.maximum))
      return false;
    if (n.exclusive_minimum &&
        !check(x <= n.exclusive_minimum->value, "exclusiveMinimum",
               " is not greater than the exclusive minimum ", *n.exclusive_minimum))
      return false;
    if (n.exclusive_maximum &&
        !check(x >= n.exclusive_maximum->value, "exclusiveMaximum",
               " is not less than the exclusive maximum ", *n.exclusive_maximum))
      return false;
    if (n.multiple_of && !check(!is_multiple_of(inst, n.multiple_of->number), "multipleOf",
                                " is not a multiple of ", *n.multiple_of))
      return false;
    return ok;
  }

  bool eval_string(const node& n, const json::value& inst) {
    bool ok = true;
    const auto& js = inst.get_string();
    const std::string_view s(js.data(), js.size());
    if (n.min_length || n.max_length) {
      // Code points <= bytes, so the byte count often settles both bounds.
      const bool need = (n.min_length && s.size() < *n.min_length * 4) ||
                        (n.max_length && s.size() > *n.max_length);
      const std::size_t len = need ? code_points(s) : 0;
      if (n.min_length && need && len < *n.min_length) {
        ok = false;
        if (!fail(n, "minLength", [&] {
              return snippet(inst) + " is shorter than the minimum length " +
                     std::to_string(*n.min_length) + " (it has " + std::to_string(len) +
                     " characters)";
            }))
          return false;
      }
      if (n.max_length && need && len > *n.max_length) {
        ok = false;
        if (!fail(n, "maxLength", [&] {
              return snippet(inst) + " is longer than the maximum length " +
                     std::to_string(*n.max_length) + " (it has " + std::to_string(len) +
                     " characters)";
            }))
          return false;
      }
    }
    if (n.pattern) {
      const match_result r = n.pattern->search(s);
      if (r == match_result::too_complex) {
        abort(n, "pattern",
              "the pattern " + quoted(n.pattern->source()) +
                  " is too complex to match against this string");
        return false;
      }
      if (r == match_result::no_match) {
        ok = false;
        if (!fail(n, "pattern", [&] {
              return snippet(inst) + " does not match the pattern " + n.pattern->source();
            }))
          return false;
      }
    }
    if (n.format != format_kind::none && !check_format(n.format, s)) {
      ok = false;
      if (!fail(n, "format",
                [&] { return snippet(inst) + " is not a valid " + format_name(n.format); }))
        return false;
    }
    return ok;
  }

  bool eval_array(const node& n, const json::array& a, annotations* local);

  bool eval_object(const node& n, const json::value& inst, annotations* local);

  static std::string allowed_names(const node& n);

  bool eval_logic(const node& n, const json::value& inst, annotations* local) {
    bool ok = true;
    for (const node_id s : n.all_of) {
      if (!eval(s, inst, local)) {
        ok = false;
        if (!keep_going()) return false;
      }
    }
    if (!n.any_of.empty()) {
      bool any = false;
      const std::uint8_t kind = kind_bit(inst.kind());
      for (const node_id s : n.any_of) {
        if ((p_.nodes[s].accepts & kind) == 0) continue;
        if (local == nullptr) {
          if (silent_eval(s, inst, nullptr)) {
            any = true;
            break;
          }
        } else {
          annotations branch;
          if (silent_eval(s, inst, &branch)) {
            any = true;
            local->merge(branch);
          }
        }
      }
      if (!any) {
        ok = false;
        if (!fail(n, "anyOf", [&] {
              return snippet(inst) +
                     " matches none of the anyOf alternatives:" + branch_reasons(n.any_of, inst);
            }))
          return false;
      }
    }
    if (!n.one_of.empty()) {
      std::size_t matches = 0, first = 0, second = 0;
      annotations matched;
      const std::uint8_t kind = kind_bit(inst.kind());
      for (std::size_t i = 0; i < n.one_of.size(); ++i) {
        if ((p_.nodes[n.one_of[i]].accepts & kind) == 0) continue;
        annotations branch;
        if (!silent_eval(n.one_of[i], inst, local != nullptr ? &branch : nullptr)) continue;
        if (++matches == 1) {
          first = i;
          matched = std::move(branch);
        } else {
          second = i;
          break;
        }
      }
      if (matches == 1 && local != nullptr) local->merge(matched);
      if (matches != 1) {
        ok = false;
        if (!fail(n, "oneOf", [&] {
              if (matches == 0)
                return snippet(inst) +
                       " matches none of the oneOf alternatives:" + branch_reasons(n.one_of, inst);
              return snippet(inst) + " matches more than one oneOf alternative (" +
                     std::to_string(first) + " and " + std::to_string(second) +
                     "); exactly one must match";
            }))
          return false;
      }
    }
    if (n.not_ != no_node && silent_eval(n.not_, inst, nullptr)) {
      ok = false;
      if (!fail(n, "not", [&] { return snippet(inst) + " must not match the 'not' schema"; }))
        return false;
    }
    if (n.if_ != no_node) {
      annotations cond_ann;
      const bool cond = silent_eval(n.if_, inst, local != nullptr ? &cond_ann : nullptr);
      if (cond && local != nullptr) local->merge(cond_ann);
      const node_id branch = cond ? n.then_ : n.else_;
      if (branch != no_node && !eval(branch, inst, local)) {
        ok = false;
        if (!keep_going()) return false;
      }
    }
    return ok;
  }

  bool eval_unevaluated(const node& n, const json::value& inst, annotations& own);

  const program& p_;
  std::vector<validation_error>* errors_;
  bool all_errors_;
  std::size_t silent_ = 0;
  std::size_t depth_ = 0;
  std::size_t steps_ = 0;
  bool aborted_ = false;
  bool too_deep_ = false;
  validation_error abort_error_;
  std::vector<path_segment> path_;
  std::vector<std::uint32_t> scope_;
};

#include "json_schema/evaluate_containers.ipp"

/// `is_valid` for a flat program (program::flat): what the evaluator decides, in one pass over
/// the instance's members. Nullopt where the evaluator's depth or step limit could stop first.
std::optional<bool> flat_valid(const program& p, const json::value& inst) {
  const node& r = p.nodes[p.root];
  if ((r.groups & g_type) != 0 && !type_matches(r.types, inst)) return false;
  const json::object* o = inst.if_object();
  if (o == nullptr || (r.groups & g_object) == 0) return true;
  if (p.max_depth < 2 || o->size() >= p.max_steps) return std::nullopt;
  const bool closed = r.additional_properties != no_node;
  std::uint64_t found = 0;
  for (const auto& kv : *o) {
    const named_node* prop = r.properties.empty() ? nullptr : find_property(r, kv.key());
    if (prop == nullptr) {
      if (closed) return false;
      continue;
    }
    found |= std::uint64_t{1} << static_cast<std::size_t>(prop - r.properties.data());
    const node& n = p.nodes[prop->schema];
    if (n.always_false || ((n.groups & g_type) != 0 && !type_matches(n.types, kv.value()))) {
      return false;
    }
  }
  return (found & r.required_mask) == r.required_mask;
}

}  // namespace

}  // namespace detail

bool validator::is_valid(const json::value& instance) const {
  if (program_->flat) {
    if (auto ok = detail::flat_valid(*program_, instance)) return *ok;
  }
  detail::evaluator e(*program_, nullptr, false);
  return e.run(instance);
}

std::vector<validation_error> validator::validate(const json::value& instance, mode m) const {
  std::vector<validation_error> errors;
  detail::evaluator e(*program_, &errors, m == mode::all_errors);
  (void)e.run(instance);
  if (m == mode::first_error && errors.size() > 1) errors.resize(1);
  return errors;
}

}  // namespace mcp::json_schema
