#include "http/lookup.hpp"

#include <boost/asio/io_context.hpp>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace mcp::http_detail {

namespace net = boost::asio;
using tcp = net::ip::tcp;

boost::system::error_code lookup(const std::string& host, std::uint16_t port,
                                 std::chrono::steady_clock::time_point until,
                                 std::vector<tcp::endpoint>& out) {
  out.clear();
  boost::system::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (!ec) {
    out.emplace_back(address, port);
    return {};
  }
  struct state {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    boost::system::error_code ec;
    std::vector<tcp::endpoint> found;
  };
  auto s = std::make_shared<state>();
  try {
    std::thread([s, host, port] {
      net::io_context ioc;
      tcp::resolver resolver(ioc);
      boost::system::error_code failed;
      std::vector<tcp::endpoint> found;
      const auto answers =
          resolver.resolve(host, std::to_string(port), tcp::resolver::numeric_service, failed);
      for (const auto& entry : answers) found.push_back(entry);
      const std::lock_guard lock(s->mu);
      s->ec = failed;
      s->found = std::move(found);
      s->done = true;
      s->cv.notify_all();
    }).detach();
  } catch (const std::system_error&) {
    return boost::system::errc::make_error_code(
        boost::system::errc::resource_unavailable_try_again);
  }
  std::unique_lock lock(s->mu);
  if (!s->cv.wait_until(lock, until, [&] { return s->done; })) return net::error::timed_out;
  if (s->ec) return s->ec;
  out = std::move(s->found);
  return {};
}

}  // namespace mcp::http_detail
