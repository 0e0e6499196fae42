#!/bin/sh
# A browser without a person, for tests of the OAuth authorization code flow: given the
# authorization URL (as mcp-cpp runs $BROWSER URL), it takes the authorization server's redirect
# (which the suite's mock issues at once) and follows it to the client's loopback listener.
set -eu
location=$(curl -sS -o /dev/null -w '%{redirect_url}' "$1")
if [ -z "$location" ]; then
  echo "headless browser: $1 did not redirect" >&2
  exit 1
fi
curl -sS -o /dev/null "$location"
