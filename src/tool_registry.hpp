// Internal: the tool registry shared by all sessions of a server. Each tool is stored once with
// its compiled schemas and its wire form pre-serialized per protocol era, so tools/list pages
// are assembled from ready strings. Pagination is by registration sequence: a cursor names the
// last sequence number returned, so pages stay consistent while tools come and go.
#pragma once

#include <mcp/json_schema.hpp>
#include <mcp/server.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>

namespace mcp::detail {

/// Protocol eras that differ in the Tool object's fields.
enum class era : std::uint8_t { v2024_11_05, v2025_03_26, v2025_06_18, v2025_11_25 };
[[nodiscard]] era era_of(std::string_view protocol_version) noexcept;
/// False for content blocks a client of era `e` does not know (audio before 2025-03-26,
/// resource_link before 2025-06-18): they are left out of what it receives.
[[nodiscard]] bool content_type_known(std::string_view type, era e) noexcept;

struct tool_entry {
  std::uint64_t seq = 0;
  tool_spec spec;
  std::array<std::string, 4> wire;  ///< serialized Tool object per era
  std::shared_ptr<const json_schema::validator> input_validator;
  std::shared_ptr<const json_schema::validator> output_validator;  ///< null: no outputSchema
  async_tool_handler handler;
  bool enabled = true;
};

/// What `tool_registry::list` tells besides the page it wrote.
struct list_page {
  std::optional<std::string> next_cursor;
};

class tool_registry {
 public:
  tool_registry();

  /// Validates, compiles and adds. Throws std::invalid_argument.
  void add(tool_spec spec, async_tool_handler handler);
  bool remove(std::string_view name);
  bool set_enabled(std::string_view name, bool enabled);
  [[nodiscard]] std::vector<std::string> names() const;

  /// The enabled tool called `name`, or null.
  [[nodiscard]] std::shared_ptr<const tool_entry> find(std::string_view name) const;

  /// Appends one page, the JSON array of Tool objects, to `out`, growing it once (a page of
  /// 1,000 tools is about 150 KB: growing by doubling and copying it into the message would make
  /// several such buffers per call, which glibc then returns to the OS and faults in again).
  /// Errors: errc::invalid_params for an invalid or stale cursor (`out` untouched).
  [[nodiscard]] result<list_page> list(const std::optional<std::string>& cursor, era e,
                                       std::size_t page_size, std::string& out) const;

 private:
  mutable std::shared_mutex mu_;
  std::map<std::uint64_t, std::shared_ptr<tool_entry>> by_seq_;
  std::unordered_map<std::string, std::uint64_t> by_name_;
  std::uint64_t next_seq_ = 1;
  std::string epoch_;  ///< random per registry: cursors from another server are stale
};

/// An opaque list cursor naming sequence number `seq` of a registry with random `epoch`.
[[nodiscard]] std::string make_cursor(std::string_view epoch, std::uint64_t seq);
/// The sequence number a cursor names; nothing for an invalid cursor or one of another epoch.
[[nodiscard]] std::optional<std::uint64_t> read_cursor(std::string_view cursor,
                                                       std::string_view epoch);

/// Throws std::invalid_argument unless `name` is 1-128 characters of [A-Za-z0-9_.-].
void check_tool_name(std::string_view name);

}  // namespace mcp::detail
