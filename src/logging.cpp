#include "logging.hpp"

#include "server_core.hpp"
#include "server_session.hpp"

namespace mcp::detail {

logging_feature::logging_feature(server_core& core) {
  core.router.add(
      "logging/setLevel", "logging",
      [](server_session_impl& s, jsonrpc::request&& req) {
        const auto* l = req.params.if_contains("level");
        auto level = (l && l->is_string()) ? parse_log_level(l->get_string()) : std::nullopt;
        if (!level) {
          return s.reply_error(req.id,
                               error{errc::invalid_params,
                                     "Invalid log level: expected one of debug, info, notice, "
                                     "warning, error, critical, alert, emergency"});
        }
        s.set_log_level(*level);
        s.save_shared();
        s.reply(req.id, json::object{});
      },
      served_in::legacy);  // 2026-07-28: a level per request, in `_meta`
}

std::optional<std::pair<std::string, json::object>> logging_feature::capability(
    const server_session_impl&) const {
  return std::pair{std::string("logging"), json::object{}};
}

}  // namespace mcp::detail
