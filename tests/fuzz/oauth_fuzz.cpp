// What an OAuth client reads from servers (mcp/oauth.hpp): the first byte picks the parser for
// the rest. 'W': a WWW-Authenticate value (parse_bearer_challenge); 'D': the same for its DPoP
// challenge; 'P': Protected Resource Metadata; 'A': authorization server metadata; 'T': a token
// endpoint's answer (token_response, DPoP tokens and token exchanges included); 'N': a
// DPoP-Nonce header value (src/auth/dpop.hpp); 'U': a URL for the discovery URL lists; anything
// else: a stored credentials object. Nothing may crash, hang, leak or throw: a parser returns a
// value or an error (an exception escapes and fails the run).
#include <mcp/oauth.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "auth/dpop.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace auth = mcp::auth;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  {
    switch (data[0]) {
      case 'W': {
        const auto c = auth::parse_bearer_challenge(rest);
        // What was read came from at most the first 8 KiB.
        if (c && c->scope.size() + c->resource_metadata.size() + c->error.size() > 8192) {
          std::abort();
        }
        break;
      }
      case 'D': {
        const auto c = auth::parse_challenge(rest, "DPoP");
        if (c && c->error.size() + c->resource_metadata.size() > 8192) std::abort();
        break;
      }
      case 'T': {
        const auto t = auth::token_response::parse(rest);
        if (!t) {
          if (t.error().message.empty()) std::abort();
          break;
        }
        if (t->access_token.empty() || t->expires_in < 0 || t->expires_in > 1000000000) {
          std::abort();
        }
        break;
      }
      case 'N': {
        // A nonce is sent back inside a signed proof: only NQCHARs, bounded.
        if (const auto n = auth::detail::dpop_nonce(rest)) {
          if (n->empty() || n->size() > 1024 || std::any_of(n->begin(), n->end(), [](char ch) {
                return ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x21 ||
                       static_cast<unsigned char>(ch) > 0x7e;
              })) {
            std::abort();
          }
        }
        break;
      }
      case 'P': {
        const auto m = auth::resource_metadata::parse(rest);
        if (!m) break;
        if (m->resource.empty() || m->authorization_servers.empty()) std::abort();
        // Its servers were checked to be absolute http(s) URLs: their lists can be made.
        if (!auth::server_metadata_urls(m->authorization_servers.front())) std::abort();
        break;
      }
      case 'A': {
        const auto m = auth::server_metadata::parse(rest);
        if (m && (m->issuer.empty() || m->token_endpoint.empty())) std::abort();
        break;
      }
      case 'U': {
        const auto a = auth::resource_metadata_urls(rest);
        const auto b = auth::server_metadata_urls(rest);
        if (a.has_value() != b.has_value()) std::abort();  // the same URLs are refused
        if (a && (a->empty() || b->size() < 2)) std::abort();
        break;
      }
      default: {
        auto v = mcp::parse_json(rest, mcp::json_limits{.max_size = 65536, .max_depth = 16});
        if (v && v->is_object()) {
          const auto c = auth::oauth_credentials::from_json(v->get_object());
          const auto again = auth::oauth_credentials::from_json(c.to_json());
          if (again.access_token != c.access_token || again.expires_at != c.expires_at) {
            std::abort();
          }
        }
        break;
      }
    }
  }
  return 0;
}
