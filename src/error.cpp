#include <mcp/error.hpp>

namespace mcp {

void throw_exception_from_error(const error& e, const boost::source_location& /*loc*/) {
  throw error_exception(e);
}

}  // namespace mcp
