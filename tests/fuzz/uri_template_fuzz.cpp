// RFC 6570 templates: the input is a template and a URI separated by a NUL byte. Parse, match,
// expand what was matched, and match the expansion again.
#include <mcp/uri_template.hpp>

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const auto nul = all.find('\0');
  auto t = mcp::uri_template::parse(all.substr(0, nul));
  if (!t) return 0;
  const std::string_view uri = nul == std::string_view::npos ? all : all.substr(nul + 1);
  if (auto vars = t->match(uri)) {
    const std::string expanded = t->expand(*vars);
    (void)t->match(expanded);
  }
  (void)t->expand({{"a", "x/y"}, {"name", std::string(all.substr(0, 64))}});
  return 0;
}
