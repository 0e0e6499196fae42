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

}  // namespace mcp

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
    return detail::decode_fresh<T>(
        [&](T& out, error& err) { return detail::decode(v, path, out, err); });
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
