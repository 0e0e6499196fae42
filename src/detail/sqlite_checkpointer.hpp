// Internal: checkpoints of a WAL database on a thread and a connection of their own. SQLite's
// automatic checkpoint runs inside the COMMIT that finds the WAL past its limit, so that commit
// (and every write waiting for it) would also wait for copying the WAL into the database and
// for the two flushes to the disk a checkpoint makes. `watch` replaces it on the writing
// connection with a hook that only asks this thread for a checkpoint each time `frames` more
// pages (1,000 by default, SQLite's own limit) were appended to the WAL. Those are PASSIVE: they
// copy what no reader still needs and never block the writer, which starts the WAL over when it
// finds all of it copied. Under a steady stream of commits it rarely does (a commit lands during
// each checkpoint), so past `limit` pages the checkpoint is a RESTART one: it waits for the writer
// (which waits for it in turn, up to its busy timeout) and starts the WAL over. The WAL file
// therefore grows past `limit` only by what is appended while one checkpoint runs (its flushes
// take longest), and keeps the largest size it reached, as SQLite's WAL files do.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "detail/sqlite.hpp"

namespace mcp::detail::sqlite {

class checkpointer {
 public:
  /// Opens its connection to `path` (a WAL database) and starts the thread. A checkpoint is
  /// asked for once `frames` pages were appended to the WAL since the last one; past `limit`
  /// pages it is a RESTART one. Throws `failure`.
  checkpointer(const std::string& path, std::chrono::milliseconds busy_timeout, int frames = 1000,
               int limit = 4000)
      : db_(open(path, busy_timeout, SQLITE_OPEN_READWRITE)), frames_(frames), limit_(limit) {
    // A connection finds the WAL at its first read; until then it has nothing to checkpoint.
    exec(db_.get(), "SELECT count(*) FROM sqlite_master");
    thread_ = std::thread([this] { loop(); });
  }
  checkpointer(const checkpointer&) = delete;
  checkpointer& operator=(const checkpointer&) = delete;
  /// Stops the thread (after the checkpoint it is running, if any). Stop the writer first.
  ~checkpointer() {
    {
      const std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  /// From now on commits on `writer` ask this thread for checkpoints, and `writer` makes none
  /// itself. Call before `writer` commits, and let it commit no more once this is destroyed.
  void watch(sqlite3* writer) { sqlite3_wal_hook(writer, &on_commit, this); }

  /// Checkpoints run so far (for tests).
  [[nodiscard]] std::uint64_t runs() const noexcept { return runs_.load(); }

 private:
  /// After each commit on the writer, with the pages in the WAL.
  static int on_commit(void* self, sqlite3* /*db*/, const char* /*name*/, int frames) {
    auto& c = *static_cast<checkpointer*>(self);
    c.wal_frames_.store(frames);
    int done = c.copied_.load();
    if (frames < done) done = 0;  // the WAL started over since
    if (frames - done >= c.frames_ && !c.wanted_.exchange(true)) {
      { const std::lock_guard lock(c.mu_); }  // the thread is waiting, or sees `wanted_`
      c.wake_.notify_one();
    }
    return SQLITE_OK;
  }

  void loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || wanted_.load(); });
      if (stopping_) return;
      lock.unlock();
      const int mode =
          wal_frames_.load() >= limit_ ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_PASSIVE;
      int log = 0;
      int copied = 0;
      // A failure (another process holds the checkpoint lock, an I/O error, a RESTART that
      // timed out) leaves the WAL as it is: a later commit asks again.
      const int rc = sqlite3_wal_checkpoint_v2(db_.get(), nullptr, mode, &log, &copied);
      copied_.store(rc == SQLITE_OK && mode == SQLITE_CHECKPOINT_RESTART ? 0 : copied);
      runs_.fetch_add(1);
      wanted_.store(false);
      lock.lock();
    }
  }

  db_ptr db_;
  const int frames_;
  const int limit_;
  std::atomic<int> wal_frames_{0};  // pages in the WAL after the last commit
  std::atomic<int> copied_{0};      // of which the last checkpoint copied (PASSIVE)
  std::atomic<bool> wanted_{false};
  std::atomic<std::uint64_t> runs_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mcp::detail::sqlite
