// A server launched as a child process: posix_spawnp with pipes, reader threads over
// read_lines, and the stdio shutdown sequence (close stdin, SIGTERM, SIGKILL, reap).
#include <mcp/transport/process.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mcp {

namespace {

/// Runs callbacks until shut; `shut` waits for one that is running (unless called from it).
class callback_gate {
 public:
  template <class F>
  void run(F&& f) {
    std::lock_guard lock(mu_);
    if (open_) {
      running_in_.store(std::this_thread::get_id());
      f();
      running_in_.store(std::thread::id{});
    }
  }
  void shut() {
    if (running_in_.load() == std::this_thread::get_id()) {  // from inside a callback
      open_ = false;  // read under mu_, which this thread holds
      return;
    }
    std::lock_guard lock(mu_);
    open_ = false;
  }

 private:
  std::mutex mu_;
  bool open_ = true;
  std::atomic<std::thread::id> running_in_{};
};

}  // namespace

struct process_connection::state {
  process_options opts;
  pid_t pid = -1;
  std::shared_ptr<fd_connection> in;  ///< the child's stdin
  int out_fd = -1;                    ///< the child's stdout (read end); the reader closes it
  int err_fd = -1;                    ///< the child's stderr when captured
  callback_gate out_gate;             ///< shut when close begins: stdout lines are dropped
  callback_gate err_gate;             ///< shut when close ends: stderr is read to the end
  std::function<void(std::string_view)> on_message;
  std::function<void()> on_end;

  std::mutex mu;
  std::condition_variable cv;
  bool closed = false;  ///< close began
  bool shut = false;    ///< close ended: the child is reaped
  std::thread::id reader_id{};
  std::thread::id err_reader_id{};
  bool reader_done = false;
  bool err_done = false;
  std::optional<int> status;
  std::thread reader;
  std::thread err_reader;

