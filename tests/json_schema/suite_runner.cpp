// Runs the official JSON Schema Test Suite against mcp::json_schema.
//
//   json_schema_suite SUITE_DIR DIALECT PART [--verbose]
//     SUITE_DIR  the suite checkout (with tests/ and remotes/); $MCP_JSON_SCHEMA_SUITE, when set,
//                names the checkout instead
//     DIALECT    draft2020-12 or draft7 (the directory, and the default dialect)
//     PART       required (tests/DIALECT/*.json) or optional (tests/DIALECT/optional/**)
//
// Remotes are registered from memory under http://localhost:1234/. Optional format tests run
// with format assertion on. Prints every failure and then "DIALECT PART: N passed, M failed".
// Exit status: 1 when a required test fails, 0 otherwise (optional failures are reported only),
// 2 on bad usage or when $MCP_JSON_SCHEMA_SUITE names no suite, 77 (ctest SKIP_RETURN_CODE) when
// it is unset and SUITE_DIR holds no suite.
#include <mcp/json_schema.hpp>

#include <boost/json/parse.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace js = mcp::json_schema;

namespace {

boost::json::value load(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str());
}

std::vector<fs::path> json_files(const fs::path& dir, bool recursive) {
  std::vector<fs::path> out;
  if (!fs::exists(dir)) return out;
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
  } else {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: json_schema_suite SUITE_DIR draft2020-12|draft7 required|optional "
                 "[--verbose]\n";
    return 2;
  }
  const char* from_env = std::getenv("MCP_JSON_SCHEMA_SUITE");
  const fs::path suite = from_env != nullptr ? fs::path(from_env) : fs::path(argv[1]);
  const std::string dialect_name = argv[2];
  const std::string part = argv[3];
  const bool verbose = argc > 4 && std::string(argv[4]) == "--verbose";
  if (dialect_name != "draft2020-12" && dialect_name != "draft7") {
    std::cerr << "unknown dialect " << dialect_name << "\n";
    return 2;
  }
  if (!fs::exists(suite / "tests" / dialect_name)) {
    if (from_env != nullptr) {
      std::cerr << "MCP_JSON_SCHEMA_SUITE=" << suite.string() << " has no tests/" << dialect_name
                << "\n";
      return 2;
    }
    std::cout << "SKIPPED: no JSON Schema Test Suite at " << suite.string()
              << "; set MCP_JSON_SCHEMA_SUITE to a checkout of "
                 "https://github.com/json-schema-org/JSON-Schema-Test-Suite\n";
    return 77;
  }

  js::schema_registry registry;
  const fs::path remotes = suite / "remotes";
  for (const auto& f : json_files(remotes, true))
    registry.add("http://localhost:1234/" + fs::relative(f, remotes).generic_string(), load(f));

  const bool optional = part == "optional";
  const fs::path dir = suite / "tests" / dialect_name / (optional ? "optional" : "");
  std::size_t passed = 0, failed = 0;
  for (const auto& file : json_files(dir, optional)) {
    const std::string rel = fs::relative(file, suite / "tests").generic_string();
    const bool formats = rel.find("/format/") != std::string::npos;
    const auto cases = load(file);
    for (const auto& c : cases.as_array()) {
      js::compile_options opts;
      opts.default_dialect =
          dialect_name == "draft7" ? js::dialect::draft7 : js::dialect::draft2020_12;
      opts.format_assertion = formats;
      opts.registry = &registry;
      const std::string case_desc(c.at("description").as_string());
      auto v = js::validator::compile(c.at("schema"), opts);
      for (const auto& t : c.at("tests").as_array()) {
        const bool expected = t.at("valid").as_bool();
        const std::string desc(t.at("description").as_string());
        std::string why;
        bool ok = false;
        if (!v) {
          why = "compile error: " + v.error().message;
        } else {
          const bool got = v->is_valid(t.at("data"));
          const auto first = v->validate(t.at("data"), js::mode::first_error);
          const auto all = v->validate(t.at("data"), js::mode::all_errors);
          if (got != expected) {
            why = std::string("got ") + (got ? "valid" : "invalid");
            if (!first.empty()) why += " (" + first.front().message + ")";
          } else if (first.empty() != got || all.empty() != got || first.size() > 1) {
            why = "is_valid and validate() disagree";
          } else {
            ok = true;
          }
        }
        if (ok) {
          ++passed;
        } else {
          ++failed;
          std::cout << "FAIL " << rel << " | " << case_desc << " | " << desc << " | expected "
                    << (expected ? "valid" : "invalid") << ", " << why << "\n";
        }
        if (verbose && ok)
          std::cout << "ok   " << rel << " | " << case_desc << " | " << desc << "\n";
      }
    }
  }
  std::cout << dialect_name << " " << part << ": " << passed << " passed, " << failed
            << " failed\n";
  return optional ? 0 : (failed == 0 ? 0 : 1);
}
