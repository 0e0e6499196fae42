// File: mcp/reflect.hpp
//
// Describe-driven JSON for plain C++ structs: `to_json` (encode), `from_json` (a tolerant,
// non-throwing decoder with JSON Pointer error messages), `schema_for` (JSON Schema 2020-12),
// field metadata (`MCP_FIELDS`: descriptions, defaults, constraints, JSON names) and
// `json_traits<T>`, the customization point for types that are not described. No MCP
// knowledge; the typed tool API is built on this.
//
// Supported types: bool; integer types (not the character types); float and double;
// std::string (std::string_view for encoding only); enums described with BOOST_DESCRIBE_ENUM
// (encoded as their names); std::optional<T>; std::vector<T>; std::map and std::unordered_map
// with std::string keys; json::value, json::object and json::array; structs described with
// MCP_FIELDS or BOOST_DESCRIBE_STRUCT (bases included, nested and recursive ones too);
// anything with a json_traits specialization.
//
// Example:
//
//   enum class units { metric, imperial };
//   BOOST_DESCRIBE_ENUM(units, metric, imperial)
//   struct forecast_in {
//     std::string city;
//     int days = 3;
//     std::optional<units> unit;
//   };
//   MCP_FIELDS(forecast_in, (city, "City name, e.g. Oslo"),
//              (days, {.description = "Days ahead", .defaulted = true, .minimum = 1,
//                      .maximum = 16}),
//              (unit))
//
//   mcp::json::object schema = mcp::schema_for<forecast_in>();
//   // {"type":"object","properties":{
//   //   "city":{"type":"string","description":"City name, e.g. Oslo"},
//   //   "days":{"type":"integer","minimum":1,"maximum":16,"description":"Days ahead",
//   //           "default":3},
//   //   "unit":{"type":"string","enum":["metric","imperial"]}},
//   //  "required":["city"]}
//   mcp::result<forecast_in> in = mcp::from_json<forecast_in>(args);  // days: 3 when absent
//   if (!in) return in.error();  // invalid_params, "/days: expected an integer, got string \"3\""
//   mcp::json::value v = mcp::to_json(*in);  // {"city":"Oslo","days":3}
//
// from_json checks types, not the constraints a field declares (minimum, pattern, ...): the
// tool pipeline validates the arguments against the schema first, and
// `mcp::from_json_checked` (mcp/checked_json.hpp) does both.
#pragma once

#include <mcp/detail/reflect_pp.hpp>
#include <mcp/error.hpp>
#include <mcp/json.hpp>

#include <boost/describe.hpp>  // BOOST_DESCRIBE_STRUCT, BOOST_DESCRIBE_ENUM for users
#include <boost/mp11/algorithm.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

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
  [[nodiscard]] std::string to_string() const;

  /// An `errc::invalid_params` error "<pointer>: <what>" (just "<what>" at the root) with data
  /// `{"path": "<pointer>"}`. `what` says what was expected, e.g. "expected an integer, got null".
  [[nodiscard]] error make_error(std::string_view what) const;

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

/// A JSON scalar written in C++ source: null, a boolean, an integer, a number or a string. Field
/// metadata uses it for `default_value` and `examples`. A string is kept as a view: give string
/// literals. Default-constructed, it holds nothing (`has_value()` is false).
/// Thread-safety: immutable, safe to share.
class literal {
 public:
  /// What a literal holds: nothing, or a JSON scalar of one of these types.
  enum class kind : unsigned char {
    none,
    null,
    boolean,
    integer,
    unsigned_integer,
    number,
    string
  };

  /// Holds nothing.
  constexpr literal() noexcept = default;
  /// JSON null.
  constexpr literal(std::nullptr_t) noexcept : kind_(kind::null) {}
  /// A boolean.
  constexpr literal(bool b) noexcept : kind_(kind::boolean), bool_(b) {}
  /// An integer: `integer` when `I` is signed, `unsigned_integer` otherwise (not `char`).
  template <std::integral I>
  requires(!std::same_as<I, bool> && !std::same_as<I, char>) constexpr literal(I i) noexcept {
    if constexpr (std::is_signed_v<I>) {
      kind_ = kind::integer;
      int_ = i;
    } else {
      kind_ = kind::unsigned_integer;
      uint_ = i;
    }
  }
  /// A number, kept as a double.
  template <std::floating_point F>
  constexpr literal(F f) noexcept : kind_(kind::number), number_(static_cast<double>(f)) {}
  /// A string; `s` must outlive the literal (a string literal does).
  constexpr literal(const char* s) noexcept : kind_(kind::string), string_(s) {}
  /// A string; the view must outlive the literal.
  constexpr literal(std::string_view s) noexcept : kind_(kind::string), string_(s) {}