  /// Reaps the child if it has exited by `deadline`.
  bool wait_exit(std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      int st = 0;
      const pid_t r = ::waitpid(pid, &st, WNOHANG);
      if (r == pid || (r < 0 && errno != EINTR)) {
        std::lock_guard lock(mu);
        status = r == pid ? (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st)) : -1;
        return true;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  /// Joins `t` once `done` (up to `deadline`: a grandchild may hold the pipe open), else lets it
  /// go; never joins the calling thread.
  void finish_thread(std::thread& t, const bool& done,
                     std::chrono::steady_clock::time_point deadline) {
    if (!t.joinable() || t.get_id() == std::this_thread::get_id()) return;
    std::unique_lock lock(mu);
    const bool ended = cv.wait_until(lock, deadline, [&] { return done; });
    lock.unlock();
    if (ended) {
      t.join();
    } else {
      t.detach();  // it holds the state; its callbacks end when the gates shut
    }
  }
};

namespace {

void close_fds(std::initializer_list<int> fds) {
  for (int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
}

/// Signals the child's process group (the server and whatever it started) and the child itself
/// (in case it left the group). The child is not reaped yet, so its pid is still its own.
void signal_child(pid_t pid, int sig) {
  ::kill(-pid, sig);
  ::kill(pid, sig);
}

}  // namespace

result<std::shared_ptr<process_connection>> make_process_connection(process_options opts) {
  if (opts.argv.empty() || opts.argv.front().empty()) {
    return error{errc::invalid_params, "no command to launch"};
  }
  // A child that dies must make our writes fail with EPIPE, not end this process.
  struct sigaction old {};
  if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
    std::signal(SIGPIPE, SIG_IGN);
  }
  int in[2] = {-1, -1};
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  const bool capture = static_cast<bool>(opts.on_stderr);
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
      (capture && ::pipe2(err, O_CLOEXEC) != 0)) {
    const int e = errno;
    close_fds({in[0], in[1], out[0], out[1], err[0], err[1]});
    return error{errc::connection_closed, std::string("cannot make pipes: ") + std::strerror(e)};
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  if (capture) posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  // Nothing else of ours reaches the server, not even a descriptor opened without O_CLOEXEC
  // (an audit log, a socket).
  posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
#endif
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  args.reserve(opts.argv.size() + 1);
  for (auto& a : opts.argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close_fds({in[0], out[1], err[1]});
  if (rc != 0) {
    close_fds({in[1], out[0], err[0]});
    return error{errc::connection_closed,
                 "cannot run " + opts.argv.front() + ": " + std::strerror(rc)};
  }
  auto s = std::make_shared<process_connection::state>();
  s->opts = std::move(opts);
  s->pid = pid;
  s->in = std::make_shared<fd_connection>(in[1], true);
  s->out_fd = out[0];
  s->err_fd = err[0];
  if (capture) {
    s->err_reader = std::thread([s] {
      (void)read_lines(s->err_fd, s->opts.reader, [&s](std::string_view line) {
        s->err_gate.run([&] { s->opts.on_stderr(line); });
      });
      ::close(s->err_fd);
      std::lock_guard lock(s->mu);
      s->err_done = true;
      s->cv.notify_all();
    });
    std::lock_guard lock(s->mu);
    s->err_reader_id = s->err_reader.get_id();
  }
  return std::shared_ptr<process_connection>(new process_connection(std::move(s)));
}

void process_connection::start(std::function<void(std::string_view)> on_message,
                               std::function<void()> on_end) {
  auto& s = state_;
  std::lock_guard lock(s->mu);
  if (s->reader.joinable() || s->reader_done || s->closed) return;
  s->on_message = std::move(on_message);
  s->on_end = std::move(on_end);
  s->reader = std::thread([s] {
    (void)read_lines(s->out_fd, s->opts.reader, [&s](std::string_view line) {
      s->out_gate.run([&] { s->on_message(line); });
    });
    ::close(s->out_fd);
    if (s->on_end) s->out_gate.run([&] { s->on_end(); });
    std::lock_guard done_lock(s->mu);
    s->reader_done = true;
    s->cv.notify_all();
  });
  s->reader_id = s->reader.get_id();
}

void process_connection::send(std::string message, const send_context& ctx) {
  state_->in->send(std::move(message), ctx);
}

void process_connection::close() {
  auto& s = *state_;
  {
    std::unique_lock lock(s.mu);
    if (s.closed) {
      // Another thread is shutting the child down: wait for it, unless this is a callback of
      // the reader threads (that thread may be waiting for this one to end).
      const auto self = std::this_thread::get_id();
      if (self != s.reader_id && self != s.err_reader_id) s.cv.wait(lock, [&] { return s.shut; });
      return;
    }
    s.closed = true;
  }
  s.out_gate.shut();  // the session is going: what the child still says is of no use
  // The child sees end of input: the polite request to exit. Closing waits for a write in
  // progress, which a child that stopped reading blocks until it dies: on another thread then,
  // so that the signals below still come.
  auto input_closed = std::make_shared<std::atomic<bool>>(false);
  std::thread closing_input;
  try {
    closing_input = std::thread([in = s.in, input_closed] {
      in->close();
      input_closed->store(true);
    });
  } catch (const std::system_error&) {  // no thread to be had: close here
    s.in->close();
  }
  const auto grace = s.opts.grace;
  auto deadline = std::chrono::steady_clock::now() + grace;
  if (!s.wait_exit(deadline)) {
    signal_child(s.pid, SIGTERM);
    deadline = std::chrono::steady_clock::now() + grace;
    if (!s.wait_exit(deadline)) {
      signal_child(s.pid, SIGKILL);
      (void)s.wait_exit(std::chrono::steady_clock::time_point::max());
    }
  }
  // The child is gone, so a blocked write failed, unless something it started holds its stdin
  // without reading: then the closing thread is left to end whenever that does.
  if (closing_input.joinable()) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!input_closed->load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (input_closed->load()) {
      closing_input.join();
    } else {
      closing_input.detach();
    }
  }
  // The pipes close when the child is gone, unless something it started still holds them.
  deadline = std::chrono::steady_clock::now() + std::min(grace, std::chrono::milliseconds(1000));
  s.finish_thread(s.reader, s.reader_done, deadline);
  s.finish_thread(s.err_reader, s.err_done, deadline);
  s.err_gate.shut();  // its last words were delivered, unless something held the pipe open
  std::lock_guard lock(s.mu);
  if (s.reader_id == std::thread::id{} && s.out_fd >= 0) {
    ::close(s.out_fd);  // never started: no reader owns it
    s.out_fd = -1;
  }
  s.shut = true;
  s.cv.notify_all();
}

process_connection::~process_connection() {
  close();
  for (auto* t : {&state_->reader, &state_->err_reader}) {
    if (!t->joinable()) continue;
    if (t->get_id() == std::this_thread::get_id()) {
      t->detach();  // the last owner let go from a callback of this thread
    } else {
      t->join();
    }
  }
}

int process_connection::pid() const noexcept { return state_->pid; }

std::optional<int> process_connection::exit_status() const {
  std::lock_guard lock(state_->mu);
  return state_->status;
}

result<launched_server> launch_server(process_options proc, client_options client) {
  if (client.origin.empty()) {  // per server command: what the verdict is remembered under
    client.origin = "stdio:";
    for (const auto& a : proc.argv) client.origin.append(" ").append(a);
  }
  auto spawned = make_process_connection(std::move(proc));
  if (!spawned) return spawned.error();
  auto process = std::move(*spawned);
  auto session = std::make_shared<client_session>(process, std::move(client));
  std::weak_ptr<client_session> weak = session;
  process->start(
      [weak](std::string_view m) {
        if (auto c = weak.lock()) c->receive(m);
      },
      [weak] {
        if (auto c = weak.lock()) c->close();  // every waiting request fails now
      });
  auto init = session->initialize();
  if (!init) {
    session->close();
    process->close();  // returns once the child is reaped, whoever began the shutdown
    auto e = init.error();
    if (const auto st = process->exit_status(); e.is(errc::connection_closed) && st) {
      e.message =
          "the server exited before answering initialize (exit status " + std::to_string(*st) + ")";
    }
    return e;
  }
  return launched_server{std::move(process), std::move(session)};
}

}  // namespace mcp
