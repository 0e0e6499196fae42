// KEY=VALUE words to tools/call arguments, typed by the tool's inputSchema, and the check of the
// arguments against that schema before anything is sent.
#include <mcp/json_schema.hpp>

#include <algorithm>
#include <set>

#include "tools_cli.hpp"

namespace mcp::cli {

namespace {

/// The JSON type names `schema` allows: its "type" (a name or a list), else the types of its
/// enum / const values, else the union over anyOf / oneOf branches. Empty: unknown.
std::set<std::string, std::less<>> allowed_types(const json::value* schema, int depth = 0) {
  std::set<std::string, std::less<>> types;
  const auto* s = schema != nullptr ? schema->if_object() : nullptr;
  if (s == nullptr || depth > 8) return types;
  if (const auto* t = s->if_contains("type")) {
    if (t->is_string()) types.emplace(t->get_string());
    if (const auto* list = t->if_array()) {
      for (const auto& e : *list) {
        if (e.is_string()) types.emplace(e.get_string());
      }
    }
    return types;
  }
  auto add_value_type = [&types](const json::value& v) {
    switch (v.kind()) {
      case json::kind::string:
        types.emplace("string");
        break;
      case json::kind::bool_:
        types.emplace("boolean");
        break;
      case json::kind::null:
        types.emplace("null");
        break;
      case json::kind::array:
        types.emplace("array");
        break;
      case json::kind::object:
        types.emplace("object");
        break;
      default:
        types.emplace("number");
        break;
    }
  };
  if (const auto* e = s->if_contains("enum"); e != nullptr && e->is_array()) {
    for (const auto& v : e->get_array()) add_value_type(v);
    return types;
  }
  if (const auto* c = s->if_contains("const")) {
    add_value_type(*c);
    return types;
  }
  for (const char* key : {"anyOf", "oneOf"}) {
    if (const auto* branches = s->if_contains(key); branches != nullptr && branches->is_array()) {
      for (const auto& b : branches->get_array()) {
        auto more = allowed_types(&b, depth + 1);
        types.insert(more.begin(), more.end());
      }
    }
  }
  return types;
}

/// Whether `v` has one of the JSON Schema types in `types` ("integer" is a number without a
/// fraction; "number" takes integers too).
bool has_type(const json::value& v, const std::set<std::string, std::less<>>& types) {
  switch (v.kind()) {
    case json::kind::int64:
    case json::kind::uint64:
      return types.contains("integer") || types.contains("number");
    case json::kind::double_:
      return types.contains("number") ||
             (types.contains("integer") &&
              v.get_double() == static_cast<double>(static_cast<std::int64_t>(v.get_double())));
    case json::kind::bool_:
      return types.contains("boolean");
    case json::kind::null:
      return types.contains("null");
    case json::kind::array:
      return types.contains("array");
    case json::kind::object:
      return types.contains("object");
    case json::kind::string:
      return types.contains("string");
  }
  return false;
}

/// VALUE typed by the property's schema: parsed as JSON when that gives an allowed type, else
/// the text itself when strings are allowed (or nothing is known). When neither fits, the
/// parsed value (or the text) goes on, for the schema check to explain.
json::value typed_value(std::string_view text, const json::value* property) {
  const auto types = allowed_types(property);
  if (types.empty()) return json::value(json::string(text));
  auto parsed = parse_json(text);
  if (parsed && has_type(*parsed, types) && !parsed->is_string()) return std::move(*parsed);
  if (types.contains("string")) return json::value(json::string(text));
  if (parsed) return std::move(*parsed);
  return json::value(json::string(text));
}

}  // namespace

result<json::object> build_arguments(const json::object& input_schema, const std::string& args_json,
                                     const std::vector<std::string>& key_values) {
  json::object args;
  if (!args_json.empty()) {
    auto v = parse_json(args_json);
    if (!v) return error{errc::invalid_params, "--args is not valid JSON: " + v.error().message};
    if (!v->is_object()) return error{errc::invalid_params, "--args must be a JSON object"};
    args = std::move(v->get_object());
  }
  const json::object* properties = nullptr;
  if (const auto* p = input_schema.if_contains("properties")) properties = p->if_object();
  for (const auto& kv : key_values) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return error{errc::invalid_params, "expected KEY=VALUE, got '" + kv + "'"};
    }
    const std::string key = kv.substr(0, eq);
    const json::value* property = properties != nullptr ? properties->if_contains(key) : nullptr;
    args[key] = typed_value(std::string_view(kv).substr(eq + 1), property);
  }
  return args;
}

result<void> check_arguments(const json::object& input_schema, const json::object& arguments,
                             std::string& warning) {
  auto v = json_schema::validator::compile(json::value(input_schema));
  if (!v) {
    warning = "the tool's inputSchema does not compile (" + v.error().message +
              "); the arguments are sent unchecked";
    return {};
  }
  const auto errors = v->validate(json::value(arguments));
  if (errors.empty()) return {};
  return error{errc::invalid_params, errors.front().message};
}

}  // namespace mcp::cli
