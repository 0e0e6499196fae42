// Property test of mcp/reflect.hpp against mcp/json_schema.hpp: for many generated values of
// many types, everything to_json<T> produces validates against schema_for<T>() and decodes back
// to an equal value, both from the DOM and after a trip through JSON text.
#include <mcp/json_schema.hpp>
#include <mcp/reflect.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "test_types.hpp"

namespace {

using namespace reflect_test;
namespace json = mcp::json;

// ---------------------------------------------------------------------------------- generators

struct gen {
  std::mt19937_64 rng;
  int depth = 0;  // nesting of containers and recursive types, bounded to keep values small

  std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng() % n); }
  bool coin() { return (rng() & 1U) != 0; }

  template <class T>
  T make();

  template <class I>
  I make_integer() {
    using lim = std::numeric_limits<I>;
    switch (below(6)) {
      case 0:
        return lim::min();
      case 1:
        return lim::max();
      case 2:
        return I{0};
      case 3:
        return static_cast<I>(below(100));
      default:
        return static_cast<I>(rng());  // wraps: any bit pattern of I
    }
  }

  template <class F>
  F make_floating() {
    using lim = std::numeric_limits<F>;
    switch (below(8)) {
      case 0:
        return lim::max();
      case 1:
        return lim::lowest();
      case 2:
        return lim::denorm_min();
      case 3:
        return static_cast<F>(-0.0);
      case 4:
        return static_cast<F>(static_cast<double>(below(2000)) / 8.0 - 100.0);
      default: {
        // Any finite bit pattern.
        for (;;) {
          F f{};
          if constexpr (sizeof(F) == 4) {
            f = std::bit_cast<F>(static_cast<std::uint32_t>(rng()));
          } else {
            f = std::bit_cast<F>(static_cast<std::uint64_t>(rng()));
          }
          if (std::isfinite(f)) return f;
        }
      }
    }
  }

  std::string make_string() {
    static constexpr const char* pieces[] = {"a",      "Oslo",       " ",  "\"",   "\\",   "/",
                                             "~",      "\n",         "\t", "\x01", "\x7f", "\u00e9",
                                             "\u20ac", "\U0001F600", "0",  "{}",   ""};
    std::string s;
    std::size_t n = below(6);
    for (std::size_t i = 0; i < n; ++i) s += pieces[below(std::size(pieces))];
    return s;
  }

  // A booking that satisfies every keyword its MCP_FIELDS declares.
  booking make_booking() {
    booking b;
    b.guest = "H";
    for (std::size_t n = 1 + below(19); n > 0; --n)
      b.guest.push_back(static_cast<char>('a' + below(26)));
    b.nights = static_cast<int>(1 + below(30));
    b.budget = static_cast<double>(1 + below(199999)) * 0.5;
    static constexpr const char* rooms[] = {"single", "double", "suite"};
    b.room = rooms[below(3)];
    for (std::size_t n = below(4); n > 0; --n)
      b.tags.push_back("t" + std::to_string(b.tags.size()) + make_string());
    for (std::size_t n = 1 + below(4); n > 0; --n) b.scores.push_back(make_integer<int>());
    if (coin()) b.email = "guest" + std::to_string(below(1000)) + "@example.com";
    b.level = make<std::optional<priority>>();
    b.max_tokens = make_integer<std::int64_t>();
    b.note = make<std::optional<std::string>>();
    b.where = make<std::optional<point>>();
    b.floor = static_cast<std::uint8_t>(below(41));
    return b;
  }

  json::value make_json() {
    std::size_t kinds = depth > 2 ? 5 : 7;
    switch (below(kinds)) {
      case 0:
        return nullptr;
      case 1:
        return coin();
      case 2:
        return make_integer<std::int64_t>();
      case 3:
        return make_floating<double>();
      case 4:
        return json::string(make_string());
      case 5: {
        ++depth;
        json::array a;
        for (std::size_t i = below(4); i > 0; --i) a.push_back(make_json());
        --depth;
        return a;
      }
      default: {
        ++depth;
        json::object o;
        for (std::size_t i = below(4); i > 0; --i) o[make_string()] = make_json();
        --depth;
        return o;
      }
    }
  }
};