  /// What the literal holds.
  [[nodiscard]] constexpr kind type() const noexcept { return kind_; }
  /// False for a default-constructed literal.
  [[nodiscard]] constexpr bool has_value() const noexcept { return kind_ != kind::none; }
  /// The JSON value (null when `has_value()` is false). Throws only std::bad_alloc.
  [[nodiscard]] json::value to_json() const;

 private:
  kind kind_ = kind::none;
  bool bool_ = false;
  std::int64_t int_ = 0;
  std::uint64_t uint_ = 0;
  double number_ = 0;
  std::string_view string_{};
};

namespace detail {

/// A list of at most N values that a constant expression can build from `{a, b, c}` (an
/// initializer_list member would dangle once the field metadata is returned by value).
template <class T, std::size_t N>
class field_list {
 public:
  constexpr field_list() noexcept = default;
  constexpr field_list(std::initializer_list<T> items) noexcept {
    if (items.size() > N) {
      too_many_enum_values_or_examples();  // not constexpr: a compile error where metadata is built
      return;
    }
    for (const T& item : items) items_[size_++] = item;
  }
  [[nodiscard]] constexpr const T* begin() const noexcept { return items_.data(); }
  [[nodiscard]] constexpr const T* end() const noexcept { return items_.data() + size_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }

 private:
  static void too_many_enum_values_or_examples() noexcept {}  // "too many enum_values or examples"
  std::array<T, N> items_{};
  std::size_t size_ = 0;
};

}  // namespace detail

/// What a struct member says about itself in JSON, beyond its type: the second element of an
/// MCP_FIELDS entry, written with designated initializers in this order (C++ requires the
/// declaration order). Everything is optional; a keyword left out is not emitted.
///
/// The schema (`schema_for`) shows every keyword; the tool pipeline validates arguments
/// against it before the handler runs, so a handler only sees values that satisfy them. A
/// keyword that does not fit the member's type (`.min_length` on an int, `.nullable` on a
/// non-optional member, a string `.default_value` for a number) is a compile error.
struct field {
  /// The JSON key, when it differs from the member's name (e.g. "maxTokens" for max_tokens).
  std::string_view name{};
  std::string_view title{};        ///< "title": a short display name
  std::string_view description{};  ///< "description": what the model reads
  /// Not required: a missing key leaves the member at its initializer (its value in `T{}`), which
  /// the schema shows as "default".
  bool defaulted = false;
  /// Not required: a missing key decodes this value into the member; shown as "default".
  literal default_value{};
  /// For std::optional members: an explicit JSON null is accepted (decoded as nullopt) and
  /// the schema says so with a type array (`"type": ["string", "null"]`). Without it a
  /// std::optional member may be left out, but null is rejected by the schema, which keeps
  /// the plain type that every client understands.
  bool nullable = false;
  std::optional<double> minimum{};            ///< numbers
  std::optional<double> maximum{};            ///< numbers
  std::optional<double> exclusive_minimum{};  ///< numbers
  std::optional<double> exclusive_maximum{};  ///< numbers
  std::optional<double> multiple_of{};        ///< numbers, > 0
  std::optional<std::int64_t> min_length{};   ///< strings, in characters
  std::optional<std::int64_t> max_length{};   ///< strings, in characters
  std::string_view pattern{};                 ///< strings: an ECMA-262 regular expression
  std::string_view format{};                  ///< strings: "date-time", "email", "uri", ...
  detail::field_list<std::string_view, 64> enum_values{};  ///< strings: the allowed values
  std::optional<std::int64_t> min_items{};                 ///< arrays
  std::optional<std::int64_t> max_items{};                 ///< arrays
  bool unique_items = false;                               ///< arrays
  detail::field_list<literal, 8> examples{};               ///< "examples"
  bool deprecated = false;                                 ///< "deprecated": true
};

}  // namespace mcp

/// Describes the struct `C` (as BOOST_DESCRIBE_STRUCT(C, (), (members...)) does) and attaches
/// field metadata to its members, naming each member once. Each entry is `(member)`,
/// `(member, "description")` or `(member, {mcp::field designated initializers})`; list every
/// public member to be read and written, in any order (the JSON follows this order). Write it
/// at namespace scope in the namespace of `C`, after the struct:
///
///   struct search_in {
///     std::string query;
///     int max_results = 10;
///     std::optional<std::string> lang;
///   };
///   MCP_FIELDS(search_in, (query, {.description = "Search terms", .min_length = 1}),
///              (max_results, {.name = "maxResults", .defaulted = true, .minimum = 1,
///                             .maximum = 50}),
///              (lang, {.pattern = "^[a-z]{2}$"}))
///
/// A misspelt member is a compile error. For a struct with bases, use BOOST_DESCRIBE_STRUCT
/// and MCP_FIELD_DOCS. A struct without members is `MCP_FIELDS(C)`.
#define MCP_FIELDS(C, ...)                                                      \
  BOOST_DESCRIBE_STRUCT(C, (), (MCP_DETAIL_MEMBER_NAMES(__VA_ARGS__)))          \
  [[maybe_unused]] constexpr auto mcp_field_docs(C**) noexcept {                \
    return ::std::array{::mcp::detail::field_entry{} /* unused */               \
                        MCP_DETAIL_FOR_EACH(MCP_DETAIL_FIELD, C, __VA_ARGS__)}; \
  }

