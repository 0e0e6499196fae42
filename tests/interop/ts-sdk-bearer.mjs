// Interop: the official TypeScript SDK client with bearer tokens against the demo server started
// as an OAuth 2.1 protected resource (--jwks --issuer --audience --scope mcp).
//   node ts-sdk-bearer.mjs URL TOKEN ADMIN_TOKEN
// Without a token: 401 with a WWW-Authenticate challenge whose resource_metadata document names
// the issuer. With TOKEN (scope "mcp"): list and call, unlock_admin hidden and refused with 403.
// With ADMIN_TOKEN (also "demo.admin"): unlock_admin listed and callable.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, adminToken] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`ts-sdk-bearer: FAIL: ${msg}`);
  process.exit(1);
};

// No token: the SDK's transport gets the 401; read the challenge ourselves too.
const bare = await fetch(url, {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
});
if (bare.status !== 401) fail(`no token: status ${bare.status}`);
const challenge = bare.headers.get("www-authenticate") ?? "";
const metadata = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
if (!metadata) fail(`no resource_metadata in ${challenge}`);
// The metadata URL names the canonical resource; fetch it from this server.
const prm = await (await fetch(new URL(new URL(metadata).pathname, url))).json();
if (!prm.authorization_servers?.includes("https://auth.interop")) fail(`metadata ${JSON.stringify(prm)}`);
try {
  await new Client({ name: "no-token", version: "1" }).connect(new StreamableHTTPClientTransport(new URL(url)));
  fail("connected without a token");
} catch (e) {
  if (!String(e).includes("401") && !String(e).toLowerCase().includes("unauthorized")) fail(`no token: ${e}`);
}

async function session(bearer) {
  const client = new Client({ name: "mcp-cpp-bearer", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  const names = (await client.listTools()).tools.map((t) => t.name);
  return { client, transport, names };
}

const plain = await session(token);
if (!plain.names.includes("echo")) fail(`tools/list lacks echo: ${plain.names}`);
if (plain.names.includes("unlock_admin")) fail("unlock_admin listed without demo.admin");
const echo = await plain.client.callTool({ name: "echo", arguments: { text: "with a token" } });
if (echo.content?.[0]?.text !== "with a token") fail(`echo returned ${JSON.stringify(echo)}`);
try {
  await plain.client.callTool({ name: "unlock_admin", arguments: {} });
  fail("unlock_admin ran without demo.admin");
} catch (e) {
  if (!String(e).includes("Forbidden: tool unlock_admin needs scope demo.admin")) {
    fail(`unlock_admin without the scope: ${e}`);
  }
}
await plain.transport.terminateSession();
await plain.client.close();

const admin = await session(adminToken);
if (!admin.names.includes("unlock_admin")) fail(`unlock_admin not listed with demo.admin: ${admin.names}`);
const unlocked = await admin.client.callTool({ name: "unlock_admin", arguments: {} });
if (unlocked.isError) fail(`unlock_admin failed: ${JSON.stringify(unlocked)}`);
await admin.transport.terminateSession();
await admin.client.close();
console.log("ts-sdk-bearer: ok (401 + metadata, scoped listing, 403 step-up, admin call)");
