// Encoding and decoding with mcp/reflect.hpp: round trips, tolerance, error messages.
#include <mcp/reflect.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "reflect_util.hpp"
#include "test_types.hpp"

namespace {

using namespace reflect_test;
namespace json = mcp::json;

// Encodes, checks the text, decodes the parsed text and checks it equals the input.
template <class T>
void expect_round_trip(const T& v, std::string_view expected_text) {
  json::value j = mcp::to_json(v);
  EXPECT_EQ(mcp::to_json_string(j), expected_text);
  auto back = mcp::from_json<T>(parse(mcp::to_json_string(j)));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == v) << expected_text;
  // Decoding the DOM as produced (no text in between) gives the same.
  auto direct = mcp::from_json<T>(j);
  ASSERT_TRUE(direct) << direct.error().message;
  EXPECT_TRUE(*direct == v) << expected_text;
}

// Decodes `text` as T and expects an invalid_params error with `message` and data.path `path`.
template <class T>
void expect_error(std::string_view text, std::string_view message, std::string_view path) {
  auto r = mcp::from_json<T>(parse(text));
  ASSERT_FALSE(r) << text;
  EXPECT_TRUE(r.error().is(mcp::errc::invalid_params));
  EXPECT_EQ(r.error().message, message) << text;
  ASSERT_TRUE(r.error().data.has_value());
  EXPECT_EQ(*r.error().data, json::value({{"path", path}})) << text;
}

// -------------------------------------------------------------------------------- round trips

TEST(reflect_round_trip, forecast_example) {
  expect_round_trip(forecast_in{.city = "Oslo", .days = 3, .unit = std::nullopt},
                    R"({"city":"Oslo","days":3})");
  expect_round_trip(forecast_in{.city = "Bergen", .days = 16, .unit = units::imperial},
                    R"({"city":"Bergen","days":16,"unit":"imperial"})");
  expect_round_trip(forecast_out{.summary = "Sunny in Oslo", .high = 21.5, .low = 12.0},
                    R"({"summary":"Sunny in Oslo","high":21.5,"low":12})");
}

TEST(reflect_round_trip, integer_limits) {
  integers lo{.i8 = INT8_MIN,
              .u8 = 0,
              .i16 = INT16_MIN,
              .u16 = 0,
              .i32 = INT32_MIN,
              .u32 = 0,
              .i64 = INT64_MIN,
              .u64 = 0,
              .l = std::numeric_limits<long>::min(),
              .ull = 0};
  expect_round_trip(lo, R"({"i8":-128,"u8":0,"i16":-32768,"u16":0,"i32":-2147483648,"u32":0,)"
                        R"("i64":-9223372036854775808,"u64":0,"l":-9223372036854775808,"ull":0})");
  integers hi{.i8 = INT8_MAX,
              .u8 = UINT8_MAX,
              .i16 = INT16_MAX,
              .u16 = UINT16_MAX,
              .i32 = INT32_MAX,
              .u32 = UINT32_MAX,
              .i64 = INT64_MAX,
              .u64 = UINT64_MAX,
              .l = std::numeric_limits<long>::max(),
              .ull = UINT64_MAX};
  expect_round_trip(hi, R"({"i8":127,"u8":255,"i16":32767,"u16":65535,"i32":2147483647,)"
                        R"("u32":4294967295,"i64":9223372036854775807,"u64":18446744073709551615,)"
                        R"("l":9223372036854775807,"ull":18446744073709551615})");
}

TEST(reflect_round_trip, unsigned_values_encode_like_the_parser) {
  // Small unsigned values are int64 (as parsed), only values above INT64_MAX are uint64.
  EXPECT_TRUE(mcp::to_json(std::uint64_t{5}).is_int64());
  EXPECT_TRUE(mcp::to_json(std::uint64_t{INT64_MAX}).is_int64());
  EXPECT_TRUE(mcp::to_json(std::uint64_t{INT64_MAX} + 1).is_uint64());
  EXPECT_TRUE(mcp::to_json(std::uint8_t{7}).is_int64());
}

