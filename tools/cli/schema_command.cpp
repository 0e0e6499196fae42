// `mcp-cpp schema validate`: compiles a JSON Schema and validates instance files against it.
#include <mcp/json.hpp>
#include <mcp/json_schema.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"

namespace mcp::cli {

namespace {

struct schema_validate_args {
  std::string schema_file;
  std::vector<std::string> instance_files;
  std::vector<std::string> remotes;  // URI=FILE
  std::string dialect = "2020-12";
  bool format_assertion = false;
  bool all_errors = false;
  bool quiet = false;
};

result<json::value> read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error{errc::invalid_params, path + ": cannot open the file"};
  std::stringstream ss;
  ss << in.rdbuf();
  auto v = parse_json(ss.str(), json_limits{std::size_t{256} << 20U, 1024});
  if (!v) return error{v.error().code, path + ": " + v.error().message};
  return v;
}

int run_schema_validate(const schema_validate_args& a) {
  json_schema::schema_registry registry;
  for (const auto& r : a.remotes) {
    const auto eq = r.find('=');
    if (eq == std::string::npos) {
      std::cerr << "error: --remote expects URI=FILE, got " << r << "\n";
      return exit_usage;
    }
    auto doc = read_json(r.substr(eq + 1));
    if (!doc) {
      std::cerr << "error: " << doc.error().message << "\n";
      return exit_usage;
    }
    registry.add(r.substr(0, eq), std::move(*doc));
  }
  auto schema = read_json(a.schema_file);
  if (!schema) {
    std::cerr << "error: " << schema.error().message << "\n";
    return exit_usage;
  }
  json_schema::compile_options opts;
  opts.default_dialect =
      a.dialect == "draft7" ? json_schema::dialect::draft7 : json_schema::dialect::draft2020_12;
  opts.format_assertion = a.format_assertion;
  opts.registry = &registry;
  auto v = json_schema::validator::compile(*schema, opts);
  if (!v) {
    std::cerr << "error: " << a.schema_file << ": " << v.error().message << "\n";
    return exit_usage;
  }
  int status = exit_ok;
  for (const auto& file : a.instance_files) {
    auto inst = read_json(file);
    if (!inst) {
      std::cerr << "error: " << inst.error().message << "\n";
      status = exit_usage;
      continue;
    }
    const auto errors = v->validate(
        *inst, a.all_errors ? json_schema::mode::all_errors : json_schema::mode::first_error);
    if (errors.empty()) {
      if (!a.quiet) std::cout << file << ": valid\n";
      continue;
    }
    if (status == exit_ok) status = exit_failed;
    std::cout << file << ": invalid\n";
    for (const auto& e : errors)
      std::cout << "  " << e.message << "  [schema "
                << (e.keyword_location.empty() ? "#" : e.keyword_location) << "]\n";
  }
  return status;
}

}  // namespace

void add_schema_command(CLI::App& app, int& exit_code) {
  auto* schema = app.add_subcommand("schema", "JSON Schema tools (2020-12 and draft-07)");
  schema->require_subcommand(1);
  auto args = std::make_shared<schema_validate_args>();
  auto* validate = schema->add_subcommand(
      "validate",
      "Validate JSON instance files against a schema. Exit status: 0 all valid, 1 some "
      "instance invalid, 2 usage error, unreadable file or invalid schema");
  validate->add_option("SCHEMA_FILE", args->schema_file, "the JSON Schema")->required();
  validate->add_option("INSTANCE_FILE", args->instance_files, "JSON instances to validate")
      ->required();
  validate->add_option("--dialect", args->dialect, "dialect when the schema has no $schema")
      ->check(CLI::IsMember({"2020-12", "draft7"}))
      ->capture_default_str();
  validate->add_flag("--format-assertion", args->format_assertion,
                     "treat `format` as an assertion (default: annotation only)");
  validate->add_flag("--all-errors", args->all_errors, "report every error, not just the first");
  validate->add_option("--remote", args->remotes,
                       "URI=FILE: make FILE available to $ref under URI (repeatable)");
  validate->add_flag("-q,--quiet", args->quiet, "print only invalid instances");
  validate->callback([args, &exit_code] { exit_code = run_schema_validate(*args); });
}

}  // namespace mcp::cli
