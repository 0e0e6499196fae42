// Internal: the memory one received message lives in. Parsing a message with the default
// resource allocates every object, every key and every long string on its own (about ten
// allocations for a small tools/call); a message parsed into its own monotonic resource, whose
// first block sits in the same allocation as the resource, costs one (two for a bigger one). The
// storage is reference-counted: a request's params (a tool call's arguments) keep it alive as long
// as they live, so values moved out of the message must be move-constructed (or move-assigned into
// a value with the same storage) to keep it: assigning across storages copies.
#pragma once

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/storage_ptr.hpp>

#include <cstddef>
#include <type_traits>

namespace mcp::detail {

/// A monotonic resource whose first block is part of the object.
class message_resource final : public boost::json::memory_resource {
 private:
  void* do_allocate(std::size_t n, std::size_t align) override { return mono_.allocate(n, align); }
  void do_deallocate(void* /*p*/, std::size_t /*n*/, std::size_t /*align*/) override {}
  [[nodiscard]] bool do_is_equal(const memory_resource& other) const noexcept override {
    return this == &other;
  }

  // 928 bytes: the whole resource with its counted header is 1,024 bytes on 64-bit targets,
  // which glibc serves from its per-thread cache (blocks up to 1,032 bytes); at 1,024 bytes it
  // was 1,120 and took the slower path. A request's DOM that outgrows it gets a second block.
  alignas(std::max_align_t) unsigned char first_block_[928];
  boost::json::monotonic_resource mono_{first_block_, sizeof first_block_};
};

}  // namespace mcp::detail

/// Deallocation is a no-op: Boost.JSON skips it.
template <>
struct boost::json::is_deallocate_trivial<mcp::detail::message_resource> : std::true_type {};

namespace mcp::detail {

/// Storage for one received message.
[[nodiscard]] inline boost::json::storage_ptr make_message_storage() {
  return boost::json::make_shared_resource<message_resource>();
}

}  // namespace mcp::detail
