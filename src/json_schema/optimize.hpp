// Post-compile optimization of a program (see optimize.cpp).
#pragma once

#include "json_schema/program.hpp"

namespace mcp::json_schema::detail {

/// Bypasses `$ref`-only nodes and fills node::accepts. Keeps the program's meaning.
void optimize(program& p);

}  // namespace mcp::json_schema::detail
