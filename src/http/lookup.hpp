// Internal: a host name's addresses, found within a deadline. The system resolver (getaddrinfo)
// has timeouts of its own (5 s per server and attempt by default) that no deadline of ours can
// shorten, and Asio's asynchronous lookup cannot be abandoned either (its thread is joined when
// the io_context goes). So a name is looked up on a thread of its own, waited for until the
// deadline and then left to end by itself, its answer dropped. An address is used as it is.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace mcp::http_detail {

/// The endpoints of `host` (a name, or an address without brackets) and `port`, or the error:
/// `timed_out` when `until` passes first, else the resolver's. Thread-safe; never throws (a
/// thread that cannot be started is `resource_unavailable_try_again`).
[[nodiscard]] boost::system::error_code lookup(const std::string& host, std::uint16_t port,
                                               std::chrono::steady_clock::time_point until,
                                               std::vector<boost::asio::ip::tcp::endpoint>& out);

}  // namespace mcp::http_detail
