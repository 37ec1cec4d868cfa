#!/usr/bin/env bash
# Speed of `mcpprobe wire`, side by side in one hyperfine run, on the same
# server (the bundled Go SDK server, or SERVER="cmd args…"):
#   1. the server's own time to answer the same requests
#      (scripts/bench/minimal-client replaying what mcpprobe sends),
#   2. mcpprobe wire,
#   3. MCP Inspector's CLI (--cli … --method tools/list), the newest pinned
#      (scripts/bench/package.json) and 0.15 (scripts/bench/inspector-0.15),
#   4. a go-sdk client and an mcp-go client listing the tools
#      (scripts/bench/sdk-client -list),
#   5. f/mcptools (`mcptools tools SERVER`) when MCPTOOLS names its binary
#      or it is on PATH: its Go module is not served by the proxy here.
# Prints hyperfine's table and each peer's median as a ratio to mcpprobe's.
# Needs hyperfine and jq (Debian packages) and `make build`; the Inspector
# rows need `scripts/install-peers.sh --bench`, or BENCH_PEERS naming a
# directory laid out like scripts/bench with those packages installed
# (npm --prefix DIR …), so that a shared node_modules is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-30}
for tool in hyperfine jq; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing: apt-get install $tool" >&2; exit 1; }
done
server=${SERVER:-./bin/goodserver}
peers=${BENCH_PEERS:-scripts/bench}
[ -x bin/mcpprobe ] && [ -x "${server%% *}" ] || { echo "bench: run make build first" >&2; exit 1; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
go build -o "$work/minimal-client" ./scripts/bench/minimal-client
go build -o "$work/sdk-client" ./scripts/bench/sdk-client
rows=(-n go-sdk "$work/sdk-client -sdk go-sdk -list -- $server"
  -n mcp-go "$work/sdk-client -sdk mcp-go -list -- $server")
for v in newest 0.15; do
  dir=$peers
  [ "$v" = 0.15 ] && dir=$peers/inspector-0.15
  inspector=$dir/node_modules/.bin/mcp-inspector
  if [ -x "$inspector" ]; then
    rows+=(-n "inspector $v" "$inspector --cli $server --method tools/list")
  else
    echo "skipped: MCP Inspector's CLI $v (not in $dir/node_modules: run scripts/install-peers.sh --bench, or set BENCH_PEERS)"
  fi
done
mcptools=${MCPTOOLS:-$(command -v mcptools || true)}
if [ -n "$mcptools" ]; then
  rows+=(-n mcptools "$mcptools tools $server")
else
  echo "skipped: f/mcptools (github.com/f/mcptools is not served by the Go module proxy here, so it cannot be built; set MCPTOOLS to its binary to include it)"
fi
# Replay exactly what mcpprobe sends, so both clients do the same work.
# shellcheck disable=SC2086 # SERVER is a command line
./bin/mcpprobe wire --quiet --trace "$work/trace.jsonl" -- $server >/dev/null
jq -r 'select(.dir=="send") | .raw' "$work/trace.jsonl" >"$work/frames"
echo "server: $server; requests and notifications per run: $(wc -l <"$work/frames"); $runs runs each"
export HOME=$work/home  # the Inspector writes its settings there
mkdir -p "$HOME"
hyperfine ${HYPERFINE_FLAGS:---style basic} --warmup 3 --runs "$runs" -N --export-json "$work/out.json" \
  -n server "$work/minimal-client $work/frames $server" \
  -n mcpprobe "./bin/mcpprobe wire --quiet --json -- $server" \
  "${rows[@]}" >/dev/null
jq -r '
  (.results | map({key: .command, value: .}) | from_entries) as $r |
  def ms: (. * 1000 * 10 | round) / 10;
  "| what | mean | median | stddev | runs | median ÷ mcpprobe |",
  "|---|---|---|---|---|---|",
  (.results[] | "| \(.command) | \(.mean|ms) ms | \(.median|ms) ms | \(.stddev|ms) ms | \(.times|length) | \((.median / $r.mcpprobe.median * 100 | round) / 100)× |"),
  "",
  "mcpprobe − server (median): \(($r.mcpprobe.median - $r.server.median)|ms) ms (budget ~15 ms)",
  (if $r["inspector newest"] then "inspector newest ÷ mcpprobe (median): \(($r["inspector newest"].median / $r.mcpprobe.median*10|round)/10)× (at least 10× required)" else empty end)
' "$work/out.json"
