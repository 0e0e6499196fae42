// The schema compiler's internal interface, shared by compile.cpp (documents, URIs, $ref
// resolution) and keywords.cpp (one keyword value at a time into a node).
#pragma once

#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "json_schema/program.hpp"

namespace mcp::json_schema::detail {

/// Vocabularies enabled for a schema resource (2020-12 `$vocabulary`).
enum vocab_bit : std::uint16_t {
  v_core = 1U << 0U,
  v_applicator = 1U << 1U,
  v_unevaluated = 1U << 2U,
  v_validation = 1U << 3U,
  v_meta_data = 1U << 4U,
  v_format_annotation = 1U << 5U,
  v_format_assertion = 1U << 6U,
  v_content = 1U << 7U,
};

struct dialect_info {
  dialect d = dialect::draft2020_12;
  std::uint16_t vocabs = 0;
  /// Draft 2019-09 (met through cross-draft $refs): 2020-12 rules except that `items` may be
  /// an array (with `additionalItems`) and `prefixItems` does not exist.
  bool draft2019 = false;
};

/// What the index pass learned about one subschema.
struct schema_info {
  std::string location;  ///< JSON Pointer (prefixed "uri#" outside the root document)
  std::string base;      ///< absolute base URI in effect inside the subschema
  std::uint32_t resource = 0;
  dialect_info dial;
};

/// Thrown inside the compiler only; `build` turns it into an `mcp::error`.
class compile_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class compiler {
 public:
  explicit compiler(const compile_options& opts);
  result<program> build(const json::value& root);

 private:
  [[noreturn]] void fail(const std::string& location, const std::string& message) const;
  std::string resolve(const std::string& base, std::string_view ref,
                      const std::string& location) const;
  dialect_info dialect_of(const json::value& schema_uri, const std::string& location, int depth);
  std::uint32_t add_resource(const std::string& uri);
  void index(const json::value& v, const std::string& location, std::string base, std::uint32_t res,
             dialect_info d, bool doc_root, std::size_t depth);
  const json::value* find_resource(const std::string& uri, const std::string& location);
  const json::value* resolve_ref(const schema_info& from, const json::value& ref,
                                 const std::string& location, std::string* fragment);
  node_id node_for(const json::value& v, const std::string& location);

  // keywords.cpp
  void compile_node(node_id id, const json::value& v);
  void compile_keywords(node& n, const json::object& o, const schema_info& si);
  node_id sub(const json::value& v, const std::string& location);
  std::vector<node_id> sub_array(const json::value& v, const std::string& location);
  std::size_t non_negative(const json::value& v, const std::string& location) const;
  number_bound number(const json::value& v, const std::string& location) const;
  std::shared_ptr<const ecma_regex> regex(std::string_view pattern,
                                          const std::string& location) const;
  std::vector<std::string> string_array(const json::value& v, const std::string& location) const;

  const compile_options& opts_;
  program prog_;
  std::unordered_map<const json::value*, schema_info> info_;
  std::unordered_map<std::string, const json::value*> uris_;  ///< resources and "uri#anchor"
  std::vector<std::vector<std::pair<std::string, const json::value*>>> resource_anchors_;
  std::set<std::string, std::less<>> dynamic_names_;
  std::unordered_map<const json::value*, node_id> memo_;
  std::vector<const json::value*> pending_;  ///< node id -> its schema value
};

}  // namespace mcp::json_schema::detail
