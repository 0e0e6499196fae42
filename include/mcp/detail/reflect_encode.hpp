// File: mcp/detail/reflect_encode.hpp
//
// Part of mcp/reflect.hpp: the encoder behind mcp::to_json. Internal: nothing here is part of the
// public API and names may change at any time. Include <mcp/reflect.hpp>; including this file
// alone includes mcp/reflect.hpp, which reads the parts in order.
#ifndef MCP_DETAIL_REFLECT_ENCODE_HPP
#ifndef MCP_DETAIL_REFLECT_SURFACE
#include <mcp/reflect.hpp>
#else
#define MCP_DETAIL_REFLECT_ENCODE_HPP

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace mcp::detail {

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
    static_assert(fields_checked<T>);
    json::object o;
    using members = members_t<T>;
    o.reserve(boost::mp11::mp_size<members>::value);
    boost::mp11::mp_for_each<members>([&](auto d) {
      using D = decltype(d);
      const auto& m = v.*D::pointer;
      if constexpr (is_optional<member_t<T, D>>::value) {
        if (m) o.emplace(json_name_v<T, D>, encode(*m));
      } else {
        o.emplace(json_name_v<T, D>, encode(m));
      }
    });
    return o;
  } else {
    unsupported_type<T>();
    return nullptr;
  }
}

}  // namespace mcp::detail

#endif  // MCP_DETAIL_REFLECT_SURFACE
#endif  // MCP_DETAIL_REFLECT_ENCODE_HPP