TEST(reflect_round_trip, scalars) {
  expect_round_trip(scalars{.b = true, .f = 0.1F, .d = 0.1, .s = "x\"y\n\u00e9"},
                    R"({"b":true,"f":0.1,"d":0.1,"s":"x\"y\né"})");
  expect_round_trip(scalars{.b = false, .f = -3.25F, .d = 1e300, .s = ""},
                    R"({"b":false,"f":-3.25,"d":1e+300,"s":""})");
  expect_round_trip(scalars{.b = false,
                            .f = std::numeric_limits<float>::max(),
                            .d = std::numeric_limits<double>::denorm_min(),
                            .s = std::string("nul\0in", 6)},
                    R"({"b":false,"f":3.4028235e+38,"d":5e-324,"s":"nul\u0000in"})");
}

TEST(reflect_round_trip, floats_print_their_shortest_form) {
  EXPECT_EQ(mcp::to_json_string(mcp::to_json(0.1F)), "0.1");
  EXPECT_EQ(mcp::to_json_string(mcp::to_json(21.5F)), "21.5");
  EXPECT_EQ(mcp::to_json_string(mcp::to_json(1.0F / 3.0F)), "0.33333334");
  EXPECT_EQ(mcp::to_json_string(mcp::to_json(std::numeric_limits<double>::quiet_NaN())), "null");
}

TEST(reflect_round_trip, string_view_encodes) {
  std::string_view sv = "view";
  EXPECT_EQ(mcp::to_json(sv), json::value("view"));
}

TEST(reflect_round_trip, enums) {
  expect_round_trip(units::imperial, R"("imperial")");
  expect_round_trip(std::vector<units>{units::metric, units::imperial}, R"(["metric","imperial"])");
  // A value that names no enumerator keeps its number (decoding it fails).
  EXPECT_EQ(mcp::to_json(static_cast<units>(7)), json::value(7));
}

TEST(reflect_round_trip, containers) {
  containers c{.ints = {1, -2, 3},
               .strings = {"a", "", "c"},
               .flags = {true, false, true},
               .points = {{.x = 1, .y = 2}, {.x = -0.5, .y = 1e-3}},
               .matrix = {{1, 2}, {}, {3.5}},
               .counts = {{"a", 1}, {"b", 2}},
               .named = {{"origin", {.x = 0, .y = 0}}},
               .holes = {1, std::nullopt, 3}};
  expect_round_trip(c, R"({"ints":[1,-2,3],"strings":["a","","c"],"flags":[true,false,true],)"
                       R"("points":[{"x":1,"y":2},{"x":-0.5,"y":0.001}],"matrix":[[1,2],[],[3.5]],)"
                       R"("counts":{"a":1,"b":2},"named":{"origin":{"x":0,"y":0}},)"
                       R"("holes":[1,null,3]})");
  expect_round_trip(containers{},
                    R"({"ints":[],"strings":[],"flags":[],"points":[],"matrix":[],"counts":{},)"
                    R"("named":{},"holes":[]})");
}

TEST(reflect_round_trip, nested_structs_and_optionals) {
  drawing d{.title = "t",
            .lines = {{.from = {.x = 0, .y = 0}, .to = {.x = 1, .y = 1}, .label = "diag"},
                      {.from = {.x = 2, .y = 2}, .to = {.x = 3, .y = 3}, .label = std::nullopt}},
            .frame = std::nullopt};
  expect_round_trip(d, R"({"title":"t","lines":[{"from":{"x":0,"y":0},"to":{"x":1,"y":1},)"
                       R"("label":"diag"},{"from":{"x":2,"y":2},"to":{"x":3,"y":3}}]})");
  d.frame = line{.from = {.x = 0, .y = 0}, .to = {.x = 9, .y = 9}, .label = ""};
  expect_round_trip(d, R"({"title":"t","lines":[{"from":{"x":0,"y":0},"to":{"x":1,"y":1},)"
                       R"("label":"diag"},{"from":{"x":2,"y":2},"to":{"x":3,"y":3}}],)"
                       R"("frame":{"from":{"x":0,"y":0},"to":{"x":9,"y":9},"label":""}})");
}

