// The Host and Origin checks of the HTTP server (DNS rebinding): what request_handler::handle
// asks before anything else. Bound to a loopback address, only loopback names are accepted,
// unless `allowed_hosts` lists the names; an Origin must be listed or name an accepted host.
#include <algorithm>
#include <string>
#include <string_view>

#include "http/handler.hpp"

namespace mcp::http_detail {

namespace {

bool is_loopback_name(std::string_view host) {
  return iequals(host, "localhost") || host == "127.0.0.1" || host == "[::1]";
}

/// "name:port" or "[v6]:port" → the name part.
std::string_view host_part(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    return close == std::string_view::npos ? authority : authority.substr(0, close + 1);
  }
  return authority.substr(0, authority.find(':'));
}

}  // namespace

void request_handler::set_bound(bool loopback) { loopback_ = loopback; }

bool request_handler::name_allowed(std::string_view name) const {
  if (!opts_.allowed_hosts.empty()) {
    return std::any_of(opts_.allowed_hosts.begin(), opts_.allowed_hosts.end(),
                       [&](const std::string& h) { return iequals(h, name); });
  }
  return !loopback_ || is_loopback_name(name);
}

bool request_handler::host_allowed(std::string_view host) const {
  return name_allowed(host_part(host));
}

bool request_handler::origin_allowed(std::string_view origin, bool& listed) const {
  listed = std::any_of(opts_.allowed_origins.begin(), opts_.allowed_origins.end(),
                       [&](const std::string& o) { return iequals(o, origin); });
  if (listed) return true;
  // Not listed: same-host origins are fine when the Host check applies to them too.
  const auto scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return false;
  auto authority = origin.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find('/'));
  const auto name = host_part(authority);
  return (!opts_.allowed_hosts.empty() || loopback_) && name_allowed(name);
}

}  // namespace mcp::http_detail
