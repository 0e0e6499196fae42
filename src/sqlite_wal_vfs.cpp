// The SQLite task store's VFS (detail/sqlite_wal_vfs.hpp): the default VFS, with the WAL frames
// of a transaction joined into one write.
#include "detail/sqlite_wal_vfs.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>

#include "detail/sqlite.hpp"

namespace mcp::detail::sqlite {

namespace {

/// The size of a WAL frame's header (SQLite's file format).
constexpr int frame_header_size = 24;
/// Held bytes past which a transaction's frames go to the file before its commit frame.
constexpr int max_held = 64 * 1024;

/// An open WAL file: the default VFS's file object (`real`, in the same allocation) and the
/// frames held back until their transaction's commit frame.
struct wal_file {
  sqlite3_file base;  // first: SQLite sees this
  sqlite3_file* real;
  sqlite3_int64 held_at;  // where the held bytes go; -1: none held
  unsigned char* held;    // frames appended one after another (sqlite3_malloc)
  int held_size;
  int held_capacity;
  bool header_last;  // the held bytes end with a frame header whose page comes next
  bool commit_last;  // ... the header of a commit frame
  bool after_write;  // the last call on the file was a write
};

/// Where the default VFS's file object starts inside ours.
constexpr std::size_t real_offset = (sizeof(wal_file) + alignof(std::max_align_t) - 1) /
                                    alignof(std::max_align_t) * alignof(std::max_align_t);

sqlite3_vfs* root(sqlite3_vfs* vfs) { return static_cast<sqlite3_vfs*>(vfs->pAppData); }
wal_file& self(sqlite3_file* f) { return *reinterpret_cast<wal_file*>(f); }
const sqlite3_io_methods& real_methods(const wal_file& w) { return *w.real->pMethods; }

/// Writes the held bytes, if any, in one call (every call but a write starts with this).
int flush(wal_file& w) {
  w.after_write = false;
  if (w.held_at < 0) return SQLITE_OK;
  const sqlite3_int64 at = w.held_at;
  w.held_at = -1;
  w.header_last = false;
  return real_methods(w).xWrite(w.real, w.held, w.held_size, at);
}

/// Appends `amount` bytes to the held ones (starting them at `offset` when none are held);
/// false when there is no memory for them (nothing held changes).
bool hold(wal_file& w, const void* data, int amount, sqlite3_int64 offset) {
  const int size = w.held_at < 0 ? amount : w.held_size + amount;
  if (size > w.held_capacity) {
    const int capacity = std::max(size, 2 * w.held_capacity);
    auto* grown = static_cast<unsigned char*>(sqlite3_realloc(w.held, capacity));
    if (grown == nullptr) return false;
    w.held = grown;
    w.held_capacity = capacity;
  }
  if (w.held_at < 0) {
    w.held_at = offset;
    w.held_size = 0;
  }
  std::memcpy(w.held + w.held_size, data, static_cast<std::size_t>(amount));
  w.held_size = size;
  return true;
}

int wal_close(sqlite3_file* f) {
  wal_file& w = self(f);
  const int flushed = flush(w);
  const int rc = real_methods(w).xClose(w.real);
  sqlite3_free(w.held);
  w.held = nullptr;
  return flushed != SQLITE_OK ? flushed : rc;
}

int wal_write(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  wal_file& w = self(f);
  const bool after_write = w.after_write;
  w.after_write = true;
  const bool next = w.held_at >= 0 && offset == w.held_at + w.held_size;
  if (next && w.header_last && amount > 0 && hold(w, data, amount, offset)) {
    // The page of the last held header. The commit frame's page ends the transaction's
    // frames: all of them go to the file now, in one call, before SQLite publishes them.
    w.header_last = false;
    if (!w.commit_last && w.held_size < max_held) return SQLITE_OK;
    const int rc = flush(w);
    w.after_write = true;
    return rc;
  }
  // A frame's header, appended after the WAL's header or the previous frame: its page comes
  // next. (SQLite writes a header alone only when it rewrites the checksums of frames it
  // wrote, each right after reading that frame: never held.)
  if (amount == frame_header_size && after_write) {
    if (!next) {
      const int flushed = flush(w);
      w.after_write = true;
      if (flushed != SQLITE_OK) return flushed;
    }
    if (hold(w, data, amount, offset)) {
      const auto* h = static_cast<const unsigned char*>(data);
      w.header_last = true;
      w.commit_last = (h[4] | h[5] | h[6] | h[7]) != 0;  // the database's size after a commit
      return SQLITE_OK;
    }
  }
  const int flushed = flush(w);
  w.after_write = true;
  if (flushed != SQLITE_OK) return flushed;
  return real_methods(w).xWrite(w.real, data, amount, offset);
}

// Every other call writes the held frames first, then goes to the default VFS's file.

int wal_read(sqlite3_file* f, void* data, int amount, sqlite3_int64 offset) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  return real_methods(w).xRead(w.real, data, amount, offset);
}
int wal_truncate(sqlite3_file* f, sqlite3_int64 size) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  return real_methods(w).xTruncate(w.real, size);
}
int wal_sync(sqlite3_file* f, int flags) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  return real_methods(w).xSync(w.real, flags);
}
int wal_file_size(sqlite3_file* f, sqlite3_int64* size) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  return real_methods(w).xFileSize(w.real, size);
}
int wal_lock(sqlite3_file* f, int level) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  return real_methods(w).xLock(w.real, level);
}
int wal_unlock(sqlite3_file* f, int level) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  return real_methods(w).xUnlock(w.real, level);
}
int wal_check_reserved_lock(sqlite3_file* f, int* out) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  return real_methods(w).xCheckReservedLock(w.real, out);
}
int wal_file_control(sqlite3_file* f, int op, void* arg) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  return real_methods(w).xFileControl(w.real, op, arg);
}
int wal_sector_size(sqlite3_file* f) {
  wal_file& w = self(f);
  return real_methods(w).xSectorSize(w.real);
}
int wal_device_characteristics(sqlite3_file* f) {
  wal_file& w = self(f);
  return real_methods(w).xDeviceCharacteristics(w.real);
}
int wal_shm_map(sqlite3_file* f, int page, int size, int extend, volatile void** out) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  if (real_methods(w).iVersion < 2) return SQLITE_IOERR_SHMMAP;
  return real_methods(w).xShmMap(w.real, page, size, extend, out);
}
int wal_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  if (real_methods(w).iVersion < 2) return SQLITE_IOERR_SHMLOCK;
  return real_methods(w).xShmLock(w.real, offset, n, flags);
}
void wal_shm_barrier(sqlite3_file* f) {
  wal_file& w = self(f);
  (void)flush(w);  // never held here: a commit's frames went to the file with its last
  if (real_methods(w).iVersion >= 2) real_methods(w).xShmBarrier(w.real);
}
int wal_shm_unmap(sqlite3_file* f, int delete_flag) {
  wal_file& w = self(f);
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  if (real_methods(w).iVersion < 2) return SQLITE_OK;
  return real_methods(w).xShmUnmap(w.real, delete_flag);
}
int wal_fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  wal_file& w = self(f);
  *out = nullptr;
  if (const int rc = flush(w); rc != SQLITE_OK) return rc;
  if (real_methods(w).iVersion < 3) return SQLITE_OK;
  return real_methods(w).xFetch(w.real, offset, amount, out);
}
int wal_unfetch(sqlite3_file* f, sqlite3_int64 offset, void* page) {
  wal_file& w = self(f);
  if (real_methods(w).iVersion < 3) return SQLITE_OK;
  return real_methods(w).xUnfetch(w.real, offset, page);
}

