// One Redis connection: hiredis connects; commands are encoded, written and read here, every wait
// bounded by the operation's deadline (see connection.hpp).
#include "redis/connection.hpp"

#include <cerrno>
#include <cstring>

#include <hiredis/hiredis.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

namespace mcp::redis_detail {

namespace {

constexpr std::size_t read_chunk = 64 * 1024;

timeval to_timeval(std::chrono::milliseconds ms) {
  if (ms.count() < 1) ms = std::chrono::milliseconds(1);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

error closed(std::string what) { return error{errc::connection_closed, "redis: " + what}; }

}  // namespace

void encode_command(std::string& out, std::span<const std::string_view> args) {
  out += '*';
  out += std::to_string(args.size());
  out += "\r\n";
  for (const std::string_view a : args) {
    out += '$';
    out += std::to_string(a.size());
    out += "\r\n";
    out.append(a.data(), a.size());
    out += "\r\n";
  }
}

error error_reply(const redis_reply& r) {
  return error{errc::internal_error, "redis: " + r.str.substr(0, 512)};
}

result<std::unique_ptr<connection>> connection::open(const redis_endpoint& ep,
                                                     const redis_options& opts) {
  const auto deadline = steady::now() + opts.connect_timeout;
  const timeval tv = to_timeval(opts.connect_timeout);
  redisContext* ctx = ep.unix_path.empty() ? redisConnectWithTimeout(ep.host.c_str(), ep.port, tv)
                                           : redisConnectUnixWithTimeout(ep.unix_path.c_str(), tv);
  if (ctx == nullptr) return closed("cannot allocate a connection");
  if (ctx->err != 0) {
    std::string why = ctx->errstr;
    const bool timed_out = ctx->err == REDIS_ERR_IO && (why.find("timed out") != std::string::npos);
    redisFree(ctx);
    const std::string where =
        ep.unix_path.empty() ? ep.host + ":" + std::to_string(ep.port) : ep.unix_path;
    if (timed_out)
      return error{errc::request_timeout, "redis: connecting to " + where + " timed out"};
    return closed("cannot connect to " + where + ": " + why);
  }
  std::unique_ptr<connection> c(new connection(ctx, opts));
  if (!ep.password.empty()) {
    std::vector<std::string_view> auth{"AUTH"};
    if (!ep.user.empty()) auth.emplace_back(ep.user);
    auth.emplace_back(ep.password);
    auto r = c->exchange_one(auth, deadline);
    if (!r) return r.error();
    if (r->type == redis_reply::kind::error) {
      return closed("AUTH was refused: " + r->str.substr(0, 200));
    }
  }
  if (ep.db != 0) {
    const std::string db = std::to_string(ep.db);
    const std::string_view select[] = {"SELECT", db};
    auto r = c->exchange_one(select, deadline);
    if (!r) return r.error();
    if (r->type == redis_reply::kind::error) {
      return closed("SELECT " + db + " was refused: " + r->str.substr(0, 200));
    }
  }
  return c;
}

connection::connection(redisContext* ctx, const redis_options& opts)
    : ctx_(ctx), parser_({opts.max_reply_bytes, opts.max_reply_elements}) {}

connection::~connection() { redisFree(ctx_); }

int connection::fd() const noexcept { return ctx_->fd; }

error connection::fail(error e) {
  broken_ = true;
  return e;
}

result<void> connection::wait(short events, steady::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - steady::now()).count();
    if (left <= 0) return fail(error{errc::request_timeout, "redis: no answer within the timeout"});
    pollfd p{ctx_->fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return {};
    if (n < 0 && errno != EINTR) return fail(closed(std::string("poll: ") + std::strerror(errno)));
  }
}

result<void> connection::write_all(std::string_view bytes, steady::time_point deadline) {
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n =
        ::send(ctx_->fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (auto w = wait(POLLOUT, deadline); !w) return w;
      continue;
    }
    return fail(closed(std::string("the connection broke: ") + std::strerror(errno)));
  }
  return {};
}

result<bool> connection::read_available() {
  if (broken_) return closed("the connection failed before");
  in_.resize(read_chunk);
  for (;;) {
    const ssize_t n = ::recv(ctx_->fd, in_.data(), in_.size(), MSG_DONTWAIT);
    if (n > 0) {
      if (auto f = parser_.feed(std::string_view(in_.data(), static_cast<std::size_t>(n))); !f) {
        return fail(f.error());
      }
      return true;
    }
    if (n == 0) return fail(closed("Redis closed the connection"));
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
    return fail(closed(std::string("the connection broke: ") + std::strerror(errno)));
  }
}

result<std::optional<redis_reply>> connection::next_reply() {
  if (broken_) return closed("the connection failed before");
  auto r = parser_.next();
  if (!r) return fail(r.error());
  return r;
}

result<void> connection::send(std::span<const std::string_view> args, steady::time_point deadline) {
  if (broken_) return closed("the connection failed before");
  out_.clear();
  encode_command(out_, args);
  return write_all(out_, deadline);
}

result<std::vector<redis_reply>> connection::exchange(
    std::span<const std::vector<std::string_view>> commands, steady::time_point deadline) {
  if (broken_) return closed("the connection failed before");
  out_.clear();
  for (const auto& c : commands) {
    if (c.empty()) return error{errc::invalid_params, "redis: a command needs a name"};
    encode_command(out_, c);
  }
  std::vector<redis_reply> replies;
  replies.reserve(commands.size());
  if (auto r = round_trip(replies, commands.size(), deadline); !r) return r.error();
  return replies;
}

result<redis_reply> connection::exchange_one(std::span<const std::string_view> args,
                                             steady::time_point deadline) {
  if (broken_) return closed("the connection failed before");
  if (args.empty()) return error{errc::invalid_params, "redis: a command needs a name"};
  out_.clear();
  encode_command(out_, args);
  std::vector<redis_reply> replies;
  if (auto r = round_trip(replies, 1, deadline); !r) return r.error();
  return std::move(replies.front());
}

result<void> connection::round_trip(std::vector<redis_reply>& replies, std::size_t n,
                                    steady::time_point deadline) {
  if (auto w = write_all(out_, deadline); !w) return w;
  if (out_.capacity() > read_chunk) std::string().swap(out_);  // a big write's room goes
  while (replies.size() < n) {
    auto next = next_reply();
    if (!next) return next.error();
    if (*next) {
      replies.push_back(std::move(**next));
      continue;
    }
    auto got = read_available();
    if (!got) return got.error();
    if (!*got) {
      if (auto w = wait(POLLIN, deadline); !w) return w;
    }
  }
  return {};
}

bool connection::usable() const {
  if (broken_ || !parser_.idle()) return false;
  pollfd p{ctx_->fd, POLLIN, 0};
  // Idle, Redis has nothing to say: readable means it closed the connection (or broke it).
  return ::poll(&p, 1, 0) == 0;
}

}  // namespace mcp::redis_detail
