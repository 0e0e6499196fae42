// File: mcp/detail/reflect_pp.hpp
//
// Preprocessor helpers behind MCP_FIELDS and MCP_FIELD_DOCS (mcp/reflect.hpp). Internal: nothing
// here is part of the public API and names may change at any time.
#pragma once

// MCP_DETAIL_FOR_EACH(m, c, a, b, ...) expands to m(c, a) m(c, b) ... for up to 256 arguments.
// It rescans through MCP_DETAIL_EXPAND (4^4 passes) and defers the recursive call with
// MCP_DETAIL_PARENS so that the macro can refer to itself.
#define MCP_DETAIL_PARENS ()
#define MCP_DETAIL_EXPAND(...) \
  MCP_DETAIL_EXPAND3(MCP_DETAIL_EXPAND3(MCP_DETAIL_EXPAND3(MCP_DETAIL_EXPAND3(__VA_ARGS__))))
#define MCP_DETAIL_EXPAND3(...) \
  MCP_DETAIL_EXPAND2(MCP_DETAIL_EXPAND2(MCP_DETAIL_EXPAND2(MCP_DETAIL_EXPAND2(__VA_ARGS__))))
#define MCP_DETAIL_EXPAND2(...) \
  MCP_DETAIL_EXPAND1(MCP_DETAIL_EXPAND1(MCP_DETAIL_EXPAND1(MCP_DETAIL_EXPAND1(__VA_ARGS__))))
#define MCP_DETAIL_EXPAND1(...) __VA_ARGS__

#define MCP_DETAIL_FOR_EACH(macro, c, ...) \
  __VA_OPT__(MCP_DETAIL_EXPAND(MCP_DETAIL_FOR_EACH_STEP(macro, c, __VA_ARGS__)))
#define MCP_DETAIL_FOR_EACH_STEP(macro, c, first, ...) \
  macro(c, first) __VA_OPT__(MCP_DETAIL_FOR_EACH_AGAIN MCP_DETAIL_PARENS(macro, c, __VA_ARGS__))
#define MCP_DETAIL_FOR_EACH_AGAIN() MCP_DETAIL_FOR_EACH_STEP

// One MCP_FIELDS / MCP_FIELD_DOCS entry, `(member)`, `(member, "doc")` or `(member, {...})`,
// becomes `, field_entry{...}` in the metadata array. The template argument `&C::member` makes
// a misspelt or inaccessible member a compile error. The metadata is the rest of the entry
// (commas inside braces are not protected from the preprocessor, so it is re-joined with
// __VA_ARGS__).
#define MCP_DETAIL_REMOVE_PARENS(...) __VA_ARGS__
#define MCP_DETAIL_FIELD(c, entry) MCP_DETAIL_FIELD_X(c, MCP_DETAIL_REMOVE_PARENS entry)
#define MCP_DETAIL_FIELD_X(...) MCP_DETAIL_FIELD_I(__VA_ARGS__)
#define MCP_DETAIL_FIELD_I(c, member, ...)                                                        \
  , ::mcp::detail::field_entry {                                                                  \
    ::mcp::detail::checked_member_name<&c::member>(#member), ::mcp::detail::to_field(__VA_ARGS__) \
  }

// MCP_DETAIL_MEMBER_NAMES((a, ...), (b), ...) expands to `a, b, ...` (nothing for no entries):
// each entry gives `, name`, and the leading comma is dropped after expansion.
#define MCP_DETAIL_MEMBER_NAMES(...) \
  MCP_DETAIL_DROP_FIRST(_ MCP_DETAIL_FOR_EACH(MCP_DETAIL_MEMBER_NAME, _, __VA_ARGS__))
#define MCP_DETAIL_MEMBER_NAME(c, entry) , MCP_DETAIL_FIRST entry
#define MCP_DETAIL_FIRST(first, ...) first
#define MCP_DETAIL_DROP_FIRST(...) MCP_DETAIL_DROP_FIRST_I(__VA_ARGS__)
#define MCP_DETAIL_DROP_FIRST_I(first, ...) __VA_ARGS__
