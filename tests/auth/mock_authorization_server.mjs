// A mock OAuth 2.1 authorization server for end-to-end tests of mcp-cpp's OAuth client against
// the demo server as a protected resource. Node.js only (no packages).
//
//   node mock_authorization_server.mjs JWKS_OUT ACCESS_TOKEN_SECONDS
//
// Writes its public key set to JWKS_OUT, prints "listening http://127.0.0.1:PORT" and serves:
// RFC 8414 metadata, dynamic registration (RFC 7591), an authorization endpoint that redirects
// at once (no person: it approves every request) and a token endpoint issuing RS256 JWT access
// tokens (iss, aud = the `resource` parameter, sub, client_id, scope) with refresh tokens. It
// checks PKCE S256, the client's secret and that `resource` is the same at both steps. Each
// request is logged on stdout as one JSON line ({"event": ..., ...}) for the test to read.
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";

const [jwksOut, ttlText] = process.argv.slice(2);
const ttl = Number(ttlText ?? 3600);
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
writeFileSync(jwksOut, JSON.stringify({ keys: [{ ...publicKey.export({ format: "jwk" }), kid: "k1", alg: "RS256", use: "sig" }] }));

const b64url = (b) => Buffer.from(b).toString("base64url");
const clients = new Map(); // client_id -> secret
const codes = new Map(); // code -> {client_id, challenge, resource, scope, redirect_uri}
const refreshTokens = new Map(); // token -> {client_id, resource, scope}
let issuer = "";

const log = (event, details) => console.log(JSON.stringify({ event, ...details }));
const json = (res, status, body) => {
  res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store" });
  res.end(JSON.stringify(body));
};
const oauthError = (res, status, error, description) => {
  log("refused", { error, description });
  json(res, status, { error, error_description: description });
};

function accessToken(client_id, resource, scope) {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: "RS256", typ: "at+jwt", kid: "k1" }));
  const claims = { iss: issuer, aud: resource, sub: "tester", client_id, scope, iat: now, exp: now + ttl };
  const input = `${header}.${b64url(JSON.stringify(claims))}`;
  return `${input}.${b64url(sign("sha256", Buffer.from(input), privateKey))}`;
}

function issue(res, client_id, resource, scope) {
  const refresh = b64url(randomBytes(16));
  refreshTokens.set(refresh, { client_id, resource, scope });
  json(res, 200, { access_token: accessToken(client_id, resource, scope), token_type: "Bearer",
    expires_in: ttl, refresh_token: refresh, scope });
}

/// The client, authenticated by HTTP Basic, by client_secret_post, or public (none).
function client(req, form) {
  const basic = req.headers.authorization ?? "";
  if (basic.startsWith("Basic ")) {
    const [id, secret] = Buffer.from(basic.slice(6), "base64").toString().split(":").map(decodeURIComponent);
    return clients.get(id) === secret ? id : null;
  }
  const id = form.get("client_id");
  if (!clients.has(id)) return null;
  const secret = clients.get(id);
  return secret === "" || secret === form.get("client_secret") ? id : null;
}

const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const url = new URL(req.url, issuer);
    if (req.method === "GET" && url.pathname === "/.well-known/oauth-authorization-server") {
      log("metadata", {});
      return json(res, 200, { issuer, authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`, registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"], grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"] });
    }
    if (req.method === "POST" && url.pathname === "/register") {
      const reg = JSON.parse(body);
      const client_id = `client-${clients.size + 1}`;
      const secret = reg.token_endpoint_auth_method === "none" ? "" : b64url(randomBytes(12));
      clients.set(client_id, secret);
      log("register", { client_id, redirect_uris: reg.redirect_uris });
      return json(res, 201, { client_id, ...(secret && { client_secret: secret }),
        token_endpoint_auth_method: secret ? "client_secret_basic" : "none", redirect_uris: reg.redirect_uris });
    }
    if (req.method === "GET" && url.pathname === "/authorize") {
      const q = url.searchParams;
      log("authorize", { client_id: q.get("client_id"), scope: q.get("scope"), resource: q.get("resource") });
      if (!clients.has(q.get("client_id")) || q.get("code_challenge_method") !== "S256") {
        return oauthError(res, 400, "invalid_request", "unknown client or no PKCE S256");
      }
      const code = b64url(randomBytes(12));
      codes.set(code, { client_id: q.get("client_id"), challenge: q.get("code_challenge"),
        resource: q.get("resource"), scope: q.get("scope") ?? "", redirect_uri: q.get("redirect_uri") });
      const back = new URL(q.get("redirect_uri"));
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state"));
      res.writeHead(302, { Location: back.toString() });
      return res.end();
    }
    if (req.method === "POST" && url.pathname === "/token") {
      const form = new URLSearchParams(body);
      const id = client(req, form);
      if (id === null) return oauthError(res, 401, "invalid_client", "client authentication failed");
      if (form.get("grant_type") === "authorization_code") {
        const c = codes.get(form.get("code"));
        codes.delete(form.get("code"));
        const verifier = form.get("code_verifier") ?? "";
        if (!c || c.client_id !== id || c.redirect_uri !== form.get("redirect_uri") ||
            b64url(createHash("sha256").update(verifier).digest()) !== c.challenge ||
            c.resource !== form.get("resource")) {
          return oauthError(res, 400, "invalid_grant", "code, PKCE verifier, redirect_uri or resource wrong");
        }
        log("token", { grant: "authorization_code", client_id: id, scope: c.scope, resource: c.resource });
        return issue(res, id, c.resource, c.scope);
      }
      if (form.get("grant_type") === "refresh_token") {
        const r = refreshTokens.get(form.get("refresh_token"));
        refreshTokens.delete(form.get("refresh_token"));
        if (!r || r.client_id !== id) return oauthError(res, 400, "invalid_grant", "unknown refresh token");
        log("token", { grant: "refresh_token", client_id: id, scope: r.scope, resource: r.resource });
        return issue(res, id, r.resource, r.scope);
      }
      return oauthError(res, 400, "unsupported_grant_type", String(form.get("grant_type")));
    }
    res.writeHead(404);
    res.end();
  });
});
server.listen(0, "127.0.0.1", () => {
  issuer = `http://127.0.0.1:${server.address().port}`;
  console.log(`listening ${issuer}`);
});
