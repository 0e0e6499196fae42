// File: mcp/asio.hpp
//
// Boost.Asio for mcp-cpp: coroutine handlers and completion tokens. Including it lets a tool,
// resource or prompt handler be a coroutine (`boost::asio::awaitable<R>`: it `co_await`s timers,
// sockets or the client without holding a thread), and gives the blocking calls of a request
// context and a client their asynchronous forms with any completion token
// (`boost::asio::use_awaitable`, a callback, `use_future`, ...).
//
// Where coroutine handlers run: on the server's handler executor when it is an Asio one
// (`make_asio_executor(io.get_executor())` in `server_options::handler_executor`, so they share
// the application's io_context and threads), else on one loop thread of the SDK's own.
// Completions: every operation completes with one `mcp::result<T>` (no exceptions), on the
// completion handler's associated executor; pending operations count as outstanding work.
//
// Example:
//
//   boost::asio::io_context io;
//   mcp::server server({.handler_executor = mcp::make_asio_executor(io.get_executor())});
//   server.add_tool({.name = "wait", .description = "Waits, then asks"},
//                   [](const wait_in& in, mcp::tool_context& ctx)
//                       -> boost::asio::awaitable<mcp::result<std::string>> {
//                     boost::asio::steady_timer t(co_await boost::asio::this_coro::executor,
//                                                 std::chrono::milliseconds(in.ms));
//                     co_await t.async_wait(boost::asio::use_awaitable);
//                     auto ok = co_await mcp::async_elicit<confirm>(ctx, "Go on?",
//                                                                  boost::asio::use_awaitable);
//                     if (!ok) co_return ok.error();
//                     co_return ok->accepted() ? "went on" : "stopped";
//                   });
//   auto r = co_await mcp::async_call_tool<forecast_out>(client, "forecast", in,
//                                                        boost::asio::use_awaitable);
#pragma once

#include <mcp/client.hpp>
#include <mcp/context.hpp>
#include <mcp/detail/handler_traits.hpp>
#include <mcp/executor.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>

namespace mcp {

/// An `mcp::executor` running work on an Asio executor (an io_context's, a strand's, a
/// thread_pool's). Coroutine handlers run there too.
class asio_executor final : public executor {
 public:
  /// Posts work to `ex`; its execution context (e.g. the io_context) must outlive this.
  explicit asio_executor(boost::asio::any_io_executor ex) : ex_(std::move(ex)) {}
  /// Posts `work` to the Asio executor. Thread-safe; never throws beyond std::bad_alloc.
  void post(unique_function<void()> work) override {
    boost::asio::post(ex_, [w = std::move(work)]() mutable { w(); });
  }
  /// The Asio executor.
  [[nodiscard]] const boost::asio::any_io_executor& get() const noexcept { return ex_; }