TEST(reflect_round_trip, top_level_optional_is_null_when_empty) {
  expect_round_trip(std::optional<int>{}, "null");
  expect_round_trip(std::optional<int>{4}, "4");
  // Nested optionals collapse: null decodes to the outer nullopt.
  auto nested = mcp::from_json<std::optional<std::optional<int>>>(json::value(nullptr));
  ASSERT_TRUE(nested);
  EXPECT_FALSE(nested->has_value());
}

TEST(reflect_round_trip, json_members) {
  raw_json r{.any = parse(R"([1,{"a":null}])"),
             .obj = parse(R"({"k":"v"})").as_object(),
             .arr = parse(R"([true])").as_array(),
             .maybe = std::nullopt};
  expect_round_trip(r, R"({"any":[1,{"a":null}],"obj":{"k":"v"},"arr":[true]})");
  r.any = nullptr;
  r.maybe = json::value(3);
  expect_round_trip(r, R"({"any":null,"obj":{"k":"v"},"arr":[true],"maybe":3})");
}

TEST(reflect_round_trip, empty_struct) {
  expect_round_trip(empty{}, "{}");
  // Unknown keys are the schema's business; the decoder ignores them.
  EXPECT_TRUE(mcp::from_json<empty>(parse(R"({"x":1})")));
}

TEST(reflect_round_trip, bases_come_first) {
  derived d;
  d.id = "r1";
  d.version = 2;
  d.unit = units::imperial;
  expect_round_trip(d, R"({"id":"r1","version":2,"unit":"imperial"})");
}

TEST(reflect_round_trip, recursive_types) {
  tree t{.name = "root",
         .children = {{.name = "a", .children = {{.name = "a1", .children = {}}}},
                      {.name = "b", .children = {}}}};
  expect_round_trip(t, R"({"name":"root","children":[{"name":"a","children":[{"name":"a1",)"
                       R"("children":[]}]},{"name":"b","children":[]}]})");
  program p{.body = {{.fn = "add",
                      .args = {{.number = 1, .calls = {}},
                               {.number = std::nullopt,
                                .calls = {{.fn = "neg", .args = {{.number = 2, .calls = {}}}}}}}}}};
  expect_round_trip(p, R"({"body":[{"fn":"add","args":[{"number":1,"calls":[]},{"calls":[{"fn":)"
                       R"("neg","args":[{"number":2,"calls":[]}]}]}]}]})");
}

TEST(reflect_round_trip, json_traits_customization) {
  palette p{.name = "p",
            .primary = {.r = 255, .g = 0, .b = 10},
            .others = {{.r = 1, .g = 2, .b = 3}},
            .accent = color{.r = 0, .g = 0, .b = 0},
            .by_name = {{"white", {.r = 255, .g = 255, .b = 255}}}};
  expect_round_trip(p, R"({"name":"p","primary":"255,0,10","others":["1,2,3"],"accent":"0,0,0",)"
                       R"("by_name":{"white":"255,255,255"}})");
  p.accent.reset();
  expect_round_trip(p, R"({"name":"p","primary":"255,0,10","others":["1,2,3"],)"
                       R"("by_name":{"white":"255,255,255"}})");
  expect_round_trip(color{.r = 4, .g = 5, .b = 6}, R"("4,5,6")");
}

TEST(reflect_round_trip, traits_with_only_a_schema_keep_the_described_codec) {
  expect_round_trip(celsius{.value = -3.5}, R"({"value":-3.5})");
}

// ---------------------------------------------------------------------------------- tolerance

