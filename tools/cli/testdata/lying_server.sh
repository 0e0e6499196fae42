#!/bin/sh
# A scripted MCP server over stdio whose tool `count` declares an outputSchema ({"n": integer})
# and then answers with {"n": "many"}: the client must refuse the result. It expects mcp-cpp's
# order: initialize (id 1), notifications/initialized, tools/list (id 2), tools/call (id 3).
read -r line
echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"liar","version":"1"}}}'
read -r line
read -r line
echo '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"count","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},"annotations":{"readOnlyHint":true}}]}}'
read -r line
echo '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"many"}],"structuredContent":{"n":"many"}}}'
read -r line
