// Internal: the VFS the SQLite task store's connections open their file with. It is SQLite's
// default VFS except for one thing: a WAL frame goes to the file in one write instead of two.
//
// SQLite appends a frame to the WAL as two writes, its 24-byte header and then its page, so a
// commit of n pages costs 2n `pwrite` calls (measured: 13.5 per task round trip of the demo
// server, bench/RESULTS.md). Here a 24-byte write that follows a write (the WAL's header or the
// previous frame) is held back and goes to the file with the write that follows it at the next
// offset, in one call. Nothing else is deferred, and nothing past that next call: SQLite writes
// a frame's page right after its header, with no other call on the file between them (the one
// other 24-byte write, the rewrite of a frame's checksums, comes right after a read of that
// frame, so it is never held), and any other call on the WAL file (a read, a sync, a size, a
// truncation, a write elsewhere, the close) writes a held-back header first. So when SQLite goes
// on to publish the frames in the shared index (what makes them visible to readers and to other
// processes) every byte of them is in the operating system's hands, exactly as with the default
// VFS: a commit that returned survives a crash of the process, and the durability setting
// (`synchronous`) keeps its meaning. An error of the joined write is the error of the page's
// write, which SQLite handles as before (the transaction fails). Checked by the kill -9 test and
// by plain SQLite recovering a copy of the WAL (tests/unit/task_store_sqlite_test.cpp).
//
// Every other file (the database, its shared-memory index, journals) is the default VFS's own
// file object, untouched.
#pragma once

namespace mcp::detail::sqlite {

/// The name of that VFS, registered with SQLite on the first call (not as the default).
/// Thread-safe. Throws `failure` when SQLite has no default VFS or refuses the registration.
const char* wal_vfs_name();

}  // namespace mcp::detail::sqlite
