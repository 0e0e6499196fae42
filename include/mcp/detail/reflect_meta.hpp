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

/// One entry of MCP_FIELD_DOCS. The array the macro builds starts with an empty entry (so that
/// it is never empty); the entries for the members follow.
struct field_doc {
  std::string_view name;
  std::string_view doc;
};

/// Returns `name`; the template argument only checks that the member exists and is accessible.
template <auto MemberPointer>
consteval std::string_view checked_member_name(std::string_view name) noexcept {
  static_assert(std::is_member_pointer_v<decltype(MemberPointer)>);
  return name;
}

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
                  "mcp/reflect: no JSON mapping for T; describe T with BOOST_DESCRIBE_STRUCT or "
                  "specialize mcp::json_traits<T>");
  }
}

// ----------------------------------------------------------------------------------- field docs

template <class T>
concept has_field_docs = requires {
  mcp_field_docs(static_cast<T**>(nullptr));
};

/// The MCP_FIELD_DOCS text for member `name` of `T`, or "" when there is none.
template <class T>
constexpr std::string_view own_field_doc(std::string_view name) noexcept {
  if constexpr (has_field_docs<T>) {
    constexpr auto docs = mcp_field_docs(static_cast<T**>(nullptr));
    for (const field_doc& d : docs) {
      if (!d.name.empty() && d.name == name) return d.doc;
    }
  }
  return {};
}

/// The doc of described member `D` of `T`: from T's MCP_FIELD_DOCS, else from the docs of the
/// class that declares it (a base).
template <class T, class D>
constexpr std::string_view field_doc_of() noexcept {
  std::string_view doc = own_field_doc<T>(D::name);
  using owner = typename member_class<std::remove_cv_t<decltype(D::pointer)>>::type;
  if constexpr (!std::is_same_v<owner, T>) {
    if (doc.empty()) doc = own_field_doc<owner>(D::name);
  }
  return doc;
}

template <class... D>
consteval bool names_a_member(boost::mp11::mp_list<D...>, std::string_view name) {
  return ((std::string_view(D::name) == name) || ...);
}

/// True when every MCP_FIELD_DOCS entry of T names a described member, each at most once.
template <class T>
consteval bool field_docs_valid() {
  if constexpr (has_field_docs<T>) {
    constexpr auto docs = mcp_field_docs(static_cast<T**>(nullptr));
    for (std::size_t i = 1; i < docs.size(); ++i) {
      if (!names_a_member(boost::mp11::mp_rename<members_t<T>, boost::mp11::mp_list>{},
                          docs[i].name)) {
        return false;
      }
      for (std::size_t j = i + 1; j < docs.size(); ++j) {
        if (docs[i].name == docs[j].name) return false;
      }
    }
  }
  return true;
}

// ------------------------------------------------------------------------------------ messages

/// A short description of `v` for error messages: `null`, `boolean true`, `number 2.5`,
/// `string "abc"` (long strings are cut at 40 bytes), `array`, `object`.
inline std::string describe_json(const json::value& v, bool with_kind = true) {
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

/// Sets `err` to "<path>: expected <expected>, got <describe_json(v)>"; returns false.
inline bool fail_expected(error& err, const json_path& path, std::string_view expected,
                          const json::value& v) {
  std::string what = "expected ";
  what += expected;
  what += ", got ";
  what += describe_json(v);
  err = path.make_error(what);
  return false;
}

template <class I>
std::string integer_range_text() {
  return "an integer between " + std::to_string(std::numeric_limits<I>::min()) + " and " +
         std::to_string(std::numeric_limits<I>::max());
}

}  // namespace mcp::detail

#endif  // MCP_DETAIL_REFLECT_SURFACE
#endif  // MCP_DETAIL_REFLECT_META_HPP
