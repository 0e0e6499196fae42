// File: mcp/detail/reflect_schema.hpp
//
// Part of mcp/reflect.hpp: the JSON Schema builder behind mcp::schema_for. Internal: nothing here
// is part of the public API and names may change at any time. Include <mcp/reflect.hpp>; including
// this file alone includes mcp/reflect.hpp, which reads the parts in order.
#ifndef MCP_DETAIL_REFLECT_SCHEMA_HPP
#ifndef MCP_DETAIL_REFLECT_SURFACE
#include <mcp/reflect.hpp>
#else
#define MCP_DETAIL_REFLECT_SCHEMA_HPP

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp::detail {

template <class T>
inline constexpr char type_key = 0;

/// The name of T as the compiler spells it, e.g. "ns::tree".
template <class T>
constexpr std::string_view raw_type_name() noexcept {
#if defined(_MSC_VER) && !defined(__clang__)
  std::string_view f = __FUNCSIG__;
  std::string_view start = "raw_type_name<";
  std::size_t b = f.find(start);
  std::size_t e = f.rfind(">(void)");
#else
  std::string_view f = __PRETTY_FUNCTION__;
  std::string_view start = "T = ";
  std::size_t b = f.find(start);
  std::size_t e = f.find_first_of(";]", b);
#endif
  if (b == std::string_view::npos || e == std::string_view::npos) return "type";
  b += start.size();
  return f.substr(b, e - b);
}

/// A "$defs" key for a type name: the unqualified name with every run of characters outside
/// [A-Za-z0-9_] replaced by one '_' ("ns::box<ns::tree>" -> "box_ns_tree").
std::string def_name_for(std::string_view raw);  // src/reflect.cpp

/// State of one schema_for call: which described structs are being expanded (to detect
/// recursion) and the "$defs" collected for recursive ones. Its non-template members are
/// defined in src/reflect.cpp, so that a tool's translation unit does not compile them.
struct schema_builder {
  const void* root = nullptr;            // the type schema_for was called with
  std::vector<const void*> in_progress;  // described structs being expanded, outermost first
  std::vector<const void*> recursive;    // structs that were met again while being expanded
  std::vector<std::pair<const void*, std::string>> names;  // "$defs" keys given out
  json::object defs;

  /// The "$defs" key of the struct `key` (named `raw` by the compiler): `def_name_for(raw)`,
  /// with "_2", "_3", ... appended when another struct has that key already.
  const std::string& def_name(const void* key, std::string_view raw);
  [[nodiscard]] bool is_recursive(const void* key) const {
    return std::find(recursive.begin(), recursive.end(), key) != recursive.end();
  }
};

/// `{"$ref": target}`.
json::object ref_to(std::string_view target);

// What the templates below leave to src/reflect.cpp, so that a tool's translation unit compiles
// only the walk over its own members.
/// `{"type": type}`.
json::object type_schema(std::string_view type);
/// Adds the member schema `p` to `props` under `name`, and `name` to `required` when `req`.
void add_property(json::object& props, json::array& required, std::string_view name,
                  json::object&& p, bool req);
/// `{"type":"object","properties":props,"required":required}` ("required" left out when empty).
json::object object_schema(json::object&& props, json::array&& required);
/// `{"type":"object","additionalProperties":false}`.
json::object empty_object_schema();
/// The schema of the described struct `key` (named `raw` by the compiler): `build(b)`, or a
/// "$ref" when the struct is being expanded already (recursion) or was moved to "$defs".
json::object described_struct_schema(schema_builder& b, const void* key, std::string_view raw,
                                     json::object (*build)(schema_builder&));
/// The schema `schema(b)` of the type `key` as a root: with a builder whose root is `key`, and
/// the "$defs" it collected, if any.
json::object root_schema(const void* key, json::object (*schema)(schema_builder&));
/// Schemas of std::optional<T> and std::vector<T> around the element's schema.
json::object nullable_schema(json::object&& inner);
json::object array_schema(json::object&& items);
json::object map_schema(json::object&& values);
json::object enum_schema(json::array&& names);

template <class T>
json::object schema_of(schema_builder& b);

/// Adds what `f` declares to the schema `p` of a member (defined in src/reflect.cpp): the
/// constraints, then null for a nullable member (a type array, or anyOf when `p` has no
/// "type"), then title, description, "default" (`default_value`, when not null) and
/// examples and deprecated.
void apply_field(json::object& p, const field& f, const json::value* default_value);

template <class T, class D>
void member_schema(schema_builder& b, std::optional<T>& defaults, json::object& props,
                   json::array& required) {
  using M = member_t<T, D>;
  constexpr const field& f = field_v<T, D>;
  json::object p = schema_of<typename value_of<M>::type>(b);
  json::value def;
  const json::value* def_ptr = nullptr;
  if constexpr (f.default_value.has_value()) {
    def = f.default_value.to_json();
    def_ptr = &def;
  } else if constexpr (f.defaulted) {
    if (!defaults) defaults.emplace();
    def = encode((*defaults).*D::pointer);
    def_ptr = &def;
  }
  apply_field(p, f, def_ptr);
  add_property(props, required, json_name_v<T, D>, std::move(p), !member_optional_v<T, D>);
}

template <class T>
json::object struct_schema(schema_builder& b) {
  static_assert(fields_checked<T>);
  using members = members_t<T>;
  if constexpr (boost::mp11::mp_size<members>::value == 0) {
    return empty_object_schema();
  } else {
    json::object props;
    json::array required;
    props.reserve(boost::mp11::mp_size<members>::value);
    std::optional<T> defaults;  // T{}, built when a defaulted member needs it
    boost::mp11::mp_for_each<members>(
        [&](auto d) { member_schema<T, decltype(d)>(b, defaults, props, required); });
    return object_schema(std::move(props), std::move(required));
  }
}

template <class T>
json::object schema_of(schema_builder& b) {
  if constexpr (traits_schema<T>) {
    return json::object(json_traits<T>::schema());
  } else if constexpr (std::is_same_v<T, json::value>) {
    return {};  // any JSON value
  } else if constexpr (std::is_same_v<T, json::object>) {
    return type_schema("object");
  } else if constexpr (std::is_same_v<T, json::array>) {
    return type_schema("array");
  } else if constexpr (std::is_same_v<T, bool>) {
    return type_schema("boolean");
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                       std::is_same_v<T, json::string>) {
    return type_schema("string");
  } else if constexpr (integer<T>) {
    return type_schema("integer");  // the C++ range is checked by the decoder
  } else if constexpr (floating<T>) {
    return type_schema("number");
  } else if constexpr (described_enum<T>) {
    json::array names;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>(
        [&](auto d) { names.emplace_back(d.name); });
    return enum_schema(std::move(names));
  } else if constexpr (is_optional<T>::value) {
    // Outside a struct member an empty optional is encoded as null.
    return nullable_schema(schema_of<typename T::value_type>(b));
  } else if constexpr (is_vector<T>::value) {
    return array_schema(schema_of<typename T::value_type>(b));
  } else if constexpr (is_string_map<T>::value) {
    return map_schema(schema_of<typename T::mapped_type>(b));
  } else if constexpr (described_struct<T>) {
    return described_struct_schema(b, &type_key<T>, raw_type_name<T>(), &struct_schema<T>);
  } else {
    unsupported_type<T>();
    return {};
  }
}

}  // namespace mcp::detail

#endif  // MCP_DETAIL_REFLECT_SURFACE
#endif  // MCP_DETAIL_REFLECT_SCHEMA_HPP
