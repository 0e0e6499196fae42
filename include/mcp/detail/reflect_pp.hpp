// File: mcp/detail/reflect_pp.hpp
//
// Preprocessor helpers behind MCP_FIELD_DOCS (mcp/reflect.hpp). Internal: nothing here is part
// of the public API and names may change at any time.
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

// One `(member, "doc")` pair of MCP_FIELD_DOCS becomes `, initializer` in the docs array. The
// template argument `&C::member` makes a misspelt or inaccessible member a compile error.
#define MCP_DETAIL_REMOVE_PARENS(...) __VA_ARGS__
#define MCP_DETAIL_FIELD_DOC(c, pair) MCP_DETAIL_FIELD_DOC_X(c, MCP_DETAIL_REMOVE_PARENS pair)
#define MCP_DETAIL_FIELD_DOC_X(...) MCP_DETAIL_FIELD_DOC_I(__VA_ARGS__)
#define MCP_DETAIL_FIELD_DOC_I(c, member, doc) \
  , ::mcp::detail::field_doc { ::mcp::detail::checked_member_name<&c::member>(#member), doc }
