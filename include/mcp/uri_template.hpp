// File: mcp/uri_template.hpp
//
// URI templates (RFC 6570) as used by MCP resource templates (`ResourceTemplate.uriTemplate`).
// Defines `uri_template`: parsing, expansion (levels 1-3, plus the prefix `:N` and explode `*`
// modifiers applied to string values) and the reverse, matching a concrete URI against the
// template to recover the variables. Values are strings (lists and maps are not supported).
//
// Example:
//
//   auto t = mcp::uri_template::parse("file:///{+path}{?rev}");
//   t->expand({{"path", "src/a b.cpp"}, {"rev", "3"}});  // file:///src/a%20b.cpp?rev=3
//   auto vars = t->match("file:///src/main.cpp");        // {{"path", "src/main.cpp"}}
#pragma once

#include <mcp/error.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp {

/// Variable name to value. Matching percent-decodes values; expansion percent-encodes them.
using uri_variables = std::map<std::string, std::string, std::less<>>;

/// A parsed RFC 6570 URI template. An immutable value; safe to share between threads.
class uri_template {
 public:
  /// Most literal and expression parts a template may have (matching recurses once per part).
  static constexpr std::size_t max_parts = 256;

  /// Parses `text`. Errors: `errc::invalid_params` for an unclosed or empty expression, an
  /// unknown operator (`=`, `,`, `!`, `@`, `|` are reserved), an invalid variable name or more
  /// than `max_parts` parts.
  [[nodiscard]] static result<uri_template> parse(std::string_view text);

  /// Expands the template; undefined variables expand to nothing (RFC 6570 section 3.2.1).
  [[nodiscard]] std::string expand(const uri_variables& vars) const;

  /// The variables of `uri` if it is an expansion of this template, else nothing. Simple
  /// (`{x}`) and path-segment (`{/x}`) values never contain `/`; query operators (`{?x,y}`,
  /// `{&x}`) accept their parameters in any order and leave missing ones out.
  [[nodiscard]] std::optional<uri_variables> match(std::string_view uri) const;

  /// The variable names, in order of appearance.
  [[nodiscard]] std::vector<std::string> variable_names() const;
  /// The template text as given.
  [[nodiscard]] const std::string& text() const noexcept { return text_; }

  /// One variable of an expression: name, prefix length (`:N`, 0 = none), explode (`*`).
  struct varspec {
    std::string name;        ///< the variable's name
    std::size_t prefix = 0;  ///< `:N`: at most N characters of the value; 0: the whole value
    bool explode = false;    ///< `*`: a list's items expanded one by one
  };
  /// A literal run (`op` == 0, text in `literal`) or an expression (`op` is ' ' for simple,
  /// or one of + # . / ; ? &).
  struct part {
    char op = 0;                ///< 0: a literal run; else the expression's operator
    std::string literal;        ///< a literal run's text
    std::vector<varspec> vars;  ///< an expression's variables, in order
  };

 private:
  std::string text_;
  std::vector<part> parts_;
};

}  // namespace mcp
