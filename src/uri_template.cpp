// RFC 6570 URI templates: parsing, expansion, and matching a URI back to its variables (by
// backtracking over the template's parts, longest candidate first, with a work budget).
#include <mcp/uri_template.hpp>

#include <algorithm>
#include <cstdint>

namespace mcp {

namespace {

/// Expansion behaviour of one operator (RFC 6570 appendix A).
struct op_rules {
  std::string_view first;
  char sep;
  bool named;
  bool reserved;          ///< U+R: reserved characters pass unencoded
  std::string_view stop;  ///< characters a matched value may not contain
};

op_rules rules_of(char op) {
  switch (op) {
    case '+':
      return {"", ',', false, true, "?#"};
    case '#':
      return {"#", ',', false, true, ""};
    case '.':
      return {".", '.', false, false, "/?#."};
    case '/':
      return {"/", '/', false, false, "/?#"};
    case ';':
      return {";", ';', true, false, "/?#;"};
    case '?':
      return {"?", '&', true, false, "#&"};
    case '&':
      return {"&", '&', true, false, "#&"};
    default:
      return {"", ',', false, false, "/?#"};
  }
}

bool is_unreserved(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

bool is_reserved(char c) {
  return std::string_view(":/?#[]@!$&'()*+,;=").find(c) != std::string_view::npos;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_pct_triplet(std::string_view s, std::size_t i) {
  return i + 2 < s.size() && s[i] == '%' && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0;
}

void encode_into(std::string& out, std::string_view v, bool reserved) {
  static constexpr std::string_view hex = "0123456789ABCDEF";
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (is_unreserved(c) || (reserved && (is_reserved(c) || is_pct_triplet(v, i)))) {
      out.push_back(c);
    } else {
      const auto u = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(hex[u >> 4U]);
      out.push_back(hex[u & 0xFU]);
    }
  }
}

/// The first `n` code points of UTF-8 text `v`.
std::string_view prefix_of(std::string_view v, std::size_t n) {
  std::size_t i = 0;
  for (std::size_t count = 0; i < v.size() && count < n; ++count) {
    ++i;
    while (i < v.size() && (static_cast<unsigned char>(v[i]) & 0xC0U) == 0x80U) ++i;
  }
  return v.substr(0, i);
}

std::optional<std::string> pct_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (!is_pct_triplet(s, i)) return std::nullopt;
    out.push_back(static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2])));
    i += 2;
  }
  return out;
}

bool valid_varname(std::string_view n) {
  if (n.empty()) return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    if (c == '%' && is_pct_triplet(n, i)) {
      i += 2;
      continue;
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || (c == '.' && i > 0 && n[i - 1] != '.');
    if (!ok) return false;
  }
  return n.back() != '.';
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto k = s.find(sep);
    out.push_back(s.substr(0, k));
    if (k == std::string_view::npos) return out;
    s.remove_prefix(k + 1);
  }
}

/// The variables one expression produced for text `s`, or nothing when `s` is not one of its
/// expansions.
std::optional<uri_variables> match_expression(const uri_template::part& p, std::string_view s) {
  const auto r = rules_of(p.op);
  uri_variables out;
  if (s.empty()) {
    // Every variable undefined; a simple or reserved expression must produce something.
    if (p.op == ' ' || p.op == '+') return std::nullopt;
    return out;
  }
  if (!r.first.empty()) {
    if (s.substr(0, r.first.size()) != r.first) return std::nullopt;
    s.remove_prefix(r.first.size());
  }
  auto clean = [&](std::string_view v) {
    return v.find_first_of(r.stop) == std::string_view::npos;
  };
  if (!r.named) {
    auto items = p.vars.size() == 1 ? std::vector<std::string_view>{s} : split(s, r.sep);
    if (items.size() > p.vars.size()) return std::nullopt;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!clean(items[i])) return std::nullopt;
      auto v = pct_decode(items[i]);
      if (!v) return std::nullopt;
      out[p.vars[i].name] = std::move(*v);
    }
    return out;
  }
  for (auto item : split(s, r.sep)) {
    if (!clean(item)) return std::nullopt;
    const auto eq = item.find('=');
    const auto name = item.substr(0, eq);
    bool known = false;
    for (const auto& v : p.vars) known = known || v.name == name;
    if (!known || out.contains(name)) return std::nullopt;
    auto value =
        pct_decode(eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1));
    if (!value) return std::nullopt;
    out[std::string(name)] = std::move(*value);
  }
  return out;
}

struct matcher {
  const std::vector<uri_template::part>& parts;
  std::string_view uri;
  /// Work allowed, in characters examined (each candidate an expression is tried on costs its
  /// length): enough for any URI a template is meant to match, and milliseconds for a hostile
  /// template and URI.
  std::size_t budget = 4'000'000;

  /// Takes `n` units of the budget; false (and nothing left) when there are not that many.
  bool spend(std::size_t n) {
    if (budget < n) {
      budget = 0;
      return false;
    }
    budget -= n;
    return true;
  }

  /// Where an expansion of expression `p` starting at `pos` must end at the latest: before the
  /// first character its values may not contain (a separator splitting several values is
  /// allowed). Longer candidates would fail `match_expression`; not trying them keeps matching
  /// linear for the usual templates.
  [[nodiscard]] std::size_t longest_end(const uri_template::part& p, std::size_t pos) const {
    const auto r = rules_of(p.op);
    const bool split = r.named || p.vars.size() > 1;
    std::string forbidden;
    for (const char c : r.stop) {
      if (!split || c != r.sep) forbidden += c;
    }
    const auto from = std::min(uri.size(), pos + r.first.size());
    const auto stop = uri.find_first_of(forbidden, from);
    return stop == std::string_view::npos ? uri.size() : stop;
  }

