// Internal: the thread-local variables the observation reads on every call (the arriving
// requests, the answering slot, the batch's clock reading, the metrics' own cells). The library
// is built position-independent, where a thread-local variable is reached by a call to
// `__tls_get_addr` unless the linker relaxes it: the compiler must then assume that call and
// keep a frame and saved registers around every access, even once relaxed. The initial-exec
// model reaches them from the thread pointer without a call. Its cost: a shared build's few
// hundred bytes of such variables come from the static TLS block, which a library opened late
// with dlopen shares with others (glibc reserves room for that).
#pragma once

#if defined(__GNUC__)
#define MCP_HOT_TLS [[gnu::tls_model("initial-exec")]]
#else
#define MCP_HOT_TLS
#endif
