// What the typed handler adapters (mcp/typed_tool.hpp, mcp/detail/handler_traits.hpp) need that
// does not depend on a handler's own types, compiled once here instead of in every translation
// unit that adds a tool: exception mapping, the arguments error, and the sinks of the common
// outputs.
#include <mcp/typed_tool.hpp>

#include <exception>
#include <string>
#include <utility>

namespace mcp::detail {

error exception_error(std::exception_ptr e, bool& protocol) {
  protocol = false;
  try {
    std::rethrow_exception(std::move(e));
  } catch (const protocol_error& p) {
    protocol = true;
    return error(p.get());
  } catch (const std::exception& x) {
    return error{errc::internal_error, x.what()};
  } catch (...) {
    return error{errc::internal_error, "the handler failed with an unknown exception"};
  }
}

error tool_traits::invalid_arguments(const prepared& p, const error& why) {
  return error{errc::invalid_params,
               "Invalid arguments for tool \"" + p.name + "\": " + why.message};
}

template class tool_traits::sink_type<std::string>;
template class tool_traits::sink_type<none>;
template class tool_traits::sink_type<call_tool_result>;
template class tool_traits::sink_type<json::object>;

}  // namespace mcp::detail
