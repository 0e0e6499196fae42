// Golden wire transcripts replayed against the demo server binary over stdio.
//
// A transcript is a text file of lines:
//   @ everything    (before any other line, optional) replay against the everything server
//                   (the conformance fixtures) instead of the demo server
//   ! ARGS          (first line, optional) extra arguments for the demo server
//   > TEXT          send TEXT as one line (any bytes, valid JSON or not)
//   < JSON          the next line the server writes must equal JSON (parsed, so key order
//                   matters not); a string "<any>" matches any value
//   # ...           comment
// In a "> " line, {{nextCursor}} is replaced by the last nextCursor the server sent, and
// {{requestState}} by the last requestState (a 2026-07-28 input round's sealed state).
#include <mcp/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/subprocess.hpp"

namespace {

namespace fs = std::filesystem;

bool matches(const mcp::json::value& expected, const mcp::json::value& actual) {
  if (expected.is_string() && expected.get_string() == "<any>") return true;
  if (expected.kind() != actual.kind()) {
    // 3 and 3.0 compare equal as numbers
    if (expected.is_number() && actual.is_number()) {
      return expected.to_number<double>() == actual.to_number<double>();
    }
    return false;
  }
  if (expected.is_object()) {
    const auto& e = expected.get_object();
    const auto& a = actual.get_object();
    if (e.size() != a.size()) return false;
    for (const auto& kv : e) {
      const auto* av = a.if_contains(kv.key());
      if (!av || !matches(kv.value(), *av)) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    const auto& e = expected.get_array();
    const auto& a = actual.get_array();
    if (e.size() != a.size()) return false;
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (!matches(e[i], a[i])) return false;
    }
    return true;
  }
  return expected == actual;
}

/// Keeps the result's `key` (a string) in `out`, when it has one.
void find_result_string(const mcp::json::value& v, std::string_view key, std::string& out) {
  if (const auto* o = v.if_object()) {
    if (const auto* r = o->if_contains("result"); r && r->is_object()) {
      if (const auto* c = r->get_object().if_contains(key); c && c->is_string()) {
        out = std::string(c->get_string());
      }
    }
  }
}

/// Replaces every `{{name}}` in `text` with `value`.
void substitute(std::string& text, const std::string& name, const std::string& value) {
  const std::string mark = "{{" + name + "}}";
  for (auto p = text.find(mark); p != std::string::npos; p = text.find(mark, p + value.size())) {
    text.replace(p, mark.size(), value);
  }
}

class transcript : public ::testing::TestWithParam<std::string> {};

TEST_P(transcript, replays) {
  const fs::path file = fs::path(MCP_SOURCE_DIR) / "tests" / "wire" / GetParam();
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<std::string> argv{MCP_DEMO_SERVER};
  int line_no = 0;
  if (!lines.empty() && lines.front() == "@ everything") {
    argv.front() = MCP_EVERYTHING_SERVER;
    lines.erase(lines.begin());
    line_no = 1;  // numbers stay those of the file
  }
  if (!lines.empty() && lines.front().rfind("! ", 0) == 0) {
    std::istringstream args(lines.front().substr(2));
    for (std::string a; args >> a;) argv.push_back(a);
  }
  mcp::test::subprocess server(argv);
  ASSERT_TRUE(server.started());
  std::string cursor;
  std::string state;
  for (const auto& l : lines) {
    ++line_no;
    if (l.rfind("> ", 0) == 0) {
      std::string text = l.substr(2);
      substitute(text, "nextCursor", cursor);
      substitute(text, "requestState", state);
      ASSERT_TRUE(server.write_line(text)) << GetParam() << ":" << line_no;
    } else if (l.rfind("< ", 0) == 0) {
      auto expected = mcp::parse_json(l.substr(2));
      ASSERT_TRUE(expected) << GetParam() << ":" << line_no << ": bad expected JSON";
      auto got = server.read_line();
      ASSERT_TRUE(got) << GetParam() << ":" << line_no
                       << ": no answer; stderr: " << server.drain_stderr();
      auto actual = mcp::parse_json(*got);
      ASSERT_TRUE(actual) << GetParam() << ":" << line_no << ": server wrote non-JSON: " << *got;
      EXPECT_TRUE(matches(*expected, *actual))
          << GetParam() << ":" << line_no << "\n  expected: " << l.substr(2)
          << "\n  actual:   " << *got;
      find_result_string(*actual, "nextCursor", cursor);
      find_result_string(*actual, "requestState", state);
    }
  }
  // Nothing else may have been written, and the server exits cleanly at end of input.
  server.close_stdin();
  auto extra = server.read_line(std::chrono::milliseconds(300));
  EXPECT_FALSE(extra) << GetParam() << ": unexpected extra output: " << extra.value_or("");
  EXPECT_EQ(server.wait(), 0) << server.drain_stderr();
}

INSTANTIATE_TEST_SUITE_P(
    wire, transcript,
    ::testing::Values("2025-11-25/initialize.txt", "2025-11-25/tools_list_paginated.txt",
                      "2025-11-25/tools_call_content.txt", "2025-11-25/tools_call_errors.txt",
                      "2025-11-25/bad_inputs.txt", "2025-03-26/batches_and_fields.txt",
                      "2026-07-28/discover_and_meta.txt", "2026-07-28/tools.txt",
                      "2026-07-28/input_round.txt", "2026-07-28/both_eras.txt"),
    [](const auto& param_info) {
      std::string n = param_info.param;
      for (auto& c : n) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return n;
    });

}  // namespace