TEST(reflect_decode, unknown_keys_are_ignored) {
  auto r = mcp::from_json<forecast_in>(parse(R"({"x":[1],"city":"Oslo","days":2,"y":null})"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, (forecast_in{.city = "Oslo", .days = 2, .unit = std::nullopt}));
}

TEST(reflect_decode, optional_member_missing_or_null_is_nullopt) {
  auto missing = mcp::from_json<forecast_in>(parse(R"({"city":"Oslo","days":2})"));
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->unit.has_value());
  auto null = mcp::from_json<forecast_in>(parse(R"({"city":"Oslo","days":2,"unit":null})"));
  ASSERT_TRUE(null);
  EXPECT_FALSE(null->unit.has_value());
  auto set = mcp::from_json<forecast_in>(parse(R"({"city":"Oslo","days":2,"unit":"metric"})"));
  ASSERT_TRUE(set);
  EXPECT_EQ(set->unit, units::metric);
}

TEST(reflect_decode, integral_doubles_are_integers) {
  EXPECT_EQ(mcp::from_json<int>(json::value(3.0)).value(), 3);
  EXPECT_EQ(mcp::from_json<int>(parse("-1e2")).value(), -100);
  EXPECT_EQ(mcp::from_json<unsigned>(json::value(-0.0)).value(), 0U);
  EXPECT_EQ(mcp::from_json<std::int64_t>(json::value(-9223372036854775808.0)).value(), INT64_MIN);
  EXPECT_EQ(mcp::from_json<std::uint64_t>(json::value(18446744073709549568.0)).value(),
            18446744073709549568ULL);
  EXPECT_EQ(mcp::from_json<std::uint64_t>(json::value(std::uint64_t{UINT64_MAX})).value(),
            UINT64_MAX);
}

TEST(reflect_decode, integers_are_numbers) {
  EXPECT_EQ(mcp::from_json<double>(json::value(3)).value(), 3.0);
  EXPECT_EQ(mcp::from_json<double>(json::value(std::uint64_t{UINT64_MAX})).value(), 0x1p64);
  EXPECT_EQ(mcp::from_json<float>(json::value(-7)).value(), -7.0F);
  EXPECT_EQ(mcp::from_json<float>(json::value(0.1)).value(), 0.1F);
}

TEST(reflect_decode, decoding_into_a_map_replaces_its_content) {
  auto r = mcp::from_json<std::map<std::string, int>>(parse(R"({"b":2,"a":1})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (std::map<std::string, int>{{"a", 1}, {"b", 2}}));
}

TEST(reflect_decode, from_json_with_a_path_prefixes_errors) {
  mcp::json_path root;
  mcp::json_path params = root.member("params");
  mcp::json_path args = params.member("arguments");
  auto r = mcp::from_json<forecast_in>(parse(R"({"city":1})"), args);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "/params/arguments/city: expected a string, got number 1");
}

TEST(reflect_decode, from_an_object_without_copying_it) {
  json::object args = parse(R"({"city":"Oslo","days":2})").as_object();
  auto r = mcp::from_json<forecast_in>(args);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, (forecast_in{.city = "Oslo", .days = 2, .unit = std::nullopt}));
  auto m = mcp::from_json<std::map<std::string, int>>(args);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message, R"(/city: expected an integer, got string "Oslo")");
  auto o = mcp::from_json<json::object>(args);
  ASSERT_TRUE(o);
  EXPECT_EQ(*o, args);
  auto i = mcp::from_json<int>(args);
  ASSERT_FALSE(i);
  EXPECT_EQ(i.error().message, "expected an integer, got object");
  mcp::json_path root;
  mcp::json_path at = root.member("arguments");
  auto e = mcp::from_json<forecast_in>(parse(R"({"city":"Oslo"})").as_object(), at);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "/arguments/days: required property is missing");
}

// ------------------------------------------------------------------------------------- errors

