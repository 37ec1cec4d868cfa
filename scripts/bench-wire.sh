#!/usr/bin/env bash
# Speed of `mcpprobe wire`, side by side in one run:
#   1. the server's own time to answer the same requests (scripts/bench/minimal-client),
#   2. mcpprobe wire,
#   3. MCP Inspector's CLI (--cli … --method tools/list),
# on the bundled Go SDK server. Prints hyperfine's table and the ratios.
# Needs hyperfine and jq (Debian packages) and `make build`,
# `scripts/install-peers.sh --bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-30}
for tool in hyperfine jq; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing: apt-get install $tool" >&2; exit 1; }
done
server=${SERVER:-./bin/goodserver}
inspector=scripts/bench/node_modules/.bin/mcp-inspector
[ -x bin/mcpprobe ] && [ -x "$server" ] || { echo "bench: run make build first" >&2; exit 1; }
peer=(-n inspector "$inspector --cli $server --method tools/list")
if [ ! -x "$inspector" ]; then
  echo "skipped: MCP Inspector's CLI (run scripts/install-peers.sh --bench to compare with it)"
  peer=()
fi
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
go build -o "$work/minimal-client" ./scripts/bench/minimal-client
# Replay exactly what mcpprobe sends, so both clients do the same work.
./bin/mcpprobe wire --quiet --trace "$work/trace.jsonl" "$server" >/dev/null
jq -r 'select(.dir=="send") | .raw' "$work/trace.jsonl" >"$work/frames"
echo "requests and notifications per run: $(wc -l <"$work/frames")"
export HOME=$work/home  # the Inspector writes its settings there
mkdir -p "$HOME"
hyperfine ${HYPERFINE_FLAGS:---style basic} --warmup 3 --runs "$runs" -N --export-json "$work/out.json" \
  -n server "$work/minimal-client $work/frames $server" \
  -n mcpprobe "./bin/mcpprobe wire --quiet --json $server" \
  "${peer[@]}" >/dev/null
jq -r '
  (.results | map({key: .command, value: .}) | from_entries) as $r |
  "| what | mean | median | stddev | runs |",
  "|---|---|---|---|---|",
  (.results[] | "| \(.command) | \((.mean*1000*10|round)/10) ms | \((.median*1000*10|round)/10) ms | \((.stddev*1000*10|round)/10) ms | \(.times|length) |"),
  "",
  "mcpprobe − server (median): \((($r.mcpprobe.median - $r.server.median)*1000*10|round)/10) ms (budget ~15 ms)",
  (if $r.inspector then "inspector ÷ mcpprobe (median): \(($r.inspector.median / $r.mcpprobe.median*10|round)/10)× (at least 10× required)" else empty end)
' "$work/out.json"
