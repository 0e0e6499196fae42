// Internal: the VFS the SQLite task store's connections open their file with. It is SQLite's
// default VFS except for one thing: a WAL frame goes to the file in one write instead of two.
//
// SQLite appends a frame to the WAL as two writes, its 24-byte header and then its page, so a
// commit of n pages costs 2n `pwrite` calls (measured: 13.7 per task round trip of the demo
// server, bench/RESULTS.md). Here the header is held back and written with the page that
// follows it at the next offset, in one call. Nothing else is deferred, and nothing at all past
// the call that writes the page: SQLite writes a frame's page right after its header (no other
// call on the file between them), and any other call on the WAL file (a read, a sync, a size,
// a truncation, a write elsewhere, the close) writes a held-back header first. So when SQLite
// goes on to publish the frames in the shared index (what makes them visible to readers and
// other processes) every byte of them is in the operating system's hands, exactly as with the
// default VFS: a commit that returned survives a crash of the process, and its durability
// setting (`synchronous`) keeps its meaning. An error of the joined write is the error of the
// page's write, which SQLite handles as before (the transaction fails).
//
// Every other file (the database, its shared-memory index, journals) is the default VFS's own
// file object, untouched.
#pragma once

namespace mcp::detail::sqlite {

/// The name of that VFS, registered with SQLite on the first call (not as the default).
/// Thread-safe. Throws `failure` when SQLite has no default VFS or refuses the registration.
const char* wal_vfs_name();

}  // namespace mcp::detail::sqlite