TEST(reflect_errors, wrong_type_at_every_level) {
  expect_error<forecast_in>(R"([1])", "expected an object, got array", "");
  expect_error<forecast_in>(R"("x")", R"(expected an object, got string "x")", "");
  expect_error<forecast_in>(R"({"city":"Oslo","days":"three"})",
                            R"(/days: expected an integer, got string "three")", "/days");
  expect_error<forecast_in>(R"({"city":true,"days":1})",
                            "/city: expected a string, got boolean true", "/city");
  expect_error<drawing>(R"({"title":"t","lines":{}})", "/lines: expected an array, got object",
                        "/lines");
  expect_error<drawing>(R"({"title":"t","lines":[{"from":{"x":0,"y":0},"to":[]}]})",
                        "/lines/0/to: expected an object, got array", "/lines/0/to");
  expect_error<drawing>(R"({"title":"t","lines":[{"from":{"x":0,"y":0},"to":{"x":1,"y":1}},)"
                        R"({"from":{"x":0,"y":false},"to":{"x":1,"y":1}}]})",
                        "/lines/1/from/y: expected a number, got boolean false", "/lines/1/from/y");
  expect_error<drawing>(R"({"title":"t","lines":[],"frame":{"from":{"x":0,"y":0},)"
                        R"("to":{"x":1,"y":1},"label":7}})",
                        "/frame/label: expected a string, got number 7", "/frame/label");
  expect_error<containers>(R"({"ints":[1,2,"3"]})",
                           R"(/ints/2: expected an integer, got string "3")", "/ints/2");
  expect_error<containers>(R"({"ints":[],"strings":[],"flags":[true,1]})",
                           "/flags/1: expected a boolean, got number 1", "/flags/1");
  expect_error<containers>(
      R"({"ints":[],"strings":[],"flags":[],"points":[],"matrix":[[1],[2,"x"]]})",
      R"(/matrix/1/1: expected a number, got string "x")", "/matrix/1/1");
  expect_error<containers>(
      R"({"ints":[],"strings":[],"flags":[],"points":[],"matrix":[],"counts":{"a":1.5}})",
      "/counts/a: expected an integer, got number 1.5", "/counts/a");
  expect_error<containers>(
      R"({"ints":[],"strings":[],"flags":[],"points":[],"matrix":[],"counts":{},)"
      R"("named":{"o":{"x":1}}})",
      "/named/o/y: required property is missing", "/named/o/y");
  expect_error<containers>(
      R"({"ints":[],"strings":[],"flags":[],"points":[],"matrix":[],"counts":{},)"
      R"("named":{},"holes":[1,null,"2"]})",
      R"(/holes/2: expected an integer, got string "2")", "/holes/2");
  expect_error<raw_json>(R"({"any":1,"obj":[],"arr":[]})", "/obj: expected an object, got array",
                         "/obj");
  expect_error<raw_json>(R"({"any":1,"obj":{},"arr":{}})", "/arr: expected an array, got object",
                         "/arr");
  expect_error<std::vector<double>>(R"([1,2,null])", "/2: expected a number, got null", "/2");
}

TEST(reflect_errors, null_is_not_a_value_of_a_required_member) {
  expect_error<forecast_in>(R"({"city":null,"days":1})", "/city: expected a string, got null",
                            "/city");
  expect_error<containers>(R"({"ints":null})", "/ints: expected an array, got null", "/ints");
  expect_error<raw_json>(R"({"obj":{},"arr":[]})", "/any: required property is missing", "/any");
}

TEST(reflect_errors, missing_required_property) {
  expect_error<forecast_in>(R"({"days":1})", "/city: required property is missing", "/city");
  expect_error<forecast_in>(R"({"city":"Oslo"})", "/days: required property is missing", "/days");
  expect_error<line>(R"({"from":{"x":0,"y":0}})", "/to: required property is missing", "/to");
  expect_error<drawing>(R"({"title":"t","lines":[{"from":{"y":0},"to":{"x":0,"y":0}}]})",
                        "/lines/0/from/x: required property is missing", "/lines/0/from/x");
  expect_error<derived>(R"({"unit":"metric"})", "/id: required property is missing", "/id");
}

