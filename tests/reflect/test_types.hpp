// Types shared by the mcp/reflect.hpp tests.
#pragma once

#include <mcp/reflect.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace reflect_test {

enum class units { metric, imperial };
BOOST_DESCRIBE_ENUM(units, metric, imperial)

struct forecast_in {
  std::string city;
  int days = 3;
  std::optional<units> unit;
  friend bool operator==(const forecast_in&, const forecast_in&) = default;
};
BOOST_DESCRIBE_STRUCT(forecast_in, (), (city, days, unit))
MCP_FIELD_DOCS(forecast_in, (city, "City name, e.g. Oslo"), (days, "Days ahead, 1-16"),
               (unit, "Unit system; metric if omitted"))

struct forecast_out {
  std::string summary;
  double high = 0;
  double low = 0;
  friend bool operator==(const forecast_out&, const forecast_out&) = default;
};
BOOST_DESCRIBE_STRUCT(forecast_out, (), (summary, high, low))

struct integers {
  std::int8_t i8 = 0;
  std::uint8_t u8 = 0;
  std::int16_t i16 = 0;
  std::uint16_t u16 = 0;
  std::int32_t i32 = 0;
  std::uint32_t u32 = 0;
  std::int64_t i64 = 0;
  std::uint64_t u64 = 0;
  long l = 0;
  unsigned long long ull = 0;
  friend bool operator==(const integers&, const integers&) = default;
};
BOOST_DESCRIBE_STRUCT(integers, (), (i8, u8, i16, u16, i32, u32, i64, u64, l, ull))

struct scalars {
  bool b = false;
  float f = 0;
  double d = 0;
  std::string s;
  friend bool operator==(const scalars&, const scalars&) = default;
};
BOOST_DESCRIBE_STRUCT(scalars, (), (b, f, d, s))

struct point {
  double x = 0;
  double y = 0;
  friend bool operator==(const point&, const point&) = default;
};
BOOST_DESCRIBE_STRUCT(point, (), (x, y))

struct containers {
  std::vector<int> ints;
  std::vector<std::string> strings;
  std::vector<bool> flags;
  std::vector<point> points;
  std::vector<std::vector<double>> matrix;
  std::map<std::string, int> counts;
  std::unordered_map<std::string, point> named;
  std::vector<std::optional<int>> holes;
  friend bool operator==(const containers&, const containers&) = default;
};
BOOST_DESCRIBE_STRUCT(containers, (), (ints, strings, flags, points, matrix, counts, named, holes))

struct line {
  point from;
  point to;
  std::optional<std::string> label;
  friend bool operator==(const line&, const line&) = default;
};
BOOST_DESCRIBE_STRUCT(line, (), (from, to, label))
MCP_FIELD_DOCS(line, (from, "Start"), (label, "Shown next to the line"))

struct drawing {
  std::string title;
  std::vector<line> lines;
  std::optional<line> frame;
  friend bool operator==(const drawing&, const drawing&) = default;
};
BOOST_DESCRIBE_STRUCT(drawing, (), (title, lines, frame))

struct raw_json {
  mcp::json::value any;
  mcp::json::object obj;
  mcp::json::array arr;
  std::optional<mcp::json::value> maybe;
  friend bool operator==(const raw_json&, const raw_json&) = default;
};
BOOST_DESCRIBE_STRUCT(raw_json, (), (any, obj, arr, maybe))

struct empty {
  friend bool operator==(const empty&, const empty&) = default;
};
BOOST_DESCRIBE_STRUCT(empty, (), ())

struct base {
  std::string id;
  std::optional<int> version;
  friend bool operator==(const base&, const base&) = default;
};
BOOST_DESCRIBE_STRUCT(base, (), (id, version))
MCP_FIELD_DOCS(base, (id, "Stable identifier"), (version, "Revision"))

struct derived : base {
  units unit = units::metric;
  friend bool operator==(const derived&, const derived&) = default;
};
BOOST_DESCRIBE_STRUCT(derived, (base), (unit))
MCP_FIELD_DOCS(derived, (version, "Revision of the derived record"), (unit, "Units"))

struct tree {
  std::string name;
  std::vector<tree> children;
  friend bool operator==(const tree&, const tree&) = default;
};
BOOST_DESCRIBE_STRUCT(tree, (), (name, children))

struct forest {
  std::vector<tree> trees;
  std::optional<tree> biggest;
  friend bool operator==(const forest&, const forest&) = default;
};
BOOST_DESCRIBE_STRUCT(forest, (), (trees, biggest))

