// File: mcp/detail/reflect_meta.hpp
//
// Part of mcp/reflect.hpp: type traits, field metadata lookup and error messages shared by the
// encoder, the decoder and the schema builder. Internal: nothing here is part of the public API and
// names may change at any time. Include <mcp/reflect.hpp>; including this file alone includes
// mcp/reflect.hpp, which reads the parts in order.
#ifndef MCP_DETAIL_REFLECT_META_HPP
#ifndef MCP_DETAIL_REFLECT_SURFACE
#include <mcp/reflect.hpp>
#else
#define MCP_DETAIL_REFLECT_META_HPP

namespace mcp::detail {

template <class>
inline constexpr bool dependent_false = false;

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
struct is_string_map : std::false_type {};
template <class V, class C, class A>
struct is_string_map<std::map<std::string, V, C, A>> : std::true_type {};
template <class V, class H, class E, class A>
struct is_string_map<std::unordered_map<std::string, V, H, E, A>> : std::true_type {};

template <class T>
concept character = std::is_same_v<T, char> || std::is_same_v<T, wchar_t> ||
    std::is_same_v<T, char8_t> || std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;
template <class T>
concept integer = std::is_integral_v<T> && !std::is_same_v<T, bool> && !character<T>;
template <class T>
concept floating = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T>
concept described_enum = std::is_enum_v<T> && boost::describe::has_describe_enumerators<T>::value;
template <class T>
concept described_struct = std::is_class_v<T> && boost::describe::has_describe_members<T>::value;

template <class T>
concept traits_specialized = !requires {
  typename json_traits<T>::unspecialized_json_traits_;
};
template <class T>
concept traits_to_json = requires(const T& v) {
  { json_traits<T>::to_json(v) } -> std::convertible_to<json::value>;
};
template <class T>
concept traits_from_json = requires(const json::value& v, const json_path& p) {
  { json_traits<T>::from_json(v, p) } -> std::same_as<result<T>>;
};
template <class T>
concept traits_schema = requires {
  { json_traits<T>::schema() } -> std::convertible_to<json::object>;
};

/// Public data members of a described struct, those of its described bases first.
template <class T>
using members_t = boost::describe::describe_members<T, boost::describe::mod_public |
                                                           boost::describe::mod_inherited>;

template <class P>
struct member_class;
template <class M, class C>
struct member_class<M C::*> {
  using type = C;
};

/// Fails to compile, with a readable message, for a type that has no JSON mapping.
template <class T>
void unsupported_type() {
  if constexpr (std::is_enum_v<T>) {
    static_assert(dependent_false<T>,
                  "mcp/reflect: describe the enum T with BOOST_DESCRIBE_ENUM or specialize "
                  "mcp::json_traits<T>");
  } else if constexpr (character<T>) {
    static_assert(dependent_false<T>,
                  "mcp/reflect: character types have no JSON mapping; use std::string or an "
                  "integer type such as std::int8_t");
  } else if constexpr (traits_specialized<T>) {
    static_assert(dependent_false<T>,
                  "mcp/reflect: mcp::json_traits<T> is specialized but lacks the function this "
                  "operation needs (static json::value to_json(const T&), static result<T> "
                  "from_json(const json::value&, const json_path&) or static json::object "
                  "schema())");
  } else {
    static_assert(dependent_false<T>,
                  "mcp/reflect: no JSON mapping for T; describe T with MCP_FIELDS (or "
                  "BOOST_DESCRIBE_STRUCT) or specialize mcp::json_traits<T>");
  }
}

/// The member type of described member `D` of `T`, and the type a std::optional member holds.
template <class T, class D>
using member_t = std::remove_cvref_t<decltype(std::declval<T&>().*D::pointer)>;
template <class M>
struct value_of {
  using type = M;
};
template <class U>
struct value_of<std::optional<U>> {
  using type = U;
};

template <class T>
concept string_like = std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
    std::is_same_v<T, json::string>;
/// Types whose JSON kind is not known here (any value, or a json_traits schema): every keyword
/// is allowed on them.
template <class T>
concept open_type = std::is_same_v<T, json::value> || traits_schema<T>;

// ------------------------------------------------------------------------------- field metadata

template <class T>
concept has_field_docs = requires {
  mcp_field_docs(static_cast<T**>(nullptr));
};

/// The MCP_FIELDS / MCP_FIELD_DOCS entries of `T`, built once.
template <class T>
inline constexpr auto field_table = mcp_field_docs(static_cast<T**>(nullptr));

/// The metadata `T`'s own entries give member `name`, if any.
template <class T>
constexpr std::optional<field> own_field(std::string_view name) noexcept {
  if constexpr (has_field_docs<T>) {
    for (const field_entry& e : field_table<T>) {
      if (!e.member.empty() && e.member == name) return e.meta;
    }
  }
  return std::nullopt;
}

/// The metadata of described member `D` of `T`: from T's entries, else from those of the class
/// that declares it (a base), else none.
template <class T, class D>
constexpr field field_of() noexcept {
  if (auto f = own_field<T>(D::name)) return *f;
  using owner = typename member_class<std::remove_cv_t<decltype(D::pointer)>>::type;
  if constexpr (!std::is_same_v<owner, T>) {
    if (auto f = own_field<owner>(D::name)) return *f;
  }
  return {};
}

template <class T, class D>
inline constexpr field field_v = field_of<T, D>();

/// The JSON key of member `D` of `T`.
template <class T, class D>
inline constexpr std::string_view json_name_v = field_v<T, D>.name.empty()
                                                    ? std::string_view(D::name)
                                                    : field_v<T, D>.name;

/// True when a missing key is not an error for member `D` of `T`.
template <class T, class D>
inline constexpr bool member_optional_v = is_optional<member_t<T, D>>::value ||
                                          field_v<T, D>.defaulted ||
                                          field_v<T, D>.default_value.has_value();

template <class... D>
consteval bool names_a_member(boost::mp11::mp_list<D...>, [[maybe_unused]] std::string_view name) {
  return ((std::string_view(D::name) == name) || ...);
}

/// True when every MCP_FIELD_DOCS entry of T names a described member, each at most once.
template <class T>
consteval bool field_docs_valid() {
  if constexpr (has_field_docs<T>) {
    const auto& docs = field_table<T>;
    for (std::size_t i = 1; i < docs.size(); ++i) {
      if (!names_a_member(boost::mp11::mp_rename<members_t<T>, boost::mp11::mp_list>{},
                          docs[i].member)) {
        return false;
      }
      for (std::size_t j = i + 1; j < docs.size(); ++j) {
        if (docs[i].member == docs[j].member) return false;
      }
    }
  }
  return true;
}

template <class T, class... D>
consteval bool json_names_unique(boost::mp11::mp_list<D...>) {
  const std::array<std::string_view, sizeof...(D)> names{json_name_v<T, D>...};
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = i + 1; j < names.size(); ++j) {
      if (names[i] == names[j]) return false;
    }
  }
  return true;
}

