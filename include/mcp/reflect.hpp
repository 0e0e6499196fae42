// File: mcp/reflect.hpp
//
// Describe-driven JSON for plain C++ structs: `to_json` (encode), `from_json` (a tolerant,
// non-throwing decoder with JSON Pointer error messages), `schema_for` (JSON Schema 2020-12), the
// `MCP_FIELD_DOCS` macro for property descriptions, and `json_traits<T>`, the customization point
// for types that are not described. No MCP knowledge; the typed tool API is built on this.
//
// Supported types: bool; integer types (not the character types); float and double;
// std::string (std::string_view for encoding only); enums described with BOOST_DESCRIBE_ENUM
// (encoded as their names); std::optional<T>; std::vector<T>; std::map and std::unordered_map
// with std::string keys; json::value, json::object and json::array; structs described with
// BOOST_DESCRIBE_STRUCT (bases included, nested and recursive ones too); anything with a
// json_traits specialization.
//
// Example:
//
//   enum class units { metric, imperial };
//   BOOST_DESCRIBE_ENUM(units, metric, imperial)
//   struct forecast_in { std::string city; int days = 3; std::optional<units> unit; };
//   BOOST_DESCRIBE_STRUCT(forecast_in, (), (city, days, unit))
//   MCP_FIELD_DOCS(forecast_in, (city, "City name, e.g. Oslo"), (days, "Days ahead, 1-16"))
//
//   mcp::json::object schema = mcp::schema_for<forecast_in>();  // required: ["city","days"]
//   mcp::result<forecast_in> in = mcp::from_json<forecast_in>(args);
//   if (!in) return in.error();  // invalid_params, "/days: expected an integer, got string \"3\""
//   mcp::json::value v = mcp::to_json(*in);  // {"city":"Oslo","days":3}
#pragma once

#include <mcp/detail/reflect_pp.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>

#include <boost/describe.hpp>  // BOOST_DESCRIBE_STRUCT, BOOST_DESCRIBE_ENUM for users
#include <boost/mp11/algorithm.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

/// Attaches descriptions to the members of the described struct `C`; `schema_for` puts them
/// into the properties' "description". Write it at namespace scope in the namespace of `C`,
/// right after BOOST_DESCRIBE_STRUCT, as `MCP_FIELD_DOCS(C, (member, "text"), ...)`. A
/// misspelt member is a compile error; naming a member that BOOST_DESCRIBE_STRUCT does not list,
/// or one member twice, fails a static_assert when the schema is built. Members of a base class
/// may be documented here or next to the base.
#define MCP_FIELD_DOCS(C, ...)                                                      \
  [[maybe_unused]] constexpr auto mcp_field_docs(C**) noexcept {                    \
    return ::std::array{::mcp::detail::field_doc{} /* unused */                     \
                        MCP_DETAIL_FOR_EACH(MCP_DETAIL_FIELD_DOC, C, __VA_ARGS__)}; \
  }

namespace mcp {

/// Where a value sits in the document being decoded: a JSON Pointer (RFC 6901) built lazily.
/// A path is a small view: `member()` and `element()` return a child that refers to its parent
/// and to the key text, so a child must not outlive either (keep paths on the stack, as the
/// decoder does). Building a child is O(1) and never allocates; the pointer text is only
/// produced by `to_string()` and `make_error()`, i.e. on failure.
/// Thread-safety: immutable, safe to share.
class json_path {
 public:
  /// The document root (the empty JSON Pointer "").
  constexpr json_path() noexcept = default;

  /// The child at object key `name`. `name` and `*this` must outlive the returned path; to
  /// keep that easy, children of temporaries cannot be made (`path.member("a").member("b")`
  /// does not compile; name the intermediate path).
  [[nodiscard]] constexpr json_path member(std::string_view name) const& noexcept {
    return json_path(this, name, 0, kind::member);
  }
  /// The child at array index `index`. `*this` must outlive the returned path.
  [[nodiscard]] constexpr json_path element(std::size_t index) const& noexcept {
    return json_path(this, {}, index, kind::element);
  }
  json_path member(std::string_view name) const&& = delete;
  json_path element(std::size_t index) const&& = delete;

