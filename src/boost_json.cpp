// Boost.JSON compiled into mcp::json (its "src.hpp" form): the parser and the DOM are built
// with this project's flags, and calls into them are direct, not through the shared library.
#include <boost/json/src.hpp>