// Mutual recursion: expr -> call -> expr.
struct call;
struct expr {
  std::optional<double> number;
  std::vector<call> calls;
  friend bool operator==(const expr&, const expr&) = default;
};
BOOST_DESCRIBE_STRUCT(expr, (), (number, calls))
struct call {
  std::string fn;
  std::vector<expr> args;
  friend bool operator==(const call&, const call&) = default;
};
BOOST_DESCRIBE_STRUCT(call, (), (fn, args))

struct program {
  std::vector<call> body;
  friend bool operator==(const program&, const program&) = default;
};
BOOST_DESCRIBE_STRUCT(program, (), (body))

// A type with a json_traits specialization: encoded as "r,g,b".
struct color {
  int r = 0;
  int g = 0;
  int b = 0;
  friend bool operator==(const color&, const color&) = default;
};

struct palette {
  std::string name;
  color primary;
  std::vector<color> others;
  std::optional<color> accent;
  std::map<std::string, color> by_name;
  friend bool operator==(const palette&, const palette&) = default;
};
BOOST_DESCRIBE_STRUCT(palette, (), (name, primary, others, accent, by_name))

// A described struct whose traits change only its schema.
struct celsius {
  double value = 0;
  friend bool operator==(const celsius&, const celsius&) = default;
};
BOOST_DESCRIBE_STRUCT(celsius, (), (value))

enum class priority { low, normal, high };
BOOST_DESCRIBE_ENUM(priority, low, normal, high)

// Every field keyword of MCP_FIELDS (reflect_fields_test.cpp checks the schema exactly, the
// property test round-trips generated values that satisfy the keywords).
struct booking {
  std::string guest;
  int nights = 1;
  double budget = 100;
  std::string room = "double";
  std::vector<std::string> tags;
  std::vector<int> scores;
  std::optional<std::string> email;
  std::optional<priority> level;
  std::int64_t max_tokens = 256;
  std::optional<std::string> note;
  std::optional<point> where;
  std::uint8_t floor = 0;  // the default (2) is given, not the initializer
  friend bool operator==(const booking&, const booking&) = default;
};
MCP_FIELDS(
    booking,
    (guest, {.title = "Guest",
             .description = "Family name",
             .min_length = 2,
             .max_length = 20,
             .pattern = "^[A-Z][a-z]+$",
             .examples = {"Hansen", "Berg"}}),
    (nights, {.description = "Nights", .defaulted = true, .minimum = 1, .maximum = 30}),
    (budget,
     {.defaulted = true, .exclusive_minimum = 0, .exclusive_maximum = 100000, .multiple_of = 0.5}),
    (room, {.default_value = "double", .enum_values = {"single", "double", "suite"}}),
    (tags, {.defaulted = true, .max_items = 3, .unique_items = true}),
    (scores, {.min_items = 1, .max_items = 4}), (email, {.nullable = true, .format = "email"}),
    (level, {.nullable = true}), (max_tokens, {.name = "maxTokens", .defaulted = true}),
    (note, {.deprecated = true}), (where, {.nullable = true}),
    (floor, {.default_value = 2, .minimum = 0, .maximum = 40}))

}  // namespace reflect_test

// Encodes a color as "r,g,b" with each channel 0-255.
template <>
struct mcp::json_traits<reflect_test::color> {
  static mcp::json::value to_json(const reflect_test::color& c) {
    return mcp::json::string(std::to_string(c.r) + "," + std::to_string(c.g) + "," +
                             std::to_string(c.b));
  }
  static mcp::result<reflect_test::color> from_json(const mcp::json::value& v,
                                                    const mcp::json_path& path) {
    auto s = mcp::from_json<std::string>(v, path);
    if (!s) return s.error();
    reflect_test::color c;
    int* channels[] = {&c.r, &c.g, &c.b};
    std::size_t pos = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      std::size_t end = s->find(',', pos);
      if ((i < 2) != (end != std::string::npos)) return path.make_error("expected \"r,g,b\"");
      std::string part = s->substr(pos, end == std::string::npos ? std::string::npos : end - pos);
      if (part.empty() || part.size() > 3 ||
          part.find_first_not_of("0123456789") != std::string::npos) {
        return path.make_error("expected \"r,g,b\"");
      }
      *channels[i] = std::stoi(part);
      if (*channels[i] > 255) return path.make_error("expected channels 0-255");
      pos = end + 1;
    }
    return c;
  }
  static mcp::json::object schema() {
    return {{"type", "string"}, {"pattern", "^[0-9]{1,3},[0-9]{1,3},[0-9]{1,3}$"}};
  }
};

template <>
struct mcp::json_traits<reflect_test::celsius> {
  static mcp::json::object schema() {
    return {{"type", "object"},
            {"properties", {{"value", {{"type", "number"}, {"minimum", -273.15}}}}},
            {"required", {"value"}}};
  }
};
