// Host name checks for the `hostname` and `idn-hostname` formats: RFC 1123 LDH labels, Punycode
// A-labels (RFC 3492) and the IDNA2008 label rules that need no large Unicode tables (RFC 5891
// hyphen and length rules, RFC 5892 contextual rules, leading combining marks, the DISALLOWED
// exceptions, upper case). The RFC 5893 Bidi rule is not checked.
#pragma once

#include <string_view>

namespace mcp::json_schema::detail {

/// RFC 1123 host name; `xn--` labels must be valid A-labels. Thread-safe.
[[nodiscard]] bool valid_hostname(std::string_view s);

/// Internationalized host name (U-labels, A-labels or LDH labels). Thread-safe.
[[nodiscard]] bool valid_idn_hostname(std::string_view s);

}  // namespace mcp::json_schema::detail