 private:
  boost::asio::any_io_executor ex_;
};

/// An executor for `server_options::handler_executor` (or a client's) that runs handlers on `ex`.
/// Blocking handlers then block `ex`'s threads: give such servers a pool, or keep handlers
/// non-blocking (coroutines, replies).
[[nodiscard]] inline std::shared_ptr<executor> make_asio_executor(boost::asio::any_io_executor ex) {
  return std::make_shared<asio_executor>(std::move(ex));
}

namespace detail {

/// One loop thread for coroutine handlers when the server's executor is not an Asio one.
/// Started on first use; stopped and joined when the process exits.
class coroutine_loop {
 public:
  static boost::asio::any_io_executor executor() {
    static coroutine_loop loop;
    return loop.io_.get_executor();
  }
  coroutine_loop(const coroutine_loop&) = delete;
  coroutine_loop& operator=(const coroutine_loop&) = delete;
  ~coroutine_loop() {
    work_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  coroutine_loop() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  boost::asio::io_context io_{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

/// Where a coroutine handler of `ctx` runs.
inline boost::asio::any_io_executor coroutine_executor(const request_context& ctx) {
  if (auto* a = dynamic_cast<asio_executor*>(&ctx.handler_executor())) return a->get();
  return coroutine_loop::executor();
}

template <class T, class E>
struct awaitable_runner<boost::asio::awaitable<T, E>> {
  static constexpr bool available = true;

  /// Spawns the coroutine `invoke(ctx, req, in, sink)` returns, with copies of the context, the
  /// request and the input that live until it completes, and delivers its value to `sink`.
  template <class Ctx, class Req, class In, class Sink, class Invoke>
  static void run(Ctx& ctx, const Req& req, In&& in, const Sink& sink, Invoke invoke) {
    struct frame {
      Ctx ctx;
      Req req;
      std::decay_t<In> in;
    };
    auto f = std::make_shared<frame>(frame{ctx, req, std::forward<In>(in)});
    const auto ex = coroutine_executor(f->ctx);
    auto coroutine = invoke(f->ctx, f->req, f->in, sink);  // before `f` moves on
    boost::asio::co_spawn(ex, std::move(coroutine),
                          completion<Sink, std::shared_ptr<frame>>{sink, std::move(f)});
  }

 private:
  template <class Sink, class Keep>
  struct completion {
    Sink sink;
    Keep keep;  ///< what the coroutine refers to, until it is done
    void operator()(std::exception_ptr e, T value) {
      if (e) return deliver_exception(*sink, std::move(e));
      deliver(*sink, std::move(value));
    }
  };
};

template <class E>
struct awaitable_runner<boost::asio::awaitable<void, E>> {
  static constexpr bool available = true;
  template <class Ctx, class Req, class In, class Sink, class Invoke>
  static void run(Ctx& ctx, const Req& req, In&& in, const Sink& sink, Invoke invoke) {
    struct frame {
      Ctx ctx;
      Req req;
      std::decay_t<In> in;
    };
    auto f = std::make_shared<frame>(frame{ctx, req, std::forward<In>(in)});
    const auto ex = coroutine_executor(f->ctx);
    auto coroutine = invoke(f->ctx, f->req, f->in, sink);
    boost::asio::co_spawn(ex, std::move(coroutine), [sink, f](std::exception_ptr e) {
      if (e) return deliver_exception(*sink, std::move(e));
      sink->value(none{});
    });
  }
};

/// Starts `start(callback)` (a callback-form SDK call) as an Asio asynchronous operation with
/// signature void(R) completing through `token`.
template <class R, class Token, class Start>
auto async_with(Token&& token, Start start) {
  return boost::asio::async_initiate<Token, void(R)>(
      [start = std::move(start)](auto handler) mutable {
        auto work = boost::asio::make_work_guard(handler);
        start([h = std::move(handler), w = std::move(work)](R r) mutable {
          auto ex = w.get_executor();
          boost::asio::dispatch(
              ex, [h = std::move(h), r = std::move(r)]() mutable { std::move(h)(std::move(r)); });
        });
      },
      token);
}

}  // namespace detail

/// `request_context::request` as an asynchronous operation: completes with
/// `result<json::object>` (the same outcomes).
template <class Token>
auto async_request(const request_context& ctx, std::string_view method, json::object params,
                   Token&& token, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  return detail::async_with<result<json::object>>(
      std::forward<Token>(token),
      [&ctx, method = std::string(method), p = std::move(params), timeout](auto done) mutable {
        ctx.request_async(method, std::move(p), std::move(done), timeout);
      });
}

/// `request_context::elicit<T>` as an asynchronous operation: completes with
/// `result<elicit_result<T>>`.
template <class T, class Token>
auto async_elicit(const request_context& ctx, std::string_view message, Token&& token,
                  std::chrono::milliseconds timeout = std::chrono::minutes(10)) {
  return detail::async_with<result<elicit_result<T>>>(
      std::forward<Token>(token), [&ctx, m = std::string(message), timeout](auto done) mutable {
        ctx.elicit_async<T>(m, std::move(done), ask_options{.key = {}, .timeout = timeout});
      });
}

/// `request_context::sample` as an asynchronous operation: completes with `result<std::string>`.
template <class Token>
auto async_sample(const request_context& ctx, std::string_view prompt, Token&& token,
                  sampling_options opts = {}) {
  return detail::async_with<result<std::string>>(
      std::forward<Token>(token),
      [&ctx, p = std::string(prompt), opts = std::move(opts)](auto done) mutable {
        ctx.sample_async(p, opts, std::move(done));
      });
}

/// `client_session::call_tool<Out>` as an asynchronous operation, holding no thread while the
/// server works: completes with `result<tool_reply<Out>>` (a tool's failure is a reply whose
/// `ok()` is false; protocol and connection errors are the result's error). The result is
/// checked against the tool's outputSchema when a listing of the client knows it.
template <class Out, class In = json::object, class Token>
auto async_call_tool(client_session& client, std::string_view name, const In& in, Token&& token,
                     const request_options& opts = {}) {
  json::value args = to_json(in);
  return detail::async_with<result<tool_reply<Out>>>(
      std::forward<Token>(token),
      [&client, n = std::string(name), args = std::move(args), opts](auto done) mutable {
        client.call_tool_async<Out>(n, std::move(args), std::move(done), opts);
      });
}

}  // namespace mcp