template <class T>
struct is_vec : std::false_type {};
template <class T>
struct is_vec<std::vector<T>> : std::true_type {};
template <class T>
struct is_opt : std::false_type {};
template <class T>
struct is_opt<std::optional<T>> : std::true_type {};
template <class T>
struct is_map : std::false_type {};
template <class V>
struct is_map<std::map<std::string, V>> : std::true_type {};
template <class V>
struct is_map<std::unordered_map<std::string, V>> : std::true_type {};

template <class T>
T gen::make() {
  if constexpr (std::is_same_v<T, bool>) {
    return coin();
  } else if constexpr (std::is_integral_v<T>) {
    return make_integer<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    return make_floating<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return make_string();
  } else if constexpr (std::is_same_v<T, json::value>) {
    return make_json();
  } else if constexpr (std::is_same_v<T, json::object>) {
    ++depth;
    json::object o;
    for (std::size_t i = below(3); i > 0; --i) o[make_string()] = make_json();
    --depth;
    return o;
  } else if constexpr (std::is_same_v<T, json::array>) {
    ++depth;
    json::array a;
    for (std::size_t i = below(3); i > 0; --i) a.push_back(make_json());
    --depth;
    return a;
  } else if constexpr (std::is_same_v<T, color>) {
    return color{.r = static_cast<int>(below(256)),
                 .g = static_cast<int>(below(256)),
                 .b = static_cast<int>(below(256))};
  } else if constexpr (std::is_same_v<T, booking>) {
    return make_booking();
  } else if constexpr (std::is_enum_v<T>) {
    T out{};
    std::size_t pick = below(boost::mp11::mp_size<boost::describe::describe_enumerators<T>>::value);
    std::size_t i = 0;
    boost::mp11::mp_for_each<boost::describe::describe_enumerators<T>>([&](auto d) {
      if (i++ == pick) out = d.value;
    });
    return out;
  } else if constexpr (is_opt<T>::value) {
    if (depth > 3 || coin()) return std::nullopt;
    return make<typename T::value_type>();
  } else if constexpr (is_vec<T>::value) {
    T out;
    if (depth > 3) return out;
    ++depth;
    for (std::size_t i = below(4); i > 0; --i) out.push_back(make<typename T::value_type>());
    --depth;
    return out;
  } else if constexpr (is_map<T>::value) {
    T out;
    if (depth > 3) return out;
    ++depth;
    for (std::size_t i = below(4); i > 0; --i) {
      out.insert_or_assign(make_string(), make<typename T::mapped_type>());
    }
    --depth;
    return out;
  } else {
    static_assert(boost::describe::has_describe_members<T>::value);
    T out{};
    ++depth;
    boost::mp11::mp_for_each<mcp::detail::members_t<T>>([&](auto d) {
      using M = std::remove_cvref_t<decltype(out.*d.pointer)>;
      out.*d.pointer = make<M>();
    });
    --depth;
    return out;
  }
}

// -------------------------------------------------------------------------------- the property

// True when T holds no floating-point value: JSON text round trips are then exact (the parser
// of Boost.JSON 1.81 may read a double 1 ulp off, so text round trips of doubles are only
// checked to decode and validate).
template <class T>
constexpr bool text_exact = true;
template <>
constexpr bool text_exact<scalars> = false;
template <>
constexpr bool text_exact<forecast_out> = false;
template <>
constexpr bool text_exact<containers> = false;
template <>
constexpr bool text_exact<drawing> = false;
template <>
constexpr bool text_exact<raw_json> = false;
template <>
constexpr bool text_exact<program> = false;
template <>
constexpr bool text_exact<booking> = false;
template <>
constexpr bool text_exact<expr> = false;
template <>
constexpr bool text_exact<std::map<std::string, std::optional<double>>> = false;