const sqlite3_io_methods wal_methods = {
    3,  // iVersion
    wal_close,
    wal_read,
    wal_write,
    wal_truncate,
    wal_sync,
    wal_file_size,
    wal_lock,
    wal_unlock,
    wal_check_reserved_lock,
    wal_file_control,
    wal_sector_size,
    wal_device_characteristics,
    wal_shm_map,
    wal_shm_lock,
    wal_shm_barrier,
    wal_shm_unmap,
    wal_fetch,
    wal_unfetch,
};

int vfs_open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags,
             int* out_flags) {
  sqlite3_vfs* r = root(vfs);
  // Not a WAL: the default VFS's own file object, in the space SQLite gave us.
  if ((flags & SQLITE_OPEN_WAL) == 0) return r->xOpen(r, name, file, flags, out_flags);
  auto* w = new (file) wal_file{};
  w->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<unsigned char*>(file) + real_offset);
  w->real->pMethods = nullptr;
  w->held_at = -1;
  const int rc = r->xOpen(r, name, w->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    if (w->real->pMethods != nullptr) w->real->pMethods->xClose(w->real);
    file->pMethods = nullptr;
    return rc;
  }
  file->pMethods = &wal_methods;
  return SQLITE_OK;
}

// The rest of the VFS is the default one's.
int vfs_delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  return root(vfs)->xDelete(root(vfs), name, sync_dir);
}
int vfs_access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
  return root(vfs)->xAccess(root(vfs), name, flags, out);
}
int vfs_full_pathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
  return root(vfs)->xFullPathname(root(vfs), name, size, out);
}
void* vfs_dl_open(sqlite3_vfs* vfs, const char* name) {
  return root(vfs)->xDlOpen(root(vfs), name);
}
void vfs_dl_error(sqlite3_vfs* vfs, int size, char* out) {
  root(vfs)->xDlError(root(vfs), size, out);
}
void (*vfs_dl_sym(sqlite3_vfs* vfs, void* lib, const char* sym))() {
  return root(vfs)->xDlSym(root(vfs), lib, sym);
}
void vfs_dl_close(sqlite3_vfs* vfs, void* lib) { root(vfs)->xDlClose(root(vfs), lib); }
int vfs_randomness(sqlite3_vfs* vfs, int size, char* out) {
  return root(vfs)->xRandomness(root(vfs), size, out);
}
int vfs_sleep(sqlite3_vfs* vfs, int us) { return root(vfs)->xSleep(root(vfs), us); }
int vfs_current_time(sqlite3_vfs* vfs, double* out) {
  return root(vfs)->xCurrentTime(root(vfs), out);
}
int vfs_get_last_error(sqlite3_vfs* vfs, int size, char* out) {
  return root(vfs)->xGetLastError(root(vfs), size, out);
}
int vfs_current_time_int64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  return root(vfs)->xCurrentTimeInt64(root(vfs), out);
}
int vfs_set_system_call(sqlite3_vfs* vfs, const char* name, sqlite3_syscall_ptr p) {
  return root(vfs)->xSetSystemCall(root(vfs), name, p);
}
sqlite3_syscall_ptr vfs_get_system_call(sqlite3_vfs* vfs, const char* name) {
  return root(vfs)->xGetSystemCall(root(vfs), name);
}
const char* vfs_next_system_call(sqlite3_vfs* vfs, const char* name) {
  return root(vfs)->xNextSystemCall(root(vfs), name);
}

