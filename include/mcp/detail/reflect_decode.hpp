// File: mcp/detail/reflect_decode.hpp
//
// Part of mcp/reflect.hpp: the decoder behind mcp::from_json. Internal: nothing here is part of the
// public API and names may change at any time. Include <mcp/reflect.hpp>; including this file
// alone includes mcp/reflect.hpp, which reads the parts in order.
#ifndef MCP_DETAIL_REFLECT_DECODE_HPP
#ifndef MCP_DETAIL_REFLECT_SURFACE
#include <mcp/reflect.hpp>
#else
#define MCP_DETAIL_REFLECT_DECODE_HPP

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace mcp::detail {

/// "an integer between MIN and MAX" (src/reflect.cpp).
std::string integer_range_text(long long min, unsigned long long max);
template <class I>
std::string integer_range_text() {
  return integer_range_text(static_cast<long long>(std::numeric_limits<I>::min()),
                            static_cast<unsigned long long>(std::numeric_limits<I>::max()));
}

template <class T>
bool decode(const json::value& v, const json_path& path, T& out, error& err);

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

// The decoders of the standard arithmetic types are compiled once, in src/reflect.cpp, rather
// than in every translation unit that decodes a struct with such a member.
extern template bool decode_integer(const json::value&, const json_path&, signed char&, error&);
extern template bool decode_integer(const json::value&, const json_path&, unsigned char&, error&);
extern template bool decode_integer(const json::value&, const json_path&, short&, error&);
extern template bool decode_integer(const json::value&, const json_path&, unsigned short&, error&);
extern template bool decode_integer(const json::value&, const json_path&, int&, error&);
extern template bool decode_integer(const json::value&, const json_path&, unsigned&, error&);
extern template bool decode_integer(const json::value&, const json_path&, long&, error&);
extern template bool decode_integer(const json::value&, const json_path&, unsigned long&, error&);
extern template bool decode_integer(const json::value&, const json_path&, long long&, error&);
extern template bool decode_integer(const json::value&, const json_path&, unsigned long long&,
                                    error&);
extern template bool decode_floating(const json::value&, const json_path&, float&, error&);
extern template bool decode_floating(const json::value&, const json_path&, double&, error&);

/// Decodes a JSON string into `out` (src/reflect.cpp).
bool decode_string(const json::value& v, const json_path& path, std::string& out, error& err);
/// Decodes a JSON boolean into `out` (src/reflect.cpp).
bool decode_bool(const json::value& v, const json_path& path, bool& out, error& err);

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
  constexpr std::string_view key = json_name_v<T, D>;
  constexpr const field& meta = field_v<T, D>;
  auto& m = out.*D::pointer;
  const json::value* jv = o.if_contains(key);
  const json_path child = path.member(key);
  if (jv != nullptr) return decode(*jv, child, m, err);  // null -> nullopt for an optional
  if constexpr (meta.default_value.has_value()) {
    return decode(meta.default_value.to_json(), child, m, err);
  } else if constexpr (meta.defaulted) {
    return true;  // keeps the initializer
  } else if constexpr (is_optional<member_t<T, D>>::value) {
    m.reset();
    return true;
  } else {
    err = child.make_error("required property is missing");
    return false;
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
    static_assert(described_struct<T> && fields_checked<T>);
    return decode_members(o, path, out, err,
                          boost::mp11::mp_rename<members_t<T>, boost::mp11::mp_list>{});
  }
}

template <class T>
bool decode(const json::value& v, const json_path& path, T& out, error& err) {
  if constexpr (traits_from_json<T>) {
    return decode_new<T>(v, path, err, [&](T&& t) { out = std::move(t); });
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
    return decode_bool(v, path, out, err);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return decode_string(v, path, out, err);
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

/// Runs `decode_into(T&, error&)` on a value-initialized `T` and returns it, or the error.
template <class T, class Decode>
result<T> decode_fresh(Decode&& decode_into) {
  static_assert(std::is_default_constructible_v<T>,
                "mcp::from_json<T>: T must be default-constructible, or specialize "
                "mcp::json_traits<T> with a from_json");
  T out{};
  error err;
  if (!decode_into(out, err)) return err;
  return out;
}

}  // namespace mcp::detail

#endif  // MCP_DETAIL_REFLECT_SURFACE
#endif  // MCP_DETAIL_REFLECT_DECODE_HPP