/// True when a `.default_value` of kind `k` can be decoded into a member of type `M`.
template <class M>
consteval bool literal_fits(literal::kind k) {
  using V = typename value_of<M>::type;
  if constexpr (open_type<V>) {
    return true;
  } else {
    switch (k) {
      case literal::kind::none:
        return true;
      case literal::kind::null:
        return is_optional<M>::value;
      case literal::kind::boolean:
        return std::is_same_v<V, bool>;
      case literal::kind::integer:
      case literal::kind::unsigned_integer:
        return integer<V> || floating<V>;
      case literal::kind::number:
        return floating<V>;
      case literal::kind::string:
        return string_like<V> || described_enum<V>;
    }
    return false;
  }
}

/// Compile-time checks of the metadata of member `D` of `T` against its type.
template <class T, class D>
consteval bool check_member() {
  constexpr const field& f = field_v<T, D>;
  using M = member_t<T, D>;
  using V = typename value_of<M>::type;
  static_assert(!f.nullable || is_optional<M>::value,
                "MCP_FIELDS: .nullable applies to std::optional members (null decodes to nullopt)");
  static_assert(
      !(f.minimum || f.maximum || f.exclusive_minimum || f.exclusive_maximum || f.multiple_of) ||
          integer<V> || floating<V> || open_type<V>,
      "MCP_FIELDS: .minimum, .maximum, .exclusive_minimum, .exclusive_maximum and "
      ".multiple_of apply to number members");
  static_assert(!f.multiple_of || *f.multiple_of > 0, "MCP_FIELDS: .multiple_of must be > 0");
  static_assert(!(f.min_length || f.max_length || !f.pattern.empty() || !f.format.empty()) ||
                    string_like<V> || open_type<V>,
                "MCP_FIELDS: .min_length, .max_length, .pattern and .format apply to string "
                "members");
  static_assert(f.enum_values.empty() || string_like<V> || open_type<V>,
                "MCP_FIELDS: .enum_values applies to string members (a described enum lists "
                "its enumerators by itself)");
  static_assert(!(f.min_items || f.max_items || f.unique_items) || is_vector<V>::value ||
                    std::is_same_v<V, json::array> || open_type<V>,
                "MCP_FIELDS: .min_items, .max_items and .unique_items apply to std::vector "
                "members");
  static_assert(f.min_length.value_or(0) >= 0 && f.max_length.value_or(0) >= 0 &&
                    f.min_items.value_or(0) >= 0 && f.max_items.value_or(0) >= 0,
                "MCP_FIELDS: lengths and item counts cannot be negative");
  static_assert(literal_fits<M>(f.default_value.type()),
                "MCP_FIELDS: .default_value does not fit the member's type");
  static_assert(!f.defaulted || std::is_default_constructible_v<T>,
                "MCP_FIELDS: .defaulted takes the default from T{}, so T must be "
                "default-constructible (or give .default_value)");
  return true;
}

template <class T, class... D>
consteval bool check_members(boost::mp11::mp_list<D...>) {
  return (check_member<T, D>() && ... && true);
}

/// Compile-time checks of the field metadata of the described struct `T`.
template <class T>
consteval bool check_fields() {
  using list = boost::mp11::mp_rename<members_t<T>, boost::mp11::mp_list>;
  static_assert(field_docs_valid<T>(),
                "MCP_FIELD_DOCS names a member that BOOST_DESCRIBE_STRUCT does not list, or "
                "names a member twice");
  static_assert(json_names_unique<T>(list{}),
                "MCP_FIELDS: two members have the same JSON name (see .name)");
  return check_members<T>(list{});
}

template <class T>
inline constexpr bool fields_checked = check_fields<T>();

// ------------------------------------------------------------------------------------ messages

/// A short description of `v` for error messages: `null`, `boolean true`, `number 2.5`,
/// `string "abc"` (long strings are cut at 40 bytes), `array`, `object`.
[[nodiscard]] std::string describe_json(const json::value& v, bool with_kind = true);

/// Sets `err` to "<path>: expected <expected>, got <describe_json(v)>"; returns false.
bool fail_expected(error& err, const json_path& path, std::string_view expected,
                   const json::value& v);

}  // namespace mcp::detail

#endif  // MCP_DETAIL_REFLECT_SURFACE
#endif  // MCP_DETAIL_REFLECT_META_HPP
