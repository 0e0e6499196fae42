// Internal: the VFS the SQLite task store's connections open their file with. It is SQLite's
// default VFS except for one thing: the WAL frames of a transaction go to the file in one write.
//
// SQLite appends a frame to the WAL as two writes, its 24-byte header and then its page, so a
// commit of n pages costs 2n `pwrite` calls (measured: 13.5 per task round trip of the demo
// server, bench/RESULTS.md). Here a 24-byte write that follows a write (the WAL's header or the
// previous frame) starts or extends the held bytes, and the writes that follow it at the next
// offsets (its page, the next frames) are held with it, until the page of a commit frame (the
// header's "database size after commit" is not zero): then all of them go to the file in one
// call, before SQLite goes on to publish the frames in the shared index (what makes them
// visible to readers and to other processes). The held bytes also go to the file, first, on any
// other call on the WAL file (a read, a sync, a size, a truncation, a lock, a write elsewhere,
// the close) and once they pass 64 KiB. The one other 24-byte write, the rewrite of a frame's
// checksums, comes right after a read of that frame, so it is never held. The connections do
// not spill dirty pages before a commit (`cache_spill` off, detail/sqlite.hpp::open): every
// frame a transaction writes is written by its commit, which ends with the commit frame, so
// nothing is held once a transaction has ended (frames held back from a transaction rolled back
// after a spill would go to the file later, over what another connection had written there
// meanwhile: SQLite takes and releases the write lock through the database file's shared
// memory, not the WAL file's, so that release cannot write them first). So when a commit is
// published every byte of it is in the operating system's hands, exactly as with the default
// VFS: a commit that returned survives a crash of the process, and the durability setting
// (`synchronous`) keeps its meaning. An error of the joined write is the error of the commit
// frame's write, which SQLite handles as before (the transaction fails). Checked by the kill -9
// test and by plain SQLite recovering a copy of the WAL (tests/unit/task_store_sqlite_test.cpp,
// tests/unit/task_store_sqlite_wal_test.cpp).
//
// Every other file (the database, its shared-memory index, journals) is the default VFS's own
// file object, untouched.
#pragma once

namespace mcp::detail::sqlite {

/// The name of that VFS, registered with SQLite on the first call (not as the default).
/// Thread-safe. Throws `failure` when SQLite has no default VFS or refuses the registration.
const char* wal_vfs_name();

}  // namespace mcp::detail::sqlite
