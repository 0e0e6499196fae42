// Non-template parts of mcp/reflect.hpp: JSON Pointer text, literals, error messages and the
// field metadata keywords of schemas.
#include <mcp/reflect.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp {

std::string json_path::to_string() const {
  std::vector<const json_path*> chain;
  for (const json_path* p = this; !p->is_root(); p = p->parent_) chain.push_back(p);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    out.push_back('/');
    if ((*it)->kind_ == kind::element) {
      std::array<char, 24> buf{};
      auto r = std::to_chars(buf.data(), buf.data() + buf.size(), (*it)->index_);
      out.append(buf.data(), r.ptr);
      continue;
    }
    for (char c : (*it)->name_) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out.push_back(c);
      }
    }
  }
  return out;
}
error json_path::make_error(std::string_view what) const {
  std::string ptr = to_string();
  std::string msg;
  msg.reserve(ptr.size() + 2 + what.size());
  if (!ptr.empty()) {
    msg += ptr;
    msg += ": ";
  }
  msg += what;
  json::object data;
  data.emplace("path", ptr);
  return error{errc::invalid_params, std::move(msg), json::value(std::move(data))};
}

json::value literal::to_json() const {
  switch (kind_) {
    case kind::none:
    case kind::null:
      return nullptr;
    case kind::boolean:
      return bool_;
    case kind::integer:
      return int_;
    case kind::unsigned_integer:
      // The kind the parser gives: int64 when it fits.
      if (std::cmp_less_equal(uint_, std::numeric_limits<std::int64_t>::max())) {
        return static_cast<std::int64_t>(uint_);
      }
      return uint_;
    case kind::number:
      return number_;
    case kind::string:
      return json::string(string_);
  }
  return nullptr;
}

namespace detail {

std::string describe_json(const json::value& v, bool with_kind) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return v.get_bool() ? "boolean true" : "boolean false";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return "number " + to_json_string(v);
    case json::kind::string: {
      std::string_view s = v.get_string();
      constexpr std::size_t max_len = 40;
      bool cut = s.size() > max_len;
      if (cut) {
        std::size_t n = max_len;
        // Do not split a UTF-8 sequence: back up over continuation bytes.
        while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0U) == 0x80U) --n;
        s = s.substr(0, n);
      }
      std::string out = with_kind ? "string " : "";
      append_json_string(out, s);
      if (cut) out.insert(out.size() - 1, "...");
      return out;
    }
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
  }
  return "value";
}
bool fail_expected(error& err, const json_path& path, std::string_view expected,
                   const json::value& v) {
  std::string what = "expected ";
  what += expected;
  what += ", got ";
  what += describe_json(v);
  err = path.make_error(what);
  return false;
}

namespace {

/// A schema number: written as an integer when it is one (1, not 1.0).
json::value schema_number(double d) {
  constexpr double exact = 9007199254740992.0;  // 2^53
  if (std::trunc(d) == d && std::fabs(d) <= exact) return static_cast<std::int64_t>(d);
  return d;
}

/// Lets `p` accept null: "type" becomes a type array (null is added to an "enum" too); a schema
/// without "type" becomes {"anyOf": [p, {"type": "null"}]}; an empty schema already accepts it.
void make_nullable(json::object& p) {
  if (p.empty()) return;
  if (json::value* t = p.if_contains("type")) {
    if (t->is_string()) {
      json::array types;
      types.emplace_back(t->get_string());
      types.emplace_back("null");
      *t = std::move(types);
    } else if (t->is_array()) {
      auto& types = t->get_array();
      if (std::find(types.begin(), types.end(), json::value("null")) == types.end()) {
        types.emplace_back("null");
      }
    }
    if (json::value* e = p.if_contains("enum"); e != nullptr && e->is_array()) {
      e->get_array().emplace_back(nullptr);
    }
    return;
  }
  json::array any_of;
  any_of.emplace_back(std::move(p));
  any_of.emplace_back(json::object{{"type", "null"}});
  p = json::object{};
  p.emplace("anyOf", std::move(any_of));
}

void put_number(json::object& p, std::string_view key, const std::optional<double>& v) {
  if (v) p.insert_or_assign(key, schema_number(*v));
}

void put_count(json::object& p, std::string_view key, const std::optional<std::int64_t>& v) {
  if (v) p.insert_or_assign(key, *v);
}

void put_text(json::object& p, std::string_view key, std::string_view v) {
  if (!v.empty()) p.insert_or_assign(key, v);
}

}  // namespace

