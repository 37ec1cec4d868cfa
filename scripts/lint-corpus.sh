#!/usr/bin/env bash
# Re-captures the hidden-content lint's corpus of real tool definitions
# (probe/hidden/testdata/corpus): each server below is installed from npm
# into a scratch folder, started with dummy credentials (most servers list
# their tools without a working key), and its tools/list captured with
# `mcpprobe wire --json`. Each file keeps the source package@version and,
# per tool, only what the lint reads: name, title, annotations.title,
# description and inputSchema, one tool a line. A server that does not start is skipped,
# and said so on stderr.
#
#   scripts/lint-corpus.sh [SCRATCH]      # SCRATCH defaults to a new temporary folder
#
# After a re-capture, run the lint's tests: a new real finding fails
# TestCorpusExpectations until it is reviewed into
# probe/hidden/testdata/expectations.txt as true or false.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/probe/hidden/testdata/corpus"
scratch=${1:-$(mktemp -d)}
command -v npm >/dev/null || { echo "lint-corpus: npm is needed" >&2; exit 1; }
command -v jq >/dev/null || { echo "lint-corpus: jq is needed" >&2; exit 1; }
(cd "$here" && go build -o "$scratch/mcpprobe" ./cmd/mcpprobe)

# Dummy credentials: enough for these servers to start and list.
export GITHUB_PERSONAL_ACCESS_TOKEN=dummy SLACK_BOT_TOKEN=xoxb-dummy SLACK_TEAM_ID=T0 \
  BRAVE_API_KEY=dummy GITLAB_PERSONAL_ACCESS_TOKEN=dummy GOOGLE_MAPS_API_KEY=dummy \
  FIRECRAWL_API_KEY=fc-dummy TAVILY_API_KEY=tvly-dummy EXA_API_KEY=dummy \
  SUPABASE_ACCESS_TOKEN=sbp_dummy HEROKU_API_KEY=dummy NOTION_TOKEN=dummy \
  SENTRY_ACCESS_TOKEN=dummy STRIPE_SECRET_KEY=sk_test_dummy PRIVATE_APP_ACCESS_TOKEN=dummy \
  MYSQL_HOST=127.0.0.1 MYSQL_PORT=1 MYSQL_USER=none MYSQL_DB=none \
  MCP_MODE=stdio FIGMA_API_KEY=dummy API_TOKEN=dummy CIRCLECI_TOKEN=dummy NEON_API_KEY=dummy \
  PINECONE_API_KEY=dummy APIFY_TOKEN=dummy API_KEY=dummy LARA_ACCESS_KEY_ID=dummy LARA_ACCESS_KEY_SECRET=dummy \
  PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