  /// Matches parts `i…` against `uri` from `pos`. Only a complete match writes to `vars`, as
  /// the recursion unwinds: later parts first, so an earlier part's value for a name repeated
  /// in the template wins. Recursion depth is bounded by the part count (`max_parts`).
  bool run(std::size_t i, std::size_t pos, uri_variables& vars) {
    if (!spend(1)) return false;
    if (i == parts.size()) return pos == uri.size();
    const auto& p = parts[i];
    if (p.op == 0) {
      if (uri.substr(pos, p.literal.size()) != p.literal) return false;
      return run(i + 1, pos + p.literal.size(), vars);
    }
    // What must follow the expansion: the end of the URI, or the next literal.
    const bool last = i + 1 == parts.size();
    const std::string_view next_literal =
        !last && parts[i + 1].op == 0 ? std::string_view(parts[i + 1].literal) : std::string_view{};
    for (std::size_t end = longest_end(p, pos) + 1; end-- > pos;) {
      if (last && end != uri.size()) return false;
      if (!next_literal.empty() && uri.substr(end, next_literal.size()) != next_literal) {
        if (!spend(1)) return false;
        continue;
      }
      if (!spend(end - pos + 1)) return false;  // what match_expression examines
      auto got = match_expression(p, uri.substr(pos, end - pos));
      if (!got) continue;
      if (run(i + 1, end, vars)) {
        for (auto& [name, value] : *got) vars.insert_or_assign(name, std::move(value));
        return true;
      }
      if (budget == 0) return false;
    }
    return false;
  }
};

}  // namespace

result<uri_template> uri_template::parse(std::string_view text) {
  uri_template t;
  t.text_ = std::string(text);
  std::size_t i = 0;
  while (i < text.size()) {
    const auto open = text.find('{', i);
    const auto close_stray = text.substr(i, open - i).find('}');
    if (close_stray != std::string_view::npos) {
      return error{errc::invalid_params, "uri template: unmatched '}' in \"" + t.text_ + "\""};
    }
    if (open != i) {
      t.parts_.push_back(part{0, std::string(text.substr(i, open - i)), {}});
      if (open == std::string_view::npos) break;
    }
    const auto close = text.find('}', open);
    if (close == std::string_view::npos) {
      return error{errc::invalid_params, "uri template: unclosed '{' in \"" + t.text_ + "\""};
    }
    std::string_view body = text.substr(open + 1, close - open - 1);
    part p{' ', {}, {}};
    if (!body.empty() && std::string_view("+#./;?&").find(body.front()) != std::string_view::npos) {
      p.op = body.front();
      body.remove_prefix(1);
    } else if (!body.empty() &&
               std::string_view("=,!@|").find(body.front()) != std::string_view::npos) {
      return error{errc::invalid_params, "uri template: reserved operator in \"" + t.text_ + "\""};
    }
    if (body.empty()) {
      return error{errc::invalid_params, "uri template: empty expression in \"" + t.text_ + "\""};
    }
    for (auto spec : split(body, ',')) {
      varspec v;
      if (!spec.empty() && spec.back() == '*') {
        v.explode = true;
        spec.remove_suffix(1);
      } else if (const auto colon = spec.find(':'); colon != std::string_view::npos) {
        const auto digits = spec.substr(colon + 1);
        if (digits.empty() || digits.size() > 4 || digits.front() == '0') {
          return error{errc::invalid_params, "uri template: bad prefix in \"" + t.text_ + "\""};
        }
        for (const char c : digits) {
          if (c < '0' || c > '9') {
            return error{errc::invalid_params, "uri template: bad prefix in \"" + t.text_ + "\""};
          }
          v.prefix = v.prefix * 10 + static_cast<std::size_t>(c - '0');
        }
        spec = spec.substr(0, colon);
      }
      if (!valid_varname(spec)) {
        return error{errc::invalid_params,
                     "uri template: invalid variable name in \"" + t.text_ + "\""};
      }
      v.name = std::string(spec);
      p.vars.push_back(std::move(v));
    }
    t.parts_.push_back(std::move(p));
    i = close + 1;
    if (t.parts_.size() > uri_template::max_parts) {
      // Matching recurses once per part: the bound keeps the recursion shallow.
      return error{errc::invalid_params, "uri template: more than " +
                                             std::to_string(uri_template::max_parts) +
                                             " literal and expression parts"};
    }
  }
  return t;
}

std::string uri_template::expand(const uri_variables& vars) const {
  std::string out;
  for (const auto& p : parts_) {
    if (p.op == 0) {
      out += p.literal;
      continue;
    }
    const auto r = rules_of(p.op);
    bool first = true;
    for (const auto& v : p.vars) {
      const auto it = vars.find(v.name);
      if (it == vars.end()) continue;
      out += first ? r.first : std::string_view(&r.sep, 1);
      first = false;
      const std::string_view value =
          v.prefix > 0 ? prefix_of(it->second, v.prefix) : std::string_view(it->second);
      if (r.named) {
        out += v.name;
        if (value.empty()) {
          if (p.op != ';') out += '=';
          continue;
        }
        out += '=';
      }
      encode_into(out, value, r.reserved);
    }
  }
  return out;
}

std::optional<uri_variables> uri_template::match(std::string_view uri) const {
  matcher m{parts_, uri};
  uri_variables vars;
  if (!m.run(0, 0, vars)) return std::nullopt;
  return vars;
}

std::vector<std::string> uri_template::variable_names() const {
  std::vector<std::string> out;
  for (const auto& p : parts_) {
    for (const auto& v : p.vars) out.push_back(v.name);
  }
  return out;
}

}  // namespace mcp