  /// True for the document root.
  [[nodiscard]] constexpr bool is_root() const noexcept { return kind_ == kind::root; }

  /// The JSON Pointer text, "" for the root, e.g. "/items/2/name" ('~' and '/' escaped).
  [[nodiscard]] std::string to_string() const {
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

  /// An `errc::invalid_params` error "<pointer>: <what>" (just "<what>" at the root) with data
  /// `{"path": "<pointer>"}`. `what` says what was expected, e.g. "expected an integer, got null".
  [[nodiscard]] error make_error(std::string_view what) const {
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

 private:
  enum class kind : unsigned char { root, member, element };
  constexpr json_path(const json_path* parent, std::string_view name, std::size_t index,
                      kind k) noexcept
      : parent_(parent), name_(name), index_(index), kind_(k) {}

  const json_path* parent_ = nullptr;
  std::string_view name_;
  std::size_t index_ = 0;
  kind kind_ = kind::root;
};

/// Customization point for types that are not described (or whose JSON form should differ).
/// Specialize it with any of these static functions; each one replaces the built-in handling
/// for the operation it serves, and an operation on a type with no way to perform it is a
/// compile error:
///
///   template <> struct mcp::json_traits<point> {
///     // Encoding. Must not throw.
///     static mcp::json::value to_json(const point& p) { return mcp::json::array{p.x, p.y}; }
///     // Decoding. `path` locates `v` in the document; report errors with path.make_error().
///     // Nested values can be decoded with mcp::from_json<U>(v, path.element(i)).
///     static mcp::result<point> from_json(const mcp::json::value& v, const mcp::json_path& path) {
///       auto xy = mcp::from_json<std::vector<double>>(v, path);
///       if (!xy) return xy.error();
///       if (xy->size() != 2) return path.make_error("expected [x, y]");
///       return point{(*xy)[0], (*xy)[1]};
///     }
///     // The JSON Schema of the encoded form.
///     static mcp::json::object schema() {
///       return {{"type", "array"}, {"items", {{"type", "number"}}},
///               {"minItems", 2}, {"maxItems", 2}};
///     }
///   };
///
/// A specialization wins over the built-in handling of described types. Specializations must
/// be visible before the first use of to_json/from_json/schema_for with the type.
template <class T>
struct json_traits {
  /// Marks the unspecialized template; specializations must not declare it.
  using unspecialized_json_traits_ = void;
};

namespace detail {

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

// ------------------------------------------------------------------------------------ encoding

template <class E>
json::value encode_enum(E e) {
  const char* name = nullptr;
  boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
    if (name == nullptr && d.value == e) name = d.name;
  });
  if (name != nullptr) return json::string(name);
  // Not a named enumerator: keep the information (the decoder and the schema reject it).
  using U = std::underlying_type_t<E>;
  if constexpr (std::is_signed_v<U>) {
    return static_cast<std::int64_t>(static_cast<U>(e));
  } else {
    return static_cast<std::uint64_t>(static_cast<U>(e));
  }
}

inline json::value encode_float(float f) {
  // Print the shortest decimal that reads back as the same float (0.1f -> 0.1, not
  // 0.10000000149011612), then store it as the double with that decimal form.
  if (!std::isfinite(f)) return static_cast<double>(f);
  std::array<char, 32> buf{};
  auto w = std::to_chars(buf.data(), buf.data() + buf.size(), f);
  double d = 0;
  std::from_chars(buf.data(), w.ptr, d);
  return d;
}

template <class T>
json::value encode(const T& v) {
  if constexpr (traits_to_json<T>) {
    return json::value(json_traits<T>::to_json(v));
  } else if constexpr (std::is_same_v<T, json::value>) {
    return v;
  } else if constexpr (std::is_same_v<T, json::object> || std::is_same_v<T, json::array> ||
                       std::is_same_v<T, json::string>) {
    return json::value(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>) {
    return json::string(v);
  } else if constexpr (integer<T>) {
    // Same kinds as the parser produces: int64 when it fits, uint64 above.
    if constexpr (std::is_signed_v<T>) {
      return static_cast<std::int64_t>(v);
    } else if (std::cmp_less_equal(v, std::numeric_limits<std::int64_t>::max())) {
      return static_cast<std::int64_t>(v);
    } else {
      return static_cast<std::uint64_t>(v);
    }
  } else if constexpr (std::is_same_v<T, float>) {
    return encode_float(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return v;  // NaN and infinities are printed as null by mcp::to_json_string
  } else if constexpr (described_enum<T>) {
    return encode_enum(v);
  } else if constexpr (is_optional<T>::value) {
    if (!v) return nullptr;
    return encode(*v);
  } else if constexpr (is_vector<T>::value) {
    json::array a;
    a.reserve(v.size());
    for (const auto& e : v) a.emplace_back(encode<typename T::value_type>(e));
    return a;
  } else if constexpr (is_string_map<T>::value) {
    json::object o;
    o.reserve(v.size());
    for (const auto& [key, e] : v) o.emplace(key, encode(e));
    return o;
  } else if constexpr (described_struct<T>) {
    json::object o;
    using members = members_t<T>;
    o.reserve(boost::mp11::mp_size<members>::value);
    boost::mp11::mp_for_each<members>([&](auto d) {
      const auto& m = v.*d.pointer;
      if constexpr (is_optional<std::remove_cvref_t<decltype(m)>>::value) {
        if (m) o.emplace(d.name, encode(*m));
      } else {
        o.emplace(d.name, encode(m));
      }
    });
    return o;
  } else {
    unsupported_type<T>();
    return nullptr;
  }
}

// ------------------------------------------------------------------------------------ decoding

template <class T>
bool decode(const json::value& v, const json_path& path, T& out, error& err);

template <class T>
bool decode_with_traits(const json::value& v, const json_path& path, T& out, error& err) {
  result<T> r = json_traits<T>::from_json(v, path);
  if (!r) {
    err = r.error();
    return false;
  }
  out = std::move(*r);
  return true;
}

template <class I>
bool decode_integer(const json::value& v, const json_path& path, I& out, error& err) {
  switch (v.kind()) {
    case json::kind::int64:
      if (std::in_range<I>(v.get_int64())) {
        out = static_cast<I>(v.get_int64());
        return true;
      }
      return fail_expected(err, path, integer_range_text<I>(), v);
    case json::kind::uint64:
      if (std::in_range<I>(v.get_uint64())) {
        out = static_cast<I>(v.get_uint64());
        return true;
      }
      return fail_expected(err, path, integer_range_text<I>(), v);
    case json::kind::double_: {
      const double d = v.get_double();
      if (!std::isfinite(d) || std::trunc(d) != d) return fail_expected(err, path, "an integer", v);
      // [lo, hi) holds exactly the values of I; both bounds are powers of two, exact in double.
      const double hi = std::ldexp(1.0, std::numeric_limits<I>::digits);
      const double lo = std::is_signed_v<I> ? -hi : 0.0;
      if (d < lo || d >= hi) return fail_expected(err, path, integer_range_text<I>(), v);
      out = static_cast<I>(d);
      return true;
    }
    default:
      return fail_expected(err, path, "an integer", v);
  }
}

template <class F>
bool decode_floating(const json::value& v, const json_path& path, F& out, error& err) {
  double d = 0;
  switch (v.kind()) {
    case json::kind::int64:
      d = static_cast<double>(v.get_int64());
      break;
    case json::kind::uint64:
      d = static_cast<double>(v.get_uint64());
      break;
    case json::kind::double_:
      d = v.get_double();
      break;
    default:
      return fail_expected(err, path, "a number", v);
  }
  if constexpr (std::is_same_v<F, float>) {
    const auto f = static_cast<float>(d);  // IEEE: rounds, or overflows to infinity
    if (std::isinf(f) && std::isfinite(d)) {
      return fail_expected(err, path, "a number in the range of float", v);
    }
    out = f;
  } else {
    out = d;
  }
  return true;
}

template <class E>
std::string enum_names_text() {
  std::string out;
  boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
    if (!out.empty()) out += ", ";
    append_json_string(out, d.name);
  });
  return out;
}

template <class E>
bool decode_enum(const json::value& v, const json_path& path, E& out, error& err) {
  if (const json::string* js = v.if_string()) {
    const std::string_view s = *js;
    bool found = false;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<E>>([&](auto d) {
      if (!found && s == d.name) {
        out = d.value;
        found = true;
      }
    });
    if (found) return true;
  }
  std::string what = "expected one of " + enum_names_text<E>() + ", got ";
  what += describe_json(v, !v.is_string());
  err = path.make_error(what);
  return false;
}

/// Decodes `v` into a new `T` and hands it to `put(T&&)`; for containers of types whose
/// json_traits return a value (and for vector<bool>, which has no element references).
template <class T, class Put>
bool decode_new(const json::value& v, const json_path& path, error& err, Put&& put) {
  if constexpr (traits_from_json<T>) {
    result<T> r = json_traits<T>::from_json(v, path);
    if (!r) {
      err = r.error();
      return false;
    }
    put(std::move(*r));
  } else {
    T tmp{};
    if (!decode(v, path, tmp, err)) return false;
    put(std::move(tmp));
  }
  return true;
}

template <class T>
constexpr bool decode_in_place = !traits_from_json<T> && !std::is_same_v<T, bool>;

template <class D, class T>
bool decode_member(const json::object& o, const json_path& path, T& out, error& err) {
  auto& m = out.*D::pointer;
  using M = std::remove_cvref_t<decltype(m)>;
  const json::value* jv = o.if_contains(D::name);
  const json_path child = path.member(D::name);
  if constexpr (is_optional<M>::value) {
    if (jv == nullptr) {
      m.reset();
      return true;
    }
    return decode(*jv, child, m, err);  // null -> nullopt
  } else {
    if (jv == nullptr) {
      err = child.make_error("required property is missing");
      return false;
    }
    return decode(*jv, child, m, err);
  }
}

template <class T, class... D>
bool decode_members(const json::object& o, const json_path& path, T& out, error& err,
                    boost::mp11::mp_list<D...>) {
  // Members in declaration order; stops at the first error.
  return (decode_member<D>(o, path, out, err) && ...);
}

/// Decodes a string map or a described struct from an object.
template <class T>
bool decode_object(const json::object& o, const json_path& path, T& out, error& err) {
  if constexpr (is_string_map<T>::value) {
    using U = typename T::mapped_type;
    out.clear();
    if constexpr (requires { out.reserve(o.size()); }) out.reserve(o.size());
    for (const auto& kv : o) {
      const json_path child = path.member(kv.key());
      if constexpr (decode_in_place<U>) {
        U& slot = out[std::string(kv.key())];
        if (!decode(kv.value(), child, slot, err)) return false;
      } else {
        if (!decode_new<U>(kv.value(), child, err, [&](U&& u) {
              out.insert_or_assign(std::string(kv.key()), std::move(u));
            })) {
          return false;
        }
      }
    }
    return true;
  } else {
    static_assert(described_struct<T>);
    return decode_members(o, path, out, err,
                          boost::mp11::mp_rename<members_t<T>, boost::mp11::mp_list>{});
  }
}

template <class T>
bool decode(const json::value& v, const json_path& path, T& out, error& err) {
  if constexpr (traits_from_json<T>) {
    return decode_with_traits(v, path, out, err);
  } else if constexpr (std::is_same_v<T, json::value>) {
    out = v;
    return true;
  } else if constexpr (std::is_same_v<T, json::object>) {
    if (!v.is_object()) return fail_expected(err, path, "an object", v);
    out = v.get_object();
    return true;
  } else if constexpr (std::is_same_v<T, json::array>) {
    if (!v.is_array()) return fail_expected(err, path, "an array", v);
    out = v.get_array();
    return true;
  } else if constexpr (std::is_same_v<T, json::string>) {
    if (!v.is_string()) return fail_expected(err, path, "a string", v);
    out = v.get_string();
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_bool()) return fail_expected(err, path, "a boolean", v);
    out = v.get_bool();
    return true;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return fail_expected(err, path, "a string", v);
    const json::string& s = v.get_string();
    out.assign(s.data(), s.size());
    return true;
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    static_assert(dependent_false<T>,
                  "mcp/reflect: std::string_view can be encoded but not decoded (it would refer "
                  "into the JSON document); use std::string");
    return false;
  } else if constexpr (integer<T>) {
    return decode_integer(v, path, out, err);
  } else if constexpr (floating<T>) {
    return decode_floating(v, path, out, err);
  } else if constexpr (described_enum<T>) {
    return decode_enum(v, path, out, err);
  } else if constexpr (is_optional<T>::value) {
    using U = typename T::value_type;
    if (v.is_null()) {
      out.reset();
      return true;
    }
    if constexpr (decode_in_place<U>) {
      return decode(v, path, out.emplace(), err);
    } else {
      return decode_new<U>(v, path, err, [&](U&& u) { out = std::move(u); });
    }
  } else if constexpr (is_vector<T>::value) {
    using U = typename T::value_type;
    const json::array* a = v.if_array();
    if (a == nullptr) return fail_expected(err, path, "an array", v);
    out.clear();
    out.reserve(a->size());
    for (std::size_t i = 0; i < a->size(); ++i) {
      const json_path child = path.element(i);
      if constexpr (decode_in_place<U>) {
        if (!decode((*a)[i], child, out.emplace_back(), err)) return false;
      } else {
        if (!decode_new<U>((*a)[i], child, err, [&](U&& u) { out.push_back(std::move(u)); })) {
          return false;
        }
      }
    }
    return true;
  } else if constexpr (is_string_map<T>::value || described_struct<T>) {
    const json::object* o = v.if_object();
    if (o == nullptr) return fail_expected(err, path, "an object", v);
    return decode_object(*o, path, out, err);
  } else {
    unsupported_type<T>();
    return false;
  }
}

// -------------------------------------------------------------------------------------- schema

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
inline std::string def_name_for(std::string_view raw) {
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

/// State of one schema_for call: which described structs are being expanded (to detect
/// recursion) and the "$defs" collected for recursive ones.
struct schema_builder {
  const void* root = nullptr;            // the type schema_for was called with
  std::vector<const void*> in_progress;  // described structs being expanded, outermost first
  std::vector<const void*> recursive;    // structs that were met again while being expanded
  std::vector<std::pair<const void*, std::string>> names;  // "$defs" keys given out
  json::object defs;

  const std::string& def_name(const void* key, std::string_view raw) {
    for (const auto& [k, n] : names) {
      if (k == key) return n;
    }
    std::string base = def_name_for(raw);
    std::string name = base;
    for (int i = 2;; ++i) {
      bool taken = std::any_of(names.begin(), names.end(),
                               [&](const auto& kn) { return kn.second == name; });
      if (!taken) break;
      name = base + "_" + std::to_string(i);
    }
    names.emplace_back(key, std::move(name));
    return names.back().second;
  }
  [[nodiscard]] bool is_recursive(const void* key) const {
    return std::find(recursive.begin(), recursive.end(), key) != recursive.end();
  }
};

inline json::object ref_to(std::string_view target) {
  json::object o;
  o.emplace("$ref", target);
  return o;
}

template <class T>
json::object schema_of(schema_builder& b);

template <class T>
json::object struct_schema(schema_builder& b) {
  static_assert(field_docs_valid<T>(),
                "MCP_FIELD_DOCS names a member that BOOST_DESCRIBE_STRUCT does not list, or "
                "names a member twice");
  using members = members_t<T>;
  json::object s;
  s.emplace("type", "object");
  if constexpr (boost::mp11::mp_size<members>::value == 0) {
    s.emplace("additionalProperties", false);
  } else {
    json::object props;
    json::array required;
    props.reserve(boost::mp11::mp_size<members>::value);
    boost::mp11::mp_for_each<members>([&](auto d) {
      using D = decltype(d);
      using M = std::remove_cvref_t<decltype(std::declval<T&>().*D::pointer)>;
      json::object p;
      if constexpr (is_optional<M>::value) {
        p = schema_of<typename M::value_type>(b);  // absent when nullopt; null is also accepted
      } else {
        p = schema_of<M>(b);
        required.emplace_back(D::name);
      }
      constexpr std::string_view doc = field_doc_of<T, D>();
      if constexpr (!doc.empty()) p.insert_or_assign("description", doc);
      props.emplace(D::name, std::move(p));
    });
    s.emplace("properties", std::move(props));
    if (!required.empty()) s.emplace("required", std::move(required));
  }
  return s;
}

template <class T>
json::object described_struct_schema(schema_builder& b) {
  const void* key = &type_key<T>;
  auto& stack = b.in_progress;
  if (auto it = std::find(stack.begin(), stack.end(), key); it != stack.end()) {
    // Recursion: refer to the document root, or to a "$defs" entry filled in on the way out.
    if (key == b.root && it == stack.begin()) return ref_to("#");
    if (!b.is_recursive(key)) b.recursive.push_back(key);
    return ref_to("#/$defs/" + b.def_name(key, raw_type_name<T>()));
  }
  if (b.is_recursive(key)) {  // already expanded into "$defs"
    return ref_to("#/$defs/" + b.def_name(key, raw_type_name<T>()));
  }
  stack.push_back(key);
  json::object s = struct_schema<T>(b);
  stack.pop_back();
  if (b.is_recursive(key) && !(key == b.root && stack.empty())) {
    const std::string& name = b.def_name(key, raw_type_name<T>());
    b.defs.insert_or_assign(name, std::move(s));
    return ref_to("#/$defs/" + name);
  }
  return s;
}

template <class T>
json::object schema_of(schema_builder& b) {
  if constexpr (traits_schema<T>) {
    return json::object(json_traits<T>::schema());
  } else if constexpr (std::is_same_v<T, json::value>) {
    return {};  // any JSON value
  } else if constexpr (std::is_same_v<T, json::object>) {
    return {{"type", "object"}};
  } else if constexpr (std::is_same_v<T, json::array>) {
    return {{"type", "array"}};
  } else if constexpr (std::is_same_v<T, bool>) {
    return {{"type", "boolean"}};
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
                       std::is_same_v<T, json::string>) {
    return {{"type", "string"}};
  } else if constexpr (integer<T>) {
    json::object s;
    s.emplace("type", "integer");
    s.emplace("minimum", encode(std::numeric_limits<T>::min()));
    s.emplace("maximum", encode(std::numeric_limits<T>::max()));
    return s;
  } else if constexpr (floating<T>) {
    return {{"type", "number"}};
  } else if constexpr (described_enum<T>) {
    json::array names;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>(
        [&](auto d) { names.emplace_back(d.name); });
    json::object s;
    s.emplace("type", "string");
    s.emplace("enum", std::move(names));
    return s;
  } else if constexpr (is_optional<T>::value) {
    // Outside a struct member an empty optional is encoded as null.
    json::array any_of;
    any_of.emplace_back(schema_of<typename T::value_type>(b));
    any_of.emplace_back(json::object{{"type", "null"}});
    json::object s;
    s.emplace("anyOf", std::move(any_of));
    return s;
  } else if constexpr (is_vector<T>::value) {
    json::object s;
    s.emplace("type", "array");
    s.emplace("items", schema_of<typename T::value_type>(b));
    return s;
  } else if constexpr (is_string_map<T>::value) {
    json::object s;
    s.emplace("type", "object");
    s.emplace("additionalProperties", schema_of<typename T::mapped_type>(b));
    return s;
  } else if constexpr (described_struct<T>) {
    return described_struct_schema<T>(b);
  } else {
    unsupported_type<T>();
    return {};
  }
}

}  // namespace detail

/// Encodes `v` as JSON. Structs become objects with their members in declaration order (an
/// empty optional member is left out), enums their enumerator name, integers int64 (uint64
/// above INT64_MAX), floats the shortest decimal that reads back as the same value, optionals
/// null when empty. A NaN or infinite double stays a double, which mcp::to_json_string prints
/// as null. An enum value that names no enumerator is encoded as its underlying integer.
/// Never throws except std::bad_alloc. Thread-safe for distinct or unmodified `v`.
template <class T>
[[nodiscard]] json::value to_json(const T& v) {
  return detail::encode<T>(v);
}

/// Decodes `v` as a `T`, where `path` locates `v` in the enclosing document (used by
/// json_traits specializations to decode nested values with the right error paths).
/// Errors: see the overload without `path`. Thread-safe; never throws except std::bad_alloc.
template <class T>
[[nodiscard]] result<T> from_json(const json::value& v, const json_path& path) {
  if constexpr (detail::traits_from_json<T>) {
    return json_traits<T>::from_json(v, path);
  } else {
    static_assert(std::is_default_constructible_v<T>,
                  "mcp::from_json<T>: T must be default-constructible, or specialize "
                  "mcp::json_traits<T> with a from_json");
    T out{};
    error err;
    if (!detail::decode(v, path, out, err)) return err;
    return out;
  }
}

/// Decodes `v` as a `T` in one pass, without copying the input. Tolerant where the schema is
/// silent: unknown object keys are ignored, an optional member may be missing or null (both
/// give nullopt), integers are accepted for floating-point targets and integral doubles (3.0)
/// for integer targets.
/// Errors: `errc::invalid_params` for the first wrong value, in document order within each
/// struct's declaration order, with a message "<JSON Pointer>: <what was expected>, got <what
/// was found>" (e.g. "/days: expected an integer, got string \"three\"", "/city: required
/// property is missing", "/n: expected an integer between 0 and 255, got number 300") and data
/// `{"path": "<JSON Pointer>"}`. Thread-safe; never throws except std::bad_alloc.
template <class T>
[[nodiscard]] result<T> from_json(const json::value& v) {
  return from_json<T>(v, json_path{});
}

/// Decodes the object `v` as a `T`, exactly as the json::value overloads do, without copying
/// `v` when `T` is a described struct or a string map (e.g. tool call arguments).
/// Errors: see the json::value overload. Thread-safe; never throws except std::bad_alloc.
template <class T>
[[nodiscard]] result<T> from_json(const json::object& v, const json_path& path) {
  if constexpr (!detail::traits_from_json<T> &&
                (detail::described_struct<T> || detail::is_string_map<T>::value)) {
    static_assert(std::is_default_constructible_v<T>,
                  "mcp::from_json<T>: T must be default-constructible, or specialize "
                  "mcp::json_traits<T> with a from_json");
    T out{};
    error err;
    if (!detail::decode_object(v, path, out, err)) return err;
    return out;
  } else if constexpr (std::is_same_v<T, json::object> && !detail::traits_from_json<T>) {
    return v;
  } else {
    return from_json<T>(json::value(v), path);  // other targets read a json::value
  }
}

/// Decodes the object `v` as a `T`; see the overload with a path.
template <class T>
[[nodiscard]] result<T> from_json(const json::object& v) {
  return from_json<T>(v, json_path{});
}

/// The JSON Schema (2020-12) of the JSON that `to_json<T>` produces and `from_json<T>`
/// accepts. Described structs give `{"type":"object","properties":{...},"required":[...]}` with
/// properties in declaration order, each with the MCP_FIELD_DOCS "description", and
/// "required" listing the non-optional members (left out when there are none); an empty struct
/// gives `{"type":"object","additionalProperties":false}`. Nested structs are written inline;
/// a struct that contains itself is referred to with {"$ref":"#"} when it is `T`, otherwise
/// through "$defs" at the top level. Integers carry the "minimum" and "maximum" of their C++
/// type. The result is a self-contained root schema: embedding it in another schema breaks its
/// "$ref"s. Thread-safe; throws only std::bad_alloc.
template <class T>
[[nodiscard]] json::object schema_for() {
  detail::schema_builder b;
  b.root = &detail::type_key<T>;
  json::object s = detail::schema_of<T>(b);
  if (!b.defs.empty()) s.insert_or_assign("$defs", std::move(b.defs));
  return s;
}

}  // namespace mcp