/// Attaches field metadata to members of `C`, a struct described with BOOST_DESCRIBE_STRUCT
/// (e.g. one with bases): the same entries as MCP_FIELDS, for some or all members, e.g.
/// `MCP_FIELD_DOCS(C, (member, "text"), (other, {.minimum = 0}))`. Write it at namespace scope
/// in the namespace of `C`, after BOOST_DESCRIBE_STRUCT. A misspelt member is a compile error;
/// naming a member that BOOST_DESCRIBE_STRUCT does not list, or one member twice, fails a
/// static_assert when `C` is first encoded, decoded or given a schema. Members of a base class
/// may be annotated here (this wins) or next to the base.
#define MCP_FIELD_DOCS(C, ...)                                                  \
  [[maybe_unused]] constexpr auto mcp_field_docs(C**) noexcept {                \
    return ::std::array{::mcp::detail::field_entry{} /* unused */               \
                        MCP_DETAIL_FOR_EACH(MCP_DETAIL_FIELD, C, __VA_ARGS__)}; \
  }

namespace mcp::detail {

/// One entry of MCP_FIELDS or MCP_FIELD_DOCS. The array the macros build starts with an empty
/// entry (so that it is never empty); the entries for the members follow.
struct field_entry {
  std::string_view member;
  field meta;
};

/// Returns `name`; the template argument only checks that the member exists and is accessible.
template <auto MemberPointer>
consteval std::string_view checked_member_name(std::string_view name) noexcept {
  static_assert(std::is_member_pointer_v<decltype(MemberPointer)>);
  return name;
}

/// The metadata of an entry: none, a description, or a whole `field`.
constexpr field to_field() noexcept { return {}; }
constexpr field to_field(std::string_view description) noexcept {
  field f;
  f.description = description;
  return f;
}
constexpr field to_field(const field& f) noexcept { return f; }

}  // namespace mcp::detail
// The implementation, in parts (each may also be included alone; see the parts' preamble).
#define MCP_DETAIL_REFLECT_SURFACE
// The parts depend on each other in this order.
// clang-format off
#include <mcp/detail/reflect_meta.hpp>
#include <mcp/detail/reflect_encode.hpp>
#include <mcp/detail/reflect_decode.hpp>
#include <mcp/detail/reflect_schema.hpp>
// clang-format on

namespace mcp {

/// Encodes `v` as JSON. Structs become objects with their members in declaration order under
/// their JSON names (an empty optional member is left out), enums their enumerator name, integers
/// int64 (uint64 above INT64_MAX), floats the shortest decimal that reads back as the same value,
/// optionals null when empty. A NaN or infinite double stays a double, which mcp::to_json_string
/// prints as null. An enum value that names no enumerator is encoded as its underlying integer.
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
    return detail::decode_fresh<T>(
        [&](T& out, error& err) { return detail::decode(v, path, out, err); });
  }
}

/// Decodes `v` as a `T` in one pass, without copying the input. A missing member with a
/// default (`.defaulted`, `.default_value`) gets it; a missing std::optional member is nullopt.
/// Tolerant where the schema is silent: unknown object keys are ignored, integers are accepted
/// for floating-point targets and integral doubles (3.0) for integer targets, and null is
/// accepted for any std::optional member (nullopt). Through a typed tool the arguments are
/// validated against `schema_for<T>()` first, which accepts null only for `.nullable`
/// members; the constraints a field declares are checked there, not here.
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
    return detail::decode_fresh<T>(
        [&](T& out, error& err) { return detail::decode_object(v, path, out, err); });
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
/// properties in declaration order under their JSON names, each with what its field metadata
/// declares (see mcp::field), and "required" listing the members that are neither optional
/// nor defaulted (left out when there are none); an empty struct gives
/// `{"type":"object","additionalProperties":false}`. Nested structs are written inline; a
/// struct that contains itself is referred to with {"$ref":"#"} when it is `T`, otherwise
/// through "$defs" at the top level. Integers carry no bounds but the declared ones (the
/// decoder checks the C++ range). The result is a self-contained root schema: embedding it in
/// another schema breaks its "$ref"s. Thread-safe; throws only std::bad_alloc.
template <class T>
[[nodiscard]] json::object schema_for() {
  return detail::root_schema(&detail::type_key<T>, &detail::schema_of<T>);
}

}  // namespace mcp
