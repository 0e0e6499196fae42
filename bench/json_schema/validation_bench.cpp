// The MCP tool-argument validation benchmark, C++ side (see
// ../shared/bench/validation/README.md): the same schema, the same NDJSON instances and the same
// timing method as bench-ajv.mjs, so the two rates compare.
//
//   json_schema_validation_bench --instances FILE [--labels FILE] [--schema FILE]
//                                [--rounds N] [--formats full|off] [--all-errors]
//
// Output (first two lines stable, like ajv's):
//   cpp: N validations/s (valid=V invalid=I)
//   cpp-parse+validate: N validations/s (valid=V invalid=I)
//   # details: compile time, min/max, label check
#include <mcp/json.hpp>
#include <mcp/json_schema.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace js = mcp::json_schema;
using clock_type = std::chrono::steady_clock;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  std::string instances_path = "instances.ndjson";
  std::string labels_path;
  std::string schema_path = MCP_SOURCE_DIR "/../shared/bench/validation/schema.json";
  int rounds = 5;
  std::string formats = "full";
  bool all_errors = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("missing value after " + a);
      return argv[++i];
    };
    if (a == "--instances")
      instances_path = next();
    else if (a == "--labels")
      labels_path = next();
    else if (a == "--schema")
      schema_path = next();
    else if (a == "--rounds")
      rounds = std::stoi(next());
    else if (a == "--formats")
      formats = next();
    else if (a == "--all-errors")
      all_errors = true;
    else
      throw std::runtime_error("unknown argument " + a);
  }
  if (formats != "full" && formats != "off")
    throw std::runtime_error("--formats must be full or off");
  if (labels_path.empty()) {
    const auto dot = instances_path.rfind(".ndjson");
    if (dot != std::string::npos) labels_path = instances_path.substr(0, dot) + ".labels";
  }

  const auto schema = mcp::parse_json(read_file(schema_path));
  if (!schema) throw std::runtime_error("schema: " + schema.error().message);
  js::compile_options opts;
  opts.format_assertion = formats == "full";
  auto t0 = clock_type::now();
  auto compiled = js::validator::compile(*schema, opts);
  const double first_compile_us = seconds_since(t0) * 1e6;
  if (!compiled) throw std::runtime_error("compile: " + compiled.error().message);
  const js::validator v = *compiled;
  constexpr int compile_reps = 200;
  t0 = clock_type::now();
  for (int i = 0; i < compile_reps; ++i) (void)js::validator::compile(*schema, opts);
  const double compile_us = seconds_since(t0) * 1e6 / compile_reps;

  const auto lines = read_lines(instances_path);
  std::vector<mcp::json::value> instances;
  instances.reserve(lines.size());
  for (const auto& l : lines) {
    auto p = mcp::parse_json(l);
    if (!p) throw std::runtime_error("instance: " + p.error().message);
    instances.push_back(std::move(*p));
  }
  const std::size_t n = instances.size();

  auto check = [&](const mcp::json::value& inst) {
    return all_errors ? v.validate(inst, js::mode::all_errors).empty() : v.is_valid(inst);
  };

  // Label cross-check, which is also the warm-up pass.
  std::string label_note = "labels: none";
  if (!labels_path.empty() && std::ifstream(labels_path)) {
    const auto labels = read_lines(labels_path);
    std::size_t mismatches = 0;
    std::map<std::string, std::size_t> kinds;
    for (std::size_t i = 0; i < n && i < labels.size(); ++i) {
      const std::string& lab = labels[i];
      const bool expect =
          lab == "valid" || (formats == "off" && lab.rfind("invalid:format-", 0) == 0);
      if (check(instances[i]) != expect) {
        ++mismatches;
        ++kinds[lab];
      }
    }
    label_note = "labels: mismatches=" + std::to_string(mismatches);
    for (const auto& [k, c] : kinds) label_note += " " + k + "=" + std::to_string(c);
  }

  auto pass = [&] {
    std::size_t valid = 0;
    for (const auto& inst : instances) valid += check(inst) ? 1U : 0U;
    return valid;
  };
  const std::size_t valid_count = pass();  // warm-up
  std::vector<double> rates;
  for (int r = 0; r < rounds; ++r) {
    t0 = clock_type::now();
    const std::size_t valid = pass();
    const double s = seconds_since(t0);
    if (valid != valid_count) throw std::runtime_error("non-deterministic result");
    rates.push_back(static_cast<double>(n) / s);
  }

  auto pass_parse = [&] {
    std::size_t valid = 0;
    for (const auto& l : lines) {
      auto p = mcp::parse_json(l);
      valid += p && check(*p) ? 1U : 0U;
    }
    return valid;
  };
  (void)pass_parse();  // warm-up
  std::vector<double> rates_parse;
  for (int r = 0; r < std::max(1, std::min(rounds, 3)); ++r) {
    t0 = clock_type::now();
    (void)pass_parse();
    rates_parse.push_back(static_cast<double>(n) / seconds_since(t0));
  }

  const std::size_t invalid_count = n - valid_count;
  std::printf("cpp: %.0f validations/s (valid=%zu invalid=%zu)\n", median(rates), valid_count,
              invalid_count);
  std::printf("cpp-parse+validate: %.0f validations/s (valid=%zu invalid=%zu)\n",
              median(rates_parse), valid_count, invalid_count);
  std::printf(
      "# mcp-cpp json_schema formats=%s allErrors=%s instances=%zu rounds=%d min=%.0f max=%.0f "
      "ns/validation=%.1f compile_us=%.1f first_compile_us=%.1f %s\n",
      formats.c_str(), all_errors ? "true" : "false", n, rounds,
      *std::min_element(rates.begin(), rates.end()), *std::max_element(rates.begin(), rates.end()),
      1e9 / median(rates), compile_us, first_compile_us, label_note.c_str());
  return 0;
} catch (const std::exception& e) {
  std::cerr << "error: " << e.what() << "\n";
  return 2;
}
