// The schema compiler: indexes every document it meets (base URIs, $id resources, anchors),
// resolves $ref/$dynamicRef to node indices and turns keyword values into the flat program.
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <new>
#include <stdexcept>

#include "json_schema/compiler.hpp"
#include "json_schema/formats.hpp"
#include "json_schema/metaschemas.hpp"
#include "json_schema/optimize.hpp"
#include "json_schema/values.hpp"

namespace mcp::json_schema {

void schema_registry::add(std::string uri, json::value schema) {
  if (!uri.empty() && uri.back() == '#') uri.pop_back();
  schemas_.insert_or_assign(std::move(uri), std::move(schema));
}

const json::value* schema_registry::find(const std::string& uri) const {
  const auto it = schemas_.find(uri);
  return it == schemas_.end() ? nullptr : &it->second;
}

namespace detail {

namespace {

constexpr std::string_view default_base = "urn:mcp-cpp:schema";
constexpr std::string_view uri_2020_12 = "https://json-schema.org/draft/2020-12/schema";

struct vocab_name {
  std::string_view uri;
  std::uint16_t bit;
};
constexpr std::array<vocab_name, 8> vocab_names{{
    {"https://json-schema.org/draft/2020-12/vocab/core", v_core},
    {"https://json-schema.org/draft/2020-12/vocab/applicator", v_applicator},
    {"https://json-schema.org/draft/2020-12/vocab/unevaluated", v_unevaluated},
    {"https://json-schema.org/draft/2020-12/vocab/validation", v_validation},
    {"https://json-schema.org/draft/2020-12/vocab/meta-data", v_meta_data},
    {"https://json-schema.org/draft/2020-12/vocab/format-annotation", v_format_annotation},
    {"https://json-schema.org/draft/2020-12/vocab/format-assertion", v_format_assertion},
    {"https://json-schema.org/draft/2020-12/vocab/content", v_content},
}};

constexpr std::uint16_t all_vocabs = v_core | v_applicator | v_unevaluated | v_validation |
                                     v_meta_data | v_format_annotation | v_content;

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hexval = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
      out += static_cast<char>(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string where(const std::string& location) { return location.empty() ? "(root)" : location; }

enum class sub_kind { none, single, array, map, items7, dependencies };

sub_kind subschema_kind(const dialect_info& di, std::string_view k) {
  const dialect d = di.d;
  if (di.draft2019) {
    if (k == "items") return sub_kind::items7;
    if (k == "additionalItems") return sub_kind::single;
    if (k == "prefixItems") return sub_kind::none;
  }
  if (d == dialect::draft2020_12) {
    if (k == "additionalProperties" || k == "unevaluatedProperties" || k == "unevaluatedItems" ||
        k == "items" || k == "contains" || k == "propertyNames" || k == "if" || k == "then" ||
        k == "else" || k == "not" || k == "contentSchema")
      return sub_kind::single;
    if (k == "prefixItems" || k == "allOf" || k == "anyOf" || k == "oneOf") return sub_kind::array;
    if (k == "$defs" || k == "definitions" || k == "properties" || k == "patternProperties" ||
        k == "dependentSchemas")
      return sub_kind::map;
    if (k == "dependencies") return sub_kind::dependencies;
    return sub_kind::none;
  }
  if (k == "additionalItems" || k == "additionalProperties" || k == "contains" ||
      k == "propertyNames" || k == "if" || k == "then" || k == "else" || k == "not")
    return sub_kind::single;
  if (k == "items") return sub_kind::items7;
  if (k == "allOf" || k == "anyOf" || k == "oneOf") return sub_kind::array;
  if (k == "definitions" || k == "properties" || k == "patternProperties") return sub_kind::map;
  if (k == "dependencies") return sub_kind::dependencies;
  return sub_kind::none;
}

std::string child_location(const std::string& parent, std::string_view token) {
  std::string s = parent;
  append_pointer_token(s, token);
  return s;
}

std::string child_location(const std::string& parent, std::size_t index) {
  return parent + "/" + std::to_string(index);
}

}  // namespace

compiler::compiler(const compile_options& opts) : opts_(opts) {}

[[noreturn]] void compiler::fail(const std::string& location, const std::string& message) const {
  throw compile_error("invalid schema at " + where(location) + ": " + message);
}

std::string compiler::resolve(const std::string& base, std::string_view ref,
                              const std::string& location) const {
  if (!ref.empty() && ref.front() == '#') return base + std::string(ref);
  auto r = boost::urls::parse_uri_reference(ref);
  if (!r) fail(location, "\"" + std::string(ref) + "\" is not a valid URI reference");
  if (r->has_scheme()) {
    boost::urls::url u(*r);
    u.normalize_path();
    return std::string(u.buffer());
  }
  auto b = boost::urls::parse_uri(base);
  boost::urls::url out;
  if (!b || !boost::urls::resolve(*b, *r, out))
    fail(location, "cannot resolve \"" + std::string(ref) + "\" against base URI " + base);
  return std::string(out.buffer());
}

dialect_info compiler::dialect_of(const json::value& schema_uri, const std::string& location,
                                  int depth) {
  if (!schema_uri.is_string()) fail(location, "$schema must be a string");
  std::string u(schema_uri.get_string());
  if (!u.empty() && u.back() == '#') u.pop_back();
  if (u == uri_2020_12) return {dialect::draft2020_12, all_vocabs};
  if (u == "https://json-schema.org/draft/2019-09/schema")
    return {dialect::draft2020_12, all_vocabs, true};
  if (u == "http://json-schema.org/draft-07/schema" ||
      u == "https://json-schema.org/draft-07/schema")
    return {dialect::draft7, all_vocabs};
  const json::value* meta = opts_.registry != nullptr ? opts_.registry->find(u) : nullptr;
  if (meta == nullptr || !meta->is_object() || depth > 8)
    fail(location,
         "unknown $schema dialect \"" + u +
             "\" (supported: https://json-schema.org/draft/2020-12/schema, "
             "http://json-schema.org/draft-07/schema#, or a meta-schema in the registry)");
  const auto& mo = meta->get_object();
  dialect_info base{opts_.default_dialect, all_vocabs};
  if (const auto* s = mo.if_contains("$schema"); s != nullptr && *s != schema_uri)
    base = dialect_of(*s, location, depth + 1);
  if (const auto* voc = mo.if_contains("$vocabulary"); voc != nullptr && voc->is_object()) {
    std::uint16_t bits = v_core;
    for (const auto& kv : voc->get_object()) {
      const auto it = std::find_if(vocab_names.begin(), vocab_names.end(),
                                   [&](const vocab_name& v) { return v.uri == kv.key(); });
      if (it != vocab_names.end()) {
        bits = static_cast<std::uint16_t>(bits | it->bit);
      } else if (kv.value().is_bool() && kv.value().get_bool()) {
        fail(location, "the meta-schema \"" + u + "\" requires the unknown vocabulary \"" +
                           std::string(kv.key()) + "\"");
      }
    }
    base.vocabs = bits;
  }
  return base;
}

std::uint32_t compiler::add_resource(const std::string& uri) {
  prog_.resources.push_back(resource{uri, {}});
  resource_anchors_.emplace_back();
  return static_cast<std::uint32_t>(prog_.resources.size() - 1);
}

void compiler::index(const json::value& v, const std::string& location, std::string base,
                     std::uint32_t res, dialect_info d, bool doc_root, std::size_t depth) {
  if (depth > 1000) fail(location, "the schema is nested more than 1000 levels deep");
  if (info_.count(&v) != 0) return;
  if (!v.is_object()) {
    if (v.is_bool()) info_.emplace(&v, schema_info{location, base, res, d});
    return;
  }
  const auto& o = v.get_object();
  const json::value* id = o.if_contains("$id");
  if (const auto* s = o.if_contains("$schema"); s != nullptr && (doc_root || id != nullptr))
    d = dialect_of(*s, location + "/$schema", 0);
  // draft-07: every sibling of $ref is ignored, $id included.
  if (d.d == dialect::draft7 && o.contains("$ref")) id = nullptr;
  if (id != nullptr) {
    if (!id->is_string()) fail(location + "/$id", "$id must be a string");
    const std::string_view text = id->get_string();
    const std::string resolved = resolve(base, text, location + "/$id");
    const std::size_t hash = resolved.find('#');
    const std::string no_frag = resolved.substr(0, hash);
    const std::string frag = hash == std::string::npos ? "" : resolved.substr(hash + 1);
    if (!frag.empty() && d.d == dialect::draft2020_12)
      fail(location + "/$id", "$id must not contain a fragment (use $anchor)");
    if (d.d == dialect::draft7 && !text.empty() && text.front() == '#') {
      uris_.emplace(base + "#" + frag, &v);  // a location-independent identifier
    } else {
      base = no_frag;
      if (!doc_root || uris_.count(base) == 0) {
        res = add_resource(base);
      }
      uris_.emplace(base, &v);
      if (!frag.empty()) uris_.emplace(base + "#" + frag, &v);
    }
  }
  if (d.d == dialect::draft2020_12) {
    if (const auto* a = o.if_contains("$anchor")) {
      if (!a->is_string()) fail(location + "/$anchor", "$anchor must be a string");
      uris_.emplace(base + "#" + std::string(a->get_string()), &v);
    }
    if (const auto* a = o.if_contains("$dynamicAnchor")) {
      if (!a->is_string()) fail(location + "/$dynamicAnchor", "$dynamicAnchor must be a string");
      const std::string name(a->get_string());
      uris_.emplace(base + "#" + name, &v);
      resource_anchors_[res].emplace_back(name, &v);
    }
  }
  info_.emplace(&v, schema_info{location, base, res, d});
  for (const auto& kv : o) {
    const json::value& c = kv.value();
    const std::string loc = child_location(location, kv.key());
    switch (subschema_kind(d, kv.key())) {
      case sub_kind::none:
        break;
      case sub_kind::single:
        index(c, loc, base, res, d, false, depth + 1);
        break;
      case sub_kind::items7:
      case sub_kind::array:
        if (c.is_array()) {
          const auto& arr = c.get_array();
          for (std::size_t i = 0; i < arr.size(); ++i)
            index(arr[i], child_location(loc, i), base, res, d, false, depth + 1);
        } else {
          index(c, loc, base, res, d, false, depth + 1);
        }
        break;
      case sub_kind::map:
      case sub_kind::dependencies:
        if (c.is_object())
          for (const auto& m : c.get_object())
            index(m.value(), child_location(loc, m.key()), base, res, d, false, depth + 1);
        break;
    }
  }
}

const json::value* compiler::find_resource(const std::string& uri, const std::string& location) {
  if (const auto it = uris_.find(uri); it != uris_.end()) return it->second;
  const json::value* doc = opts_.registry != nullptr ? opts_.registry->find(uri) : nullptr;
  if (doc == nullptr) doc = builtin_schema(uri);
  if (doc == nullptr)
    fail(location, "cannot resolve the reference to \"" + uri +
                       "\": no schema with that URI is registered (remote schemas are never "
                       "fetched; add it to the schema_registry)");
  uris_.emplace(uri, doc);
  const std::uint32_t res = add_resource(uri);
  index(*doc, uri + "#", uri, res, dialect_info{opts_.default_dialect, all_vocabs}, true, 0);
  return doc;
}

const json::value* compiler::resolve_ref(const schema_info& from, const json::value& ref,
                                         const std::string& location, std::string* fragment) {
  if (!ref.is_string()) fail(location, "the reference must be a string");
  const std::string target = resolve(from.base, ref.get_string(), location);
  const std::size_t hash = target.find('#');
  const std::string doc = target.substr(0, hash);
  const std::string frag =
      hash == std::string::npos ? "" : percent_decode(std::string_view(target).substr(hash + 1));
  if (fragment != nullptr) *fragment = frag;
  const json::value* root = find_resource(doc, location);
  if (frag.empty()) return root;
  if (frag.front() != '/') {
    const auto it = uris_.find(doc + "#" + frag);
    if (it == uris_.end())
      fail(location, "cannot resolve \"" + std::string(ref.get_string()) + "\": no anchor \"" +
                         frag + "\" in " + doc);
    return it->second;
  }
  // A JSON Pointer from the resource root.
  const json::value* cur = root;
  std::size_t pos = 1;
  while (true) {
    const std::size_t end = std::min(frag.find('/', pos), frag.size());
    std::string token;
    for (std::size_t i = pos; i < end; ++i) {
      if (frag[i] == '~' && i + 1 < end && (frag[i + 1] == '0' || frag[i + 1] == '1')) {
        token += frag[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += frag[i];
      }
    }
    const json::value* next = nullptr;
    if (cur->is_object()) {
      next = cur->get_object().if_contains(token);
    } else if (cur->is_array()) {
      std::size_t idx = 0;
      const bool digits = !token.empty() && std::all_of(token.begin(), token.end(), [](char c) {
        return c >= '0' && c <= '9';
      });
      if (digits && token.size() < 10) {
        idx = static_cast<std::size_t>(std::stoull(token));
        if (idx < cur->get_array().size()) next = &cur->get_array()[idx];
      }
    }
    if (next == nullptr)
      fail(location, "cannot resolve \"" + std::string(ref.get_string()) +
                         "\": the JSON Pointer does not exist in " + doc);
    cur = next;
    if (end >= frag.size()) break;
    pos = end + 1;
  }
  if (info_.count(cur) == 0) {
    const schema_info& ri = info_.at(root);
    index(*cur, ri.location + frag, ri.base, ri.resource, ri.dial, false, 0);
  }
  return cur;
}

node_id compiler::node_for(const json::value& v, const std::string& location) {
  if (!v.is_object() && !v.is_bool()) fail(location, "a subschema must be an object or a boolean");
  const auto [it, inserted] = memo_.try_emplace(&v, static_cast<node_id>(pending_.size()));
  if (inserted) pending_.push_back(&v);
  return it->second;
}

result<program> compiler::build(const json::value& root) {
  try {
    if (!root.is_object() && !root.is_bool())
      fail("", "a schema must be an object or a boolean, not " + std::string(type_name(root)));
    const std::string base(default_base);
    const std::uint32_t res = add_resource(base);
    uris_.emplace(base, &root);
    index(root, "", base, res, dialect_info{opts_.default_dialect, all_vocabs}, true, 0);
    prog_.root_dialect = info_.at(&root).dial.d;
    prog_.root = node_for(root, "");
    std::size_t done = 0;
    while (done < pending_.size()) {
      while (done < pending_.size()) {
        prog_.nodes.resize(pending_.size());
        compile_node(static_cast<node_id>(done), *pending_[done]);
        ++done;
      }
      // Every $dynamicAnchor whose name some $dynamicRef looks up must be compiled.
      for (std::size_t r = 0; r < resource_anchors_.size(); ++r) {
        for (const auto& anchor : resource_anchors_[r]) {
          const auto& name = anchor.first;
          const auto* value = anchor.second;
          if (dynamic_names_.count(name) == 0) continue;
          auto& anchors = prog_.resources[r].dynamic_anchors;
          if (std::any_of(anchors.begin(), anchors.end(),
                          [&](const named_node& a) { return a.name == name; }))
            continue;
          anchors.push_back(named_node{name, node_for(*value, info_.at(value).location)});
        }
      }
    }
    prog_.nodes.resize(pending_.size());
    optimize(prog_);
    prog_.max_depth = opts_.max_depth;
    prog_.max_steps = opts_.max_steps;
    return std::move(prog_);
  } catch (const compile_error& e) {
    return error{errc::invalid_params, e.what()};
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return error{errc::invalid_params, std::string("invalid schema: ") + e.what()};
  }
}

}  // namespace detail

result<validator> validator::compile(const json::value& schema, const compile_options& opts) {
  detail::compiler c(opts);
  auto p = c.build(schema);
  if (!p) return p.error();
  return validator(std::make_shared<const detail::program>(std::move(*p)));
}

dialect validator::root_dialect() const noexcept { return program_->root_dialect; }

}  // namespace mcp::json_schema