TEST(reflect_errors, first_wrong_member_in_declaration_order) {
  expect_error<forecast_in>(R"({"unit":"kelvin","days":"x"})",
                            "/city: required property is missing", "/city");
}

TEST(reflect_errors, enum_miss) {
  expect_error<forecast_in>(R"({"city":"Oslo","days":1,"unit":"kelvin"})",
                            R"(/unit: expected one of "metric", "imperial", got "kelvin")",
                            "/unit");
  expect_error<forecast_in>(R"({"city":"Oslo","days":1,"unit":0})",
                            R"(/unit: expected one of "metric", "imperial", got number 0)",
                            "/unit");
  expect_error<units>(R"("Metric")", R"(expected one of "metric", "imperial", got "Metric")", "");
}

TEST(reflect_errors, integer_out_of_range) {
  expect_error<std::uint8_t>("256", "expected an integer between 0 and 255, got number 256", "");
  expect_error<std::uint8_t>("-1", "expected an integer between 0 and 255, got number -1", "");
  expect_error<std::int8_t>("-129", "expected an integer between -128 and 127, got number -129",
                            "");
  expect_error<int>("3000000000",
                    "expected an integer between -2147483648 and 2147483647, got number 3000000000",
                    "");
  expect_error<unsigned>("-1", "expected an integer between 0 and 4294967295, got number -1", "");
  expect_error<std::int64_t>("9223372036854775808",
                             "expected an integer between -9223372036854775808 and "
                             "9223372036854775807, got number 9223372036854775808",
                             "");
  expect_error<std::int64_t>("9.3e18",
                             "expected an integer between -9223372036854775808 and "
                             "9223372036854775807, got number 9.3e+18",
                             "");
  expect_error<std::uint64_t>(
      "1e20", "expected an integer between 0 and 18446744073709551615, got number 1e+20", "");
  expect_error<std::uint64_t>("18446744073709551616",
                              "expected an integer between 0 and 18446744073709551615, got "
                              "number 18446744073709551616",
                              "");
  expect_error<std::int16_t>("40000.0",
                             "expected an integer between -32768 and 32767, got number 40000", "");
  expect_error<integers>(R"({"i8":1,"u8":300})",
                         "/u8: expected an integer between 0 and 255, got number 300", "/u8");
}

TEST(reflect_errors, fractional_integer) {
  expect_error<int>("2.5", "expected an integer, got number 2.5", "");
  expect_error<std::uint64_t>("1e-300", "expected an integer, got number 1e-300", "");
  expect_error<forecast_in>(R"({"city":"Oslo","days":3.5})",
                            "/days: expected an integer, got number 3.5", "/days");
}

TEST(reflect_errors, float_out_of_range) {
  expect_error<float>("1e39", "expected a number in the range of float, got number 1e+39", "");
  EXPECT_TRUE(mcp::from_json<double>(parse("1e39")));
}

TEST(reflect_errors, wrong_scalar_kinds) {
  expect_error<bool>("1", "expected a boolean, got number 1", "");
  expect_error<bool>(R"("true")", R"(expected a boolean, got string "true")", "");
  expect_error<std::string>("null", "expected a string, got null", "");
  expect_error<std::string>("{}", "expected a string, got object", "");
  expect_error<double>(R"("1.5")", R"(expected a number, got string "1.5")", "");
  expect_error<int>("true", "expected an integer, got boolean true", "");
  expect_error<std::optional<int>>(R"("1")", R"(expected an integer, got string "1")", "");
  expect_error<std::map<std::string, int>>("[]", "expected an object, got array", "");
}

