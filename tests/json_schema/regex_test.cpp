// src/json_schema/regex.hpp: ECMA-262 patterns on two matchers (the fast one and the Boost.Regex
// translation) that must agree with each other and with ECMA-262; nesting bounded.
#include "json_schema/regex.hpp"

#include <mcp/json_schema.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace {

using mcp::json_schema::detail::ecma_regex;
using mcp::json_schema::detail::match_result;

std::shared_ptr<const ecma_regex> compile(const std::string& p) {
  std::string error;
  auto re = ecma_regex::compile(p, error);
  EXPECT_TRUE(re) << p << ": " << error;
  return re;
}

bool matches(const std::string& p, const std::string& subject) {
  auto re = compile(p);
  return re && re->search(subject) == match_result::match;
}

TEST(regex, deeply_nested_groups_are_refused_not_a_stack_overflow) {
  for (std::size_t n : {129U, 20000U, 50000U}) {
    const std::string p = std::string(n, '(') + "a" + std::string(n, ')');
    std::string error;
    EXPECT_FALSE(ecma_regex::compile(p, error)) << n;
    EXPECT_NE(error.find("128"), std::string::npos) << error;
  }
  EXPECT_TRUE(matches(std::string(128, '(') + "a" + std::string(128, ')'), "xa"));
  // The same through the validator: a schema error, not a crash.
  const std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  auto v = mcp::json_schema::validator::compile(mcp::json::object{{"pattern", deep}});
  EXPECT_FALSE(v);
  // Unbalanced and bracketed parentheses do not count as nesting.
  EXPECT_TRUE(matches("[" + std::string(500, '(') + "]", "("));
  std::string escaped;
  for (int i = 0; i < 500; ++i) escaped += "\\(";
  EXPECT_TRUE(matches(escaped, std::string(500, '(')));
}

TEST(regex, identity_escapes_are_the_character_on_both_paths) {
  // Boost reads \` \' \< \> as buffer and word boundaries; ECMA-262 reads the character.
  EXPECT_FALSE(matches("^\\`", ""));
  EXPECT_TRUE(matches("^\\`", "`x"));
  EXPECT_FALSE(matches("^(a|\\`)", ""));
  EXPECT_TRUE(matches("^(a|\\`)", "`"));
  EXPECT_TRUE(matches("^\\<(b|i)\\>$", "<b>"));
  EXPECT_FALSE(matches("^\\<(b|i)\\>$", "b"));
  EXPECT_TRUE(matches("^a\\'$", "a'"));
  EXPECT_FALSE(matches("^a\\'$", "a"));
  EXPECT_TRUE(matches("^\\/\\-\\#\\ \\%$", "/-# %"));
  EXPECT_TRUE(matches("^[\\`\\<]+$", "<`<"));
  EXPECT_TRUE(matches("^\\y\\i\\j$", "yij"));  // identity escapes of letters without a meaning
}

/// Every pattern x subject: the fast matcher (when it takes the pattern) and the translation
/// agree, and P agrees with (?:P).
TEST(regex, the_two_matchers_agree) {
  const std::vector<std::string> patterns = {"^[a-z]+$",
                                             "^\\d{3}-\\d{4}$",
                                             "^[A-Za-z0-9_]{1,16}$",
                                             "^(ab)?c$",
                                             "a\\.b",
                                             "^\\w+@\\w+$",
                                             "^\\`",
                                             "\\<",
                                             "^x\\'",
                                             "[\\-\\]]",
                                             "^(a|b)c?$",
                                             "^[^0-9]$",
                                             "^.{2,3}$",
                                             "\\$\\^",
                                             "^a{0}$",
                                             "^\\(\\)$",
                                             "^[\\\\]$",
                                             "^\\s*$",
                                             "^\\S+$",
                                             "\\bword\\b",
                                             "^[\\w.-]+$",
                                             "^\\d*\\.\\d+$",
                                             "^(?:ab)+$",
                                             "^a+?b$",
                                             "^\\D\\W$",
                                             "^-?[0-9]+(\\.[0-9]+)?$",
                                             "^[a-f0-9]{8}(-[a-f0-9]{4}){3}-[a-f0-9]{12}$"};
  const std::vector<std::string> subjects = {
      "",    "a",  "abc", "ABC", "123-4567", "ab",          "c",
      "abc", "`",  "<b>", "x'",  "a.b",      "-",           "]",
      "a@b", "()", "\\",  "  ",  "x y",      "a word here", "-1.5",
      "12",  ".5", "aab", "ab1", "é",        "日本",        "0123abcd-0123-4567-89ab-0123456789ab"};
  int fast = 0;
  for (const auto& p : patterns) {
    auto re = compile(p);
    auto wrapped = compile("(?:" + p + ")");
    ASSERT_TRUE(re && wrapped) << p;
    if (re->has_fast_path()) ++fast;
    for (const auto& s : subjects) {
      const auto a = re->search(s);
      EXPECT_EQ(a, re->search_translated(s)) << "pattern " << p << " subject \"" << s << "\"";
      EXPECT_EQ(a, wrapped->search(s)) << "pattern " << p << " vs (?:P), subject \"" << s << "\"";
    }
  }
  EXPECT_GE(fast, 10);  // the comparison covers the fast matcher
}

TEST(ecma_regex, a_search_has_a_time_budget_linear_in_the_subject) {
  // 240 optional groups under a star: Boost.Regex's own bound (states^2 x length, about 3e9
  // here) let this run for 16 s; the budget ends it after a few million character reads.
  std::string p = "^(";
  for (int i = 0; i < 80; ++i) p += std::string(i ? "|" : "") + "(a?)(a?)(a?)";
  p += ")*$";
  auto re = compile(p);
  ASSERT_TRUE(re);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(re->search(std::string(3000, 'a') + "b"), match_result::too_complex);
  // A bound on a hang, not a speed goal: 100 times what it takes in a debug build.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ecma_regex, the_budget_leaves_linear_patterns_on_long_subjects_alone) {
  std::string alternatives;
  for (char c = 'a'; c <= 'z'; ++c) alternatives += std::string(c == 'a' ? "" : "|") + c;
  auto letters = compile("^(?:" + alternatives + ")*$");  // about 53 reads per character
  ASSERT_TRUE(letters);
  EXPECT_EQ(letters->search(std::string(10000, 'z')), match_result::match);
  EXPECT_EQ(letters->search(std::string(10000, 'z') + "0"), match_result::no_match);
  auto look = compile("^(?=(a|b)*c)(a|b)*$");
  ASSERT_TRUE(look);
  std::string ab;
  for (int i = 0; i < 20000; ++i) ab += "ab";
  EXPECT_EQ(look->search(ab), match_result::no_match);
  EXPECT_EQ(look->search(ab + "c"), match_result::no_match);
  auto email = compile("^[^@]+@[^@]+\\.[a-z]{2,}$");
  ASSERT_TRUE(email);
  EXPECT_EQ(email->search(std::string(50000, 'x') + "@example.com"), match_result::match);
}

}  // namespace
