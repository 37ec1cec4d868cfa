#!/usr/bin/env bash
# Latency accuracy, side by side in one run:
#   1. against a server that sleeps a known 5 ms per call, mcpprobe bench's
#      p50 must fall within 5.0–6.0 ms;
#   2. on that server, mcpprobe's p50 must be no higher than the official
#      TypeScript SDK client's (callTool round trips, scripts/bench/ts-client.mjs).
# Runs alternate (mcpprobe, TS, mcpprobe, TS …) so both see the same machine.
# Needs jq, `make build` and `scripts/install-peers.sh --bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
n=${N:-300}
warmup=${WARMUP:-30}
command -v jq >/dev/null || { echo "bench: jq is missing: apt-get install jq" >&2; exit 1; }
[ -x bin/mcpprobe ] && [ -x bin/rawserver ] || { echo "bench: run make build first" >&2; exit 1; }
[ -d scripts/bench/node_modules/@modelcontextprotocol/sdk ] || { echo "bench: run scripts/install-peers.sh --bench first" >&2; exit 1; }
server=(bin/rawserver -bench-tools -call-sleep 5ms)
ms() { awk -v v="$1" 'BEGIN { printf "%.3f", v / 1e6 }'; }
echo "server: ${server[*]} (tools/call sleeps 5 ms); $n calls after $warmup warm-up, $rounds rounds"
printf '| round | mcpprobe p50 | TS SDK client p50 | mcpprobe p95 | TS SDK p95 |\n|---|---|---|---|---|\n'
fail=0
for r in $(seq 1 "$rounds"); do
  m=$(./bin/mcpprobe bench --json --quiet --startup 0 -n "$n" --warmup "$warmup" --call sleep --args '{"mode":"fast"}' -- "${server[@]}")
  t=$(node scripts/bench/ts-client.mjs "$n" "$warmup" sleep '{"mode":"fast"}' -- "${server[@]}")
  mp50=$(jq '.bench.calls[0].p50_ns' <<<"$m"); mp95=$(jq '.bench.calls[0].p95_ns' <<<"$m")
  tp50=$(jq '.p50_ns' <<<"$t"); tp95=$(jq '.p95_ns' <<<"$t")
  printf '| %d | %s ms | %s ms | %s ms | %s ms |\n' "$r" "$(ms "$mp50")" "$(ms "$tp50")" "$(ms "$mp95")" "$(ms "$tp95")"
  awk -v v="$mp50" 'BEGIN { exit !(v >= 5e6 && v <= 6e6) }' || { echo "  round $r: mcpprobe p50 outside 5.0–6.0 ms"; fail=1; }
  awk -v a="$mp50" -v b="$tp50" 'BEGIN { exit !(a <= b) }' || { echo "  round $r: mcpprobe p50 above the TS SDK client's"; fail=1; }
done
overhead=$(./bin/mcpprobe bench --json --quiet --startup 0 -n 1 --warmup 0 --call echo -- bin/rawserver -bench-tools | jq '.bench.overhead_ns')
echo "probe overhead (in-process echo peer, p50): $(awk -v v="$overhead" 'BEGIN { printf "%.1f", v / 1e3 }') µs"
exit $fail