void apply_field(json::object& p, const field& f, const json::value* default_value) {
  // A nullable schema without "type" is wrapped in anyOf: its annotations go outside.
  const bool wrap = f.nullable && !p.empty() && !p.contains("type");
  if (!wrap) {
    put_text(p, "title", f.title);
    put_text(p, "description", f.description);
  }
  put_number(p, "minimum", f.minimum);
  put_number(p, "maximum", f.maximum);
  put_number(p, "exclusiveMinimum", f.exclusive_minimum);
  put_number(p, "exclusiveMaximum", f.exclusive_maximum);
  put_number(p, "multipleOf", f.multiple_of);
  put_count(p, "minLength", f.min_length);
  put_count(p, "maxLength", f.max_length);
  put_text(p, "pattern", f.pattern);
  put_text(p, "format", f.format);
  if (!f.enum_values.empty()) {
    json::array values;
    for (std::string_view v : f.enum_values) values.emplace_back(v);
    p.insert_or_assign("enum", std::move(values));
  }
  put_count(p, "minItems", f.min_items);
  put_count(p, "maxItems", f.max_items);
  if (f.unique_items) p.insert_or_assign("uniqueItems", true);
  if (f.nullable) make_nullable(p);
  if (wrap) {
    put_text(p, "title", f.title);
    put_text(p, "description", f.description);
  }
  if (default_value != nullptr) p.insert_or_assign("default", *default_value);
  if (!f.examples.empty()) {
    json::array examples;
    for (const literal& e : f.examples) examples.emplace_back(e.to_json());
    p.insert_or_assign("examples", std::move(examples));
  }
  if (f.deprecated) p.insert_or_assign("deprecated", true);
}

// The non-template parts of the schema builder (mcp/detail/reflect_schema.hpp).

std::string def_name_for(std::string_view raw) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '<' || raw[i] == '(') ++depth;
    if (raw[i] == '>' || raw[i] == ')') --depth;
    if (depth == 0 && raw[i] == ':' && i + 1 < raw.size() && raw[i + 1] == ':') start = i + 2;
  }
  std::string out;
  for (char c : raw.substr(start)) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (ok) {
      out.push_back(c);
    } else if (!out.empty() && out.back() != '_') {
      out.push_back('_');
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? std::string("type") : out;
}

const std::string& schema_builder::def_name(const void* key, std::string_view raw) {
  for (const auto& [k, n] : names) {
    if (k == key) return n;
  }
  std::string base = def_name_for(raw);
  std::string name = base;
  for (int i = 2;; ++i) {
    bool taken =
        std::any_of(names.begin(), names.end(), [&](const auto& kn) { return kn.second == name; });
    if (!taken) break;
    name = base + "_" + std::to_string(i);
  }
  names.emplace_back(key, std::move(name));
  return names.back().second;
}

json::object ref_to(std::string_view target) {
  json::object o;
  o.emplace("$ref", target);
  return o;
}

json::object type_schema(std::string_view type) {
  json::object o;
  o.emplace("type", type);
  return o;
}

void add_property(json::object& props, json::array& required, std::string_view name,
                  json::object&& p, bool req) {
  if (req) required.emplace_back(name);
  props.emplace(name, std::move(p));
}