TEST(reflect_errors, long_strings_are_cut_in_messages) {
  std::string s(100, 'a');
  expect_error<int>("\"" + s + "\"",
                    "expected an integer, got string \"" + std::string(40, 'a') + "...\"", "");
  // The cut never splits a UTF-8 sequence: 39 ASCII bytes, then a 2-byte character.
  std::string u = std::string(39, 'b') + "\u00e9" + std::string(10, 'c');
  expect_error<int>("\"" + u + "\"",
                    "expected an integer, got string \"" + std::string(39, 'b') + "...\"", "");
}

TEST(reflect_errors, json_pointer_escapes_keys) {
  expect_error<std::map<std::string, int>>(
      R"({"a/b~c":"x"})", R"(/a~1b~0c: expected an integer, got string "x")", "/a~1b~0c");
}

TEST(reflect_errors, json_traits_errors_carry_the_path) {
  expect_error<palette>(R"({"name":"p","primary":"1,2"})", R"(/primary: expected "r,g,b")",
                        "/primary");
  expect_error<palette>(R"({"name":"p","primary":"1,2,3","others":["1,2,3",5]})",
                        "/others/1: expected a string, got number 5", "/others/1");
  expect_error<palette>(R"({"name":"p","primary":"1,2,3","others":[],"accent":"9,9,999"})",
                        "/accent: expected channels 0-255", "/accent");
  expect_error<palette>(R"({"name":"p","primary":"1,2,3","others":[],"by_name":{"x":"1,2,3,4"}})",
                        R"(/by_name/x: expected "r,g,b")", "/by_name/x");
}

TEST(reflect_errors, decoder_does_not_throw_on_any_kind) {
  // Every JSON kind against every decoder: results, never exceptions.
  for (const char* text : {"null", "true", "0", "-1", "1.5", "1e400", "\"s\"", "[]", "{}", "[null]",
                           R"({"city":{}})"}) {
    json::value v = parse(text);
    EXPECT_NO_THROW({
      (void)mcp::from_json<forecast_in>(v);
      (void)mcp::from_json<containers>(v);
      (void)mcp::from_json<integers>(v);
      (void)mcp::from_json<scalars>(v);
      (void)mcp::from_json<palette>(v);
      (void)mcp::from_json<program>(v);
      (void)mcp::from_json<derived>(v);
      (void)mcp::from_json<raw_json>(v);
      (void)mcp::from_json<std::uint8_t>(v);
      (void)mcp::from_json<float>(v);
    }) << text;
  }
}

// ---------------------------------------------------------------------------------- json_path

// Children of temporaries would dangle, so they are not allowed.
template <class P>
concept can_chain_on_temporary = requires(P p) {
  p.member("a").member("b");
};
static_assert(!can_chain_on_temporary<mcp::json_path>);

TEST(reflect_json_path, to_string) {
  mcp::json_path root;
  EXPECT_TRUE(root.is_root());
  EXPECT_EQ(root.to_string(), "");
  auto a = root.member("items");
  auto b = a.element(12);
  auto c = b.member("~/");
  auto d = c.member("");
  EXPECT_FALSE(a.is_root());
  EXPECT_EQ(a.to_string(), "/items");
  EXPECT_EQ(b.to_string(), "/items/12");
  EXPECT_EQ(c.to_string(), "/items/12/~0~1");
  EXPECT_EQ(d.to_string(), "/items/12/~0~1/");
}

TEST(reflect_json_path, make_error) {
  mcp::json_path root;
  auto e = root.member("days").make_error("expected an integer, got null");
  EXPECT_TRUE(e.is(mcp::errc::invalid_params));
  EXPECT_EQ(e.message, "/days: expected an integer, got null");
  EXPECT_EQ(e.data, json::value({{"path", "/days"}}));
  auto r = root.make_error("expected an object, got null");
  EXPECT_EQ(r.message, "expected an object, got null");
  EXPECT_EQ(r.data, json::value({{"path", ""}}));
}

}  // namespace
