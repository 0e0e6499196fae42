#include "detail/round_state.hpp"

#include <mcp/content.hpp>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

#include "detail/random.hpp"
#include "detail/sha256.hpp"
#include <openssl/evp.h>

namespace mcp::detail {

namespace {

constexpr std::string_view prefix = "mrtr1.";
constexpr std::string_view aad = "mcp-cpp input round v1";
constexpr std::size_t nonce_bytes = 12;
constexpr std::size_t tag_bytes = 16;
/// A state larger than this (answers can be big: a sampled text) is refused before decrypting.
constexpr std::size_t max_token_bytes = std::size_t{1} << 20U;
/// Single-use records kept at most (the oldest expired ones go first).
constexpr std::size_t max_used = 100000;

/// Canonical JSON: object keys sorted, no whitespace. Recurses as deep as the value, which the
/// parser's depth limit bounds.
/// Appends the members of `o` in key order, leaving out those `skip` names.
template <class Skip>
void canonical_members(std::string& out, const json::object& o, Skip skip);

void canonical(std::string& out, const json::value& v) {
  if (const auto* o = v.if_object()) {
    canonical_members(out, *o, [](std::string_view) { return false; });
  } else if (const auto* a = v.if_array()) {
    out += '[';
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (i > 0) out += ',';
      canonical(out, (*a)[i]);
    }
    out += ']';
  } else {
    append_json(out, v);
  }
}

template <class Skip>
void canonical_members(std::string& out, const json::object& o, Skip skip) {
  // Most objects are small: their members are sorted in place, without an allocation.
  constexpr std::size_t inline_members = 16;
  std::array<const json::key_value_pair*, inline_members> few{};
  std::vector<const json::key_value_pair*> many;
  const json::key_value_pair** first = few.data();
  if (o.size() > inline_members) {
    many.resize(o.size());
    first = many.data();
  }
  std::size_t n = 0;
  for (const auto& kv : o) {
    if (!skip(kv.key())) first[n++] = &kv;
  }
  std::sort(first, first + n, [](const auto* a, const auto* b) { return a->key() < b->key(); });
  out += '{';
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    append_json_string(out, first[i]->key());
    out += ':';
    canonical(out, first[i]->value());
  }
  out += '}';
}

/// OpenSSL's algorithms, fetched once (an implicit fetch on every call costs more than the
/// work on a round's few hundred bytes).
const EVP_CIPHER* aes_256_gcm() {
  static EVP_CIPHER* const cipher = EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr);
  return cipher;
}
const EVP_MD* sha_256() {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

std::string to_base64url(std::string_view bytes) {
  std::string s = base64_encode(bytes);
  for (auto& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

std::optional<std::string> from_base64url(std::string_view text) {
  std::string s(text);
  for (auto& c : s) {
    if (c == '-') {
      c = '+';
    } else if (c == '_') {
      c = '/';
    } else if (c == '+' || c == '/' || c == '=') {
      return std::nullopt;  // not base64url
    }
  }
  while (s.size() % 4 != 0) s += '=';
  return base64_decode(s);
}

struct cipher_ctx {
  EVP_CIPHER_CTX* p = EVP_CIPHER_CTX_new();
  ~cipher_ctx() { EVP_CIPHER_CTX_free(p); }
  cipher_ctx() = default;
  cipher_ctx(const cipher_ctx&) = delete;
  cipher_ctx& operator=(const cipher_ctx&) = delete;
};

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string read_key(const input_round_options& o) {
  std::string key = o.key;
  if (key.empty() && !o.key_file.empty()) {
    std::ifstream in(o.key_file, std::ios::binary);
    if (!in) throw std::invalid_argument("input_rounds.key_file cannot be read: " + o.key_file);
    key.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
    if (key.size() == 64 && std::all_of(key.begin(), key.end(), [](char c) {
          return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        })) {
      std::string raw;
      for (std::size_t i = 0; i < 64; i += 2) {
        raw.push_back(static_cast<char>(std::stoi(key.substr(i, 2), nullptr, 16)));
      }
      key = std::move(raw);
    }
  }
  if (key.empty()) {
    key.resize(32);
    random_bytes(key.data(), key.size());
  }
  if (key.size() != 32) {
    throw std::invalid_argument(
        "input_rounds: the key must be 32 bytes (or a file of 32 bytes or 64 hex digits)");
  }
  return key;
}

error refused(std::string why) {
  return error{errc::invalid_params, "Invalid params: requestState " + std::move(why)};
}

}  // namespace

std::string params_digest(const json::object& params) {
  std::string text;
  text.reserve(256);
  canonical_members(text, params, [](std::string_view k) {
    return k == "_meta" || k == "inputResponses" || k == "requestState";
  });
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int size = 0;
  if (sha_256() == nullptr ||
      EVP_Digest(text.data(), text.size(), md.data(), &size, sha_256(), nullptr) != 1) {
    return sha256_hex(text);  // the SDK's own SHA-256, where OpenSSL has none
  }
  static constexpr std::string_view hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * std::size_t{size});
  for (unsigned int i = 0; i < size; ++i) {
    out += hex[md[i] >> 4U];
    out += hex[md[i] & 0xfU];
  }
  return out;
}

round_sealer::round_sealer(const input_round_options& opts, std::shared_ptr<shared_state> shared)
    : key_(read_key(opts)),
      expiry_(opts.expiry),
      single_use_(opts.single_use),
      shared_(std::move(shared)) {}

std::string round_sealer::seal(round_contents c) const {
  c.expires = std::chrono::system_clock::now() + expiry_;
  if (single_use_) c.nonce = random_hex(16);
  json::object answers;
  for (auto& [k, v] : c.answers) answers.emplace(k, std::move(v));
  json::array asked;
  for (const auto& k : c.asked) asked.emplace_back(k);
  json::object plain{
      {"p", c.principal},
      {"m", c.method},
      {"d", c.digest},
      {"x",
       std::chrono::duration_cast<std::chrono::milliseconds>(c.expires.time_since_epoch()).count()},
      {"a", std::move(answers)},
      {"k", std::move(asked)}};
  if (c.saved) plain["s"] = std::move(*c.saved);
  if (!c.nonce.empty()) plain["n"] = c.nonce;
  const std::string text = to_json_string(plain);

  std::string out(nonce_bytes + text.size() + tag_bytes, '\0');
  random_bytes(out.data(), nonce_bytes);
  cipher_ctx ctx;
  int n = 0;
  auto* cipher = reinterpret_cast<unsigned char*>(out.data() + nonce_bytes);
  const bool ok =
      ctx.p != nullptr && aes_256_gcm() != nullptr &&
      EVP_EncryptInit_ex(ctx.p, aes_256_gcm(), nullptr, bytes(key_), bytes(out)) == 1 &&
      EVP_EncryptUpdate(ctx.p, nullptr, &n, bytes(aad), static_cast<int>(aad.size())) == 1 &&
      EVP_EncryptUpdate(ctx.p, cipher, &n, bytes(text), static_cast<int>(text.size())) == 1 &&
      EVP_EncryptFinal_ex(ctx.p, cipher + n, &n) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.p, EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag_bytes),
                          out.data() + nonce_bytes + text.size()) == 1;
  if (!ok) throw std::runtime_error("input round: sealing failed (OpenSSL)");
  return std::string(prefix) + to_base64url(out);
}