constexpr const char* vfs_name = "mcp-wal-frames";

}  // namespace

const char* wal_vfs_name() {
  static std::once_flag once;
  static sqlite3_vfs vfs{};
  static int rc = SQLITE_OK;
  std::call_once(once, [] {
    sqlite3_vfs* r = sqlite3_vfs_find(nullptr);
    if (r == nullptr || r->iVersion < 3) {
      rc = SQLITE_ERROR;
      return;
    }
    vfs.iVersion = 3;
    vfs.szOsFile = static_cast<int>(real_offset) + r->szOsFile;
    vfs.mxPathname = r->mxPathname;
    vfs.zName = vfs_name;
    vfs.pAppData = r;
    vfs.xOpen = vfs_open;
    vfs.xDelete = vfs_delete;
    vfs.xAccess = vfs_access;
    vfs.xFullPathname = vfs_full_pathname;
    vfs.xDlOpen = vfs_dl_open;
    vfs.xDlError = vfs_dl_error;
    vfs.xDlSym = vfs_dl_sym;
    vfs.xDlClose = vfs_dl_close;
    vfs.xRandomness = vfs_randomness;
    vfs.xSleep = vfs_sleep;
    vfs.xCurrentTime = vfs_current_time;
    vfs.xGetLastError = vfs_get_last_error;
    vfs.xCurrentTimeInt64 = vfs_current_time_int64;
    vfs.xSetSystemCall = vfs_set_system_call;
    vfs.xGetSystemCall = vfs_get_system_call;
    vfs.xNextSystemCall = vfs_next_system_call;
    rc = sqlite3_vfs_register(&vfs, 0);
  });
  if (rc != SQLITE_OK) throw failure{"task store: cannot set up its SQLite VFS", rc};
  return vfs_name;
}

}  // namespace mcp::detail::sqlite