json::object object_schema(json::object&& props, json::array&& required) {
  json::object s;
  s.emplace("type", "object");
  s.emplace("properties", std::move(props));
  if (!required.empty()) s.emplace("required", std::move(required));
  return s;
}

json::object empty_object_schema() {
  json::object s;
  s.emplace("type", "object");
  s.emplace("additionalProperties", false);
  return s;
}

json::object described_struct_schema(schema_builder& b, const void* key, std::string_view raw,
                                     json::object (*build)(schema_builder&)) {
  auto& stack = b.in_progress;
  if (auto it = std::find(stack.begin(), stack.end(), key); it != stack.end()) {
    // Recursion: refer to the document root, or to a "$defs" entry filled in on the way out.
    if (key == b.root && it == stack.begin()) return ref_to("#");
    if (!b.is_recursive(key)) b.recursive.push_back(key);
    return ref_to("#/$defs/" + b.def_name(key, raw));
  }
  if (b.is_recursive(key)) return ref_to("#/$defs/" + b.def_name(key, raw));  // in "$defs"
  stack.push_back(key);
  json::object s = build(b);
  stack.pop_back();
  if (b.is_recursive(key) && !(key == b.root && stack.empty())) {
    const std::string& name = b.def_name(key, raw);
    b.defs.insert_or_assign(name, std::move(s));
    return ref_to("#/$defs/" + name);
  }
  return s;
}

json::object root_schema(const void* key, json::object (*schema)(schema_builder&)) {
  schema_builder b;
  b.root = key;
  json::object s = schema(b);
  if (!b.defs.empty()) s.insert_or_assign("$defs", std::move(b.defs));
  return s;
}

json::object nullable_schema(json::object&& inner) {
  json::array any_of;
  any_of.emplace_back(std::move(inner));
  json::object null;
  null.emplace("type", "null");
  any_of.emplace_back(std::move(null));
  json::object s;
  s.emplace("anyOf", std::move(any_of));
  return s;
}

json::object array_schema(json::object&& items) {
  json::object s;
  s.emplace("type", "array");
  s.emplace("items", std::move(items));
  return s;
}

json::object map_schema(json::object&& values) {
  json::object s;
  s.emplace("type", "object");
  s.emplace("additionalProperties", std::move(values));
  return s;
}

json::object enum_schema(json::array&& names) {
  json::object s;
  s.emplace("type", "string");
  s.emplace("enum", std::move(names));
  return s;
}

std::string integer_range_text(long long min, unsigned long long max) {
  return "an integer between " + std::to_string(min) + " and " + std::to_string(max);
}

bool decode_string(const json::value& v, const json_path& path, std::string& out, error& err) {
  if (!v.is_string()) return fail_expected(err, path, "a string", v);
  const json::string& s = v.get_string();
  out.assign(s.data(), s.size());
  return true;
}

bool decode_bool(const json::value& v, const json_path& path, bool& out, error& err) {
  if (!v.is_bool()) return fail_expected(err, path, "a boolean", v);
  out = v.get_bool();
  return true;
}

template bool decode_integer(const json::value&, const json_path&, signed char&, error&);
template bool decode_integer(const json::value&, const json_path&, unsigned char&, error&);
template bool decode_integer(const json::value&, const json_path&, short&, error&);
template bool decode_integer(const json::value&, const json_path&, unsigned short&, error&);
template bool decode_integer(const json::value&, const json_path&, int&, error&);
template bool decode_integer(const json::value&, const json_path&, unsigned&, error&);
template bool decode_integer(const json::value&, const json_path&, long&, error&);
template bool decode_integer(const json::value&, const json_path&, unsigned long&, error&);
template bool decode_integer(const json::value&, const json_path&, long long&, error&);
template bool decode_integer(const json::value&, const json_path&, unsigned long long&, error&);
template bool decode_floating(const json::value&, const json_path&, float&, error&);
template bool decode_floating(const json::value&, const json_path&, double&, error&);

}  // namespace detail
}  // namespace mcp
