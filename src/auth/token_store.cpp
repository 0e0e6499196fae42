// Where an OAuth client keeps its registration and tokens: in memory, or in one JSON file that
// only its owner can read, replaced atomically under an advisory lock.
#include <mcp/oauth.hpp>

#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mcp::auth {

std::optional<oauth_credentials> memory_token_store::load(const std::string& resource) {
  std::lock_guard lock(mu_);
  for (const auto& [r, c] : entries_) {
    if (r == resource) return c;
  }
  return std::nullopt;
}

result<void> memory_token_store::save(const std::string& resource, const oauth_credentials& creds) {
  std::lock_guard lock(mu_);
  for (auto& [r, c] : entries_) {
    if (r == resource) {
      c = creds;
      return {};
    }
  }
  entries_.emplace_back(resource, creds);
  return {};
}

result<void> memory_token_store::erase(const std::string& resource) {
  std::lock_guard lock(mu_);
  std::erase_if(entries_, [&](const auto& e) { return e.first == resource; });
  return {};
}

namespace {

/// A store's failure: "cannot <what>: <why>".
error store_error(const std::string& what, const std::string& why) {
  return error{errc::connection_closed, "cannot " + what + ": " + why};
}

/// An exclusive advisory lock on `<file>.lock` for the life of the object (writers only).
class file_lock {
 public:
  explicit file_lock(int fd) : fd_(fd) {}
  /// The lock, or why `<file>.lock` cannot be opened.
  static result<file_lock> take(const std::filesystem::path& file) {
    const auto name = file.string() + ".lock";
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return store_error("open " + name, std::strerror(errno));
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    return file_lock(fd);
  }
  file_lock(file_lock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  ~file_lock() {
    if (fd_ >= 0) ::close(fd_);
  }
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  file_lock& operator=(file_lock&&) = delete;

 private:
  int fd_ = -1;
};

json::object read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  auto v = parse_json(text.str(), {.max_size = std::size_t{4} << 20U, .max_depth = 8});
  if (!v || !v->is_object()) return {};
  return std::move(v->get_object());
}

result<void> write_file(const std::filesystem::path& file, const json::object& all) {
  const auto tmp = file.string() + ".tmp";
  ::unlink(tmp.c_str());  // a leftover (the writers hold the lock): never written through
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return store_error("write " + tmp, std::strerror(errno));
  const std::string text = json::serialize(all) + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return store_error("write " + tmp, why);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0)
    return store_error("write " + tmp, std::strerror(errno));
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    return store_error("replace " + file.string(), std::strerror(errno));
  }
  // The rename itself survives a crash once the directory is on disk.
  const auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  if (const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); d >= 0) {
    ::fsync(d);
    ::close(d);
  }
  return {};
}

}  // namespace

file_token_store::file_token_store(std::filesystem::path file) : file_(std::move(file)) {}

std::filesystem::path file_token_store::default_path() {
  std::filesystem::path dir;
  if (const char* s = std::getenv("XDG_STATE_HOME"); s != nullptr && *s == '/') {
    dir = s;
  } else if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') {
    dir = std::filesystem::path(h) / ".local" / "state";
  } else {
    dir = ".";
  }
  return dir / "mcp-cpp" / "oauth-tokens.json";
}

std::optional<oauth_credentials> file_token_store::load(const std::string& resource) {
  // No lock: a save replaces the file by a rename, so a reader sees the old or the new one.
  const auto all = read_file(file_);
  const auto* v = all.if_contains(resource);
  if (v == nullptr || !v->is_object()) return std::nullopt;
  return oauth_credentials::from_json(v->get_object());
}

result<void> file_token_store::save(const std::string& resource, const oauth_credentials& creds) {
  if (file_.has_parent_path()) {
    const auto dir = file_.parent_path();
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) {
      std::filesystem::create_directories(dir, ec);
      if (ec) return store_error("create " + dir.string(), ec.message());
      ::chmod(dir.c_str(), 0700);
    }
  }
  auto lock = file_lock::take(file_);
  if (!lock) return lock.error();
  auto all = read_file(file_);
  all[resource] = creds.to_json();
  return write_file(file_, all);
}

result<void> file_token_store::erase(const std::string& resource) {
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) return {};
  auto lock = file_lock::take(file_);
  if (!lock) return lock.error();
  auto all = read_file(file_);
  if (all.erase(resource) == 0) return {};
  return write_file(file_, all);
}

}  // namespace mcp::auth
