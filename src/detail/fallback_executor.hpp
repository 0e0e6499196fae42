// Internal: an executor for work whose own executor is gone (a request context kept past its
// session): one thread, growing while busy, never destroyed before the process ends.
#pragma once

#include <mcp/executor.hpp>

namespace mcp::detail {

[[nodiscard]] executor& fallback_executor();

}  // namespace mcp::detail