# package | command (from node_modules/.bin) | arguments. Tried and left out, since they do not
# list tools without a working service or key: @modelcontextprotocol/server-redis,
# @supabase/mcp-server-supabase, @heroku/mcp-server, @stripe/mcp, @cloudflare/mcp-server-cloudflare,
# @benborla29/mcp-server-mysql, @apify/actors-mcp-server, @21st-dev/magic, @railway/mcp-server.
servers=(
  "@modelcontextprotocol/server-everything|mcp-server-everything|"
  "@modelcontextprotocol/server-filesystem|mcp-server-filesystem|/tmp"
  "@modelcontextprotocol/server-memory|mcp-server-memory|"
  "@modelcontextprotocol/server-sequential-thinking|mcp-server-sequential-thinking|"
  "@modelcontextprotocol/server-github|mcp-server-github|"
  "@modelcontextprotocol/server-gitlab|mcp-server-gitlab|"
  "@modelcontextprotocol/server-slack|mcp-server-slack|"
  "@modelcontextprotocol/server-brave-search|mcp-server-brave-search|"
  "@modelcontextprotocol/server-google-maps|mcp-server-google-maps|"
  "@modelcontextprotocol/server-puppeteer|mcp-server-puppeteer|"
  "@modelcontextprotocol/server-postgres|mcp-server-postgres|postgresql://127.0.0.1:1/none"
  "@playwright/mcp|playwright-mcp|"
  "chrome-devtools-mcp|chrome-devtools-mcp|"
  "@notionhq/notion-mcp-server|notion-mcp-server|"
  "@upstash/context7-mcp|context7-mcp|"
  "firecrawl-mcp|firecrawl-mcp|"
  "mcp-server-kubernetes|mcp-server-kubernetes|"
  "@browsermcp/mcp|mcp-server-browsermcp|"
  "tavily-mcp|tavily-mcp|"
  "exa-mcp-server|exa-mcp-server|"
  "@azure/mcp|azmcp|server start"
  "@sentry/mcp-server|sentry-mcp|--access-token=dummy"
  "mongodb-mcp-server|mongodb-mcp-server|"
  "@hubspot/mcp-server|mcp-hubspot|"
  "@wonderwhy-er/desktop-commander|desktop-commander|"
  "@agentdeskai/browser-tools-mcp|browser-tools-mcp|"
  "n8n-mcp|n8n-mcp|"
  "@openbnb/mcp-server-airbnb|mcp-server-airbnb|"
  "figma-developer-mcp|figma-developer-mcp|--stdio"
  "@executeautomation/playwright-mcp-server|playwright-mcp-server|"
  "@kimtaeyoon83/mcp-server-youtube-transcript|mcp-server-youtube-transcript|"
  "mcp-server-code-runner|mcp-server-code-runner|"
  "@brightdata/mcp|mcp|"
  "@circleci/mcp-server-circleci|mcp-server-circleci|"
  "@neondatabase/mcp-server-neon|mcp-server-neon|start dummy"
  "@pinecone-database/mcp|pinecone-mcp|"
  "@shopify/dev-mcp|shopify-dev-mcp|"
  "@translated/lara-mcp|lara-mcp|"
)
# capture SOURCE FILE DIR COMMAND ARGS…: one server's tools into FILE.
capture() {
  local src=$1 file=$2 dir=$3 json
  shift 3
  if ! json=$(cd "$dir" && "$scratch/mcpprobe" wire --json --inherit-env --startup-timeout 60s --timeout 30s -- "$@" 2>/dev/null) ||
    [ "$(jq '.wire.tools | length' <<<"$json")" = 0 ]; then
    echo "lint-corpus: $src: did not start or listed no tools, skipped" >&2
    return
  fi
  jq --arg src "$src" '{source: $src, tools: [.wire.tools[] |
      {name, title, annotations: (if .annotations.title then {title: .annotations.title} else null end), description, inputSchema}
      | with_entries(select(.value != null))]}' <<<"$json" |
    jq -r '"{\"source\": \(.source | tojson), \"tools\": [", (.tools | map(tojson) | join(",\n")), "]}"' >"$out/$file.json"
  echo "$src: $(jq '.tools | length' "$out/$file.json") tools"
}

for line in "${servers[@]}"; do
  IFS='|' read -r pkg bin args <<<"$line"
  dir="$scratch/pkgs/$(echo "$pkg" | tr '/@' '__')"
  if [ ! -x "$dir/node_modules/.bin/$bin" ]; then
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --ignore-scripts "$pkg" >/dev/null 2>&1 ||
      { echo "lint-corpus: $pkg: npm install failed, skipped" >&2; continue; }
  fi
  version=$(jq -r .version "$dir/node_modules/$pkg/package.json")
  # shellcheck disable=SC2086
  capture "npm:$pkg@$version" "$(echo "$pkg" | tr '/@' '__' | sed 's/^_//')" "$dir" "node_modules/.bin/$bin" $args
done

# Go servers from the module proxy: the SDKs' example servers.
gomod="$scratch/gomod"
mkdir -p "$gomod"
(cd "$gomod" && { [ -f go.mod ] || go mod init corpusbuild >/dev/null 2>&1; } &&
  go get github.com/mark3labs/mcp-go/examples/everything@v1.2.1 github.com/mark3labs/mcp-go/server@v1.2.1 \
    github.com/modelcontextprotocol/go-sdk/mcp@v1.8.0 >/dev/null 2>&1) ||
  echo "lint-corpus: the Go module proxy did not serve the SDKs; Go servers skipped" >&2
for ex in github.com/mark3labs/mcp-go/examples/everything@v1.2.1 github.com/mark3labs/mcp-go/examples/typed_tools@v1.2.1 \
  github.com/mark3labs/mcp-go/examples/structured_input_and_output@v1.2.1 \
  github.com/modelcontextprotocol/go-sdk/examples/server/everything@v1.8.0 \
  github.com/modelcontextprotocol/go-sdk/examples/server/memory@v1.8.0 \
  github.com/modelcontextprotocol/go-sdk/examples/server/hello@v1.8.0; do
  pkg=${ex%@*}
  name=$(echo "$pkg" | sed 's|github.com/||; s|/examples/server/|-|; s|/examples/|-|; s|/|_|g')
  (cd "$gomod" && go build -o "$scratch/go-$name" "$pkg") 2>/dev/null ||
    { echo "lint-corpus: $ex: did not build, skipped" >&2; continue; }
  capture "go:$ex" "go_$name" "$gomod" "$scratch/go-$name"
done