result<round_contents> round_sealer::open(std::string_view token, std::string_view principal,
                                          std::string_view method, std::string_view digest) {
  if (token.size() > max_token_bytes || !token.starts_with(prefix)) {
    return refused("is not one this server issued");
  }
  auto raw = from_base64url(token.substr(prefix.size()));
  if (!raw || raw->size() < nonce_bytes + tag_bytes + 2) {
    return refused("is not one this server issued");
  }
  const std::size_t body = raw->size() - nonce_bytes - tag_bytes;
  std::string text(body, '\0');
  cipher_ctx ctx;
  int n = 0;
  auto* tag = raw->data() + nonce_bytes + body;
  auto* plain = reinterpret_cast<unsigned char*>(text.data());
  const bool ok =
      ctx.p != nullptr && aes_256_gcm() != nullptr &&
      EVP_DecryptInit_ex(ctx.p, aes_256_gcm(), nullptr, bytes(key_), bytes(*raw)) == 1 &&
      EVP_DecryptUpdate(ctx.p, nullptr, &n, bytes(aad), static_cast<int>(aad.size())) == 1 &&
      EVP_DecryptUpdate(ctx.p, plain, &n, bytes(*raw) + nonce_bytes, static_cast<int>(body)) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.p, EVP_CTRL_GCM_SET_TAG, static_cast<int>(tag_bytes), tag) == 1 &&
      EVP_DecryptFinal_ex(ctx.p, plain + n, &n) == 1;
  if (!ok) return refused("was altered, or is not one this server issued");
  auto v = parse_json(text);
  if (!v || !v->is_object()) return refused("is not one this server issued");
  const auto& o = v->get_object();
  auto str = [&o](std::string_view k) -> std::string {
    const auto* x = o.if_contains(k);
    return x != nullptr && x->is_string() ? std::string(x->get_string()) : std::string();
  };
  round_contents c;
  c.principal = str("p");
  c.method = str("m");
  c.digest = str("d");
  c.nonce = str("n");
  const auto* x = o.if_contains("x");
  if (x == nullptr || !x->is_int64()) return refused("is not one this server issued");
  c.expires = std::chrono::system_clock::time_point(std::chrono::milliseconds(x->get_int64()));
  if (std::chrono::system_clock::now() >= c.expires) return refused("has expired");
  if (c.principal != principal) return refused("was issued to another caller");
  if (c.method != method || c.digest != digest) return refused("belongs to another request");
  if (const auto* a = o.if_contains("a"); a != nullptr && a->is_object()) {
    for (const auto& [k, ans] : a->get_object()) {
      if (ans.is_object()) c.answers.emplace(std::string(k), ans.get_object());
    }
  }
  if (const auto* k = o.if_contains("k"); k != nullptr && k->is_array()) {
    for (const auto& key : k->get_array()) {
      if (key.is_string()) c.asked.emplace(key.get_string());
    }
  }
  if (const auto* s = o.if_contains("s")) c.saved = *s;
  if (single_use_ && (c.nonce.empty() || !first_use(c.nonce, c.expires))) {
    return refused("was used already");
  }
  return c;
}

bool round_sealer::first_use(const std::string& nonce,
                             std::chrono::system_clock::time_point expires) {
  if (shared_) {
    // Shared by every process; a record that cannot be checked refuses the state (a replay
    // must never pass because Redis was away).
    auto first = shared_->first_use(nonce, expires);
    return first && *first;
  }
  std::lock_guard lock(mu_);
  // Records leave in the order they came, once expired: every state expires a fixed time after
  // it was sealed, so the oldest record is (nearly) the first to expire, and a record kept a
  // little past its expiry is harmless (its state is refused as expired anyway).
  const auto now = std::chrono::system_clock::now();
  while (!used_order_.empty() && used_order_.front().first <= now) {
    used_.erase(used_order_.front().second);
    used_order_.pop_front();
  }
  if (used_.size() >= max_used) return false;  // full of live records: refuse, never forget
  if (!used_.emplace(nonce, expires).second) return false;
  used_order_.emplace_back(expires, nonce);
  return true;
}

}  // namespace mcp::detail
