// ECMA-262 patterns: the input is a pattern and a subject separated by a NUL byte. Compiling
// never crashes; when the fast matcher takes the pattern it must agree with the Boost.Regex
// translation, and P must agree with (?:P).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "json_schema/regex.hpp"

using mcp::json_schema::detail::ecma_regex;
using mcp::json_schema::detail::match_result;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const auto nul = all.find('\0');
  const std::string pattern(all.substr(0, nul));
  const std::string_view subject =
      nul == std::string_view::npos ? std::string_view("subject 123") : all.substr(nul + 1);
  std::string error;
  auto re = ecma_regex::compile(pattern, error);
  if (!re) return 0;
  const match_result r = re->search(subject);
  if (re->has_fast_path()) {
    const match_result slow = re->search_translated(subject);
    if (slow != match_result::too_complex && slow != r) {
      std::fprintf(stderr, "the matchers disagree on pattern [%s]\n", pattern.c_str());
      std::abort();
    }
  }
  if (auto wrapped = ecma_regex::compile("(?:" + pattern + ")", error)) {
    const match_result w = wrapped->search(subject);
    if (w != match_result::too_complex && r != match_result::too_complex && w != r) {
      std::fprintf(stderr, "P and (?:P) disagree on pattern [%s]\n", pattern.c_str());
      std::abort();
    }
  }
  return 0;
}