template <class T>
void check_property(std::uint64_t seed, int count = 300) {
  json::value schema = mcp::schema_for<T>();
  auto v = mcp::json_schema::validator::compile(schema, {.format_assertion = true});
  ASSERT_TRUE(v) << v.error().message << "\n" << mcp::to_json_string(schema);
  gen g{std::mt19937_64(seed)};
  for (int i = 0; i < count; ++i) {
    T value = g.make<T>();
    if constexpr (std::is_same_v<T, raw_json>) {
      // optional<json::value> holding null encodes like an empty optional would decode.
      if (value.maybe && value.maybe->is_null()) value.maybe = json::value(0);
    }
    json::value encoded = mcp::to_json(value);
    std::string text = mcp::to_json_string(encoded);
    auto errors = v->validate(encoded);
    ASSERT_TRUE(errors.empty()) << errors.front().message << "\nvalue: " << text
                                << "\nschema: " << mcp::to_json_string(schema);
    auto back = mcp::from_json<T>(encoded);
    ASSERT_TRUE(back) << back.error().message << "\nvalue: " << text;
    ASSERT_TRUE(*back == value) << text;
    auto reparsed = mcp::parse_json(text);
    ASSERT_TRUE(reparsed) << text;
    EXPECT_TRUE(v->is_valid(*reparsed)) << text;
    auto back2 = mcp::from_json<T>(*reparsed);
    ASSERT_TRUE(back2) << back2.error().message << "\nvalue: " << text;
    if constexpr (text_exact<T>) {
      EXPECT_TRUE(*back2 == value) << text;
    }
  }
}

TEST(reflect_property, encoded_values_validate_and_round_trip) {
  check_property<forecast_in>(1);
  check_property<forecast_out>(2);
  check_property<integers>(3);
  check_property<scalars>(4);
  check_property<containers>(5);
  check_property<drawing>(6);
  check_property<raw_json>(7);
  check_property<empty>(8, 3);
  check_property<derived>(9);
  check_property<tree>(10);
  check_property<forest>(11);
  check_property<expr>(12);
  check_property<program>(13);
  check_property<palette>(14);
  check_property<std::vector<units>>(16);
  check_property<std::map<std::string, std::optional<double>>>(17);
  check_property<std::optional<forecast_in>>(18);
  check_property<std::int8_t>(19);
  check_property<std::uint64_t>(20);
}

TEST(reflect_property, field_keywords_defaults_and_null) {
  // Every MCP_FIELDS keyword (booking declares them all): generated values satisfy them, so
  // they validate and round trip; leaving out a key whose value is the default, or writing
  // null for a nullable member that is empty, validates and decodes to the same value.
  check_property<booking>(21);
  auto v =
      mcp::json_schema::validator::compile(mcp::schema_for<booking>(), {.format_assertion = true});
  ASSERT_TRUE(v);
  const json::object defaults = mcp::schema_for<booking>().at("properties").as_object();
  gen g{std::mt19937_64(22)};
  for (int i = 0; i < 300; ++i) {
    booking value = g.make<booking>();
    json::object o = mcp::to_json(value).as_object();
    for (const auto& [key, property] : defaults) {
      const auto* d = property.as_object().if_contains("default");
      if (d != nullptr && o.contains(key) && o.at(key) == *d && g.coin()) o.erase(key);
      const auto* type = property.as_object().if_contains("type");
      if (type != nullptr && type->is_array() && !o.contains(key) && g.coin()) o[key] = nullptr;
    }
    auto errors = v->validate(o);
    ASSERT_TRUE(errors.empty()) << errors.front().message << "\n" << mcp::to_json_string(o);
    auto back = mcp::from_json<booking>(o);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_TRUE(*back == value) << mcp::to_json_string(o);
  }
}

TEST(reflect_property, schemas_are_valid_2020_12) {
  // Every schema compiles, and the validator rejects what the decoder rejects for the cases
  // the schema can express (wrong type, missing required, enum miss). The C++ range of an
  // integer is the decoder's alone: the schema does not carry it.
  auto v = mcp::json_schema::validator::compile(mcp::schema_for<forecast_in>());
  ASSERT_TRUE(v);
  for (const char* bad :
       {R"({"city":"Oslo"})", R"({"city":"Oslo","days":"3"})",
        R"({"city":"Oslo","days":3,"unit":"kelvin"})", R"({"city":"Oslo","days":2.5})", "[]"}) {
    auto instance = mcp::parse_json(bad);
    ASSERT_TRUE(instance);
    EXPECT_FALSE(v->is_valid(*instance)) << bad;
    EXPECT_FALSE(mcp::from_json<forecast_in>(*instance)) << bad;
  }
  auto too_big = mcp::parse_json(R"({"city":"Oslo","days":3000000000})");
  ASSERT_TRUE(too_big);
  EXPECT_TRUE(v->is_valid(*too_big));
  auto decoded = mcp::from_json<forecast_in>(*too_big);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().message,
            "/days: expected an integer between -2147483648 and 2147483647, got number "
            "3000000000");
}

}  // namespace
