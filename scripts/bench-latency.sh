#!/usr/bin/env bash
# Latency accuracy, side by side in one run:
#   1. against a server that sleeps a known 5 ms per call, mcpprobe bench's
#      p50 must fall within 5.0–6.0 ms;
#   2. on that server, mcpprobe's p50 must be no higher than the official
#      TypeScript SDK client's (callTool round trips, scripts/bench/ts-client.mjs);
#   3. the per-call floor: on a server that answers at once (rawserver
#      -bench-tools, echo), mcpprobe's p50 over a real pipe next to a minimal
#      client's that writes a line and reads a line (scripts/bench/minimal-client
#      -calls), alternating in the same run; the target is ≤ 1.5×.
# Runs alternate (mcpprobe, TS, mcpprobe, TS …) so both see the same machine.
# Needs jq, `make build` and, for 1–2, `scripts/install-peers.sh --bench`
# (without it they are skipped and said so).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
n=${N:-300}
warmup=${WARMUP:-30}
command -v jq >/dev/null || { echo "bench: jq is missing: apt-get install jq" >&2; exit 1; }
[ -x bin/mcpprobe ] && [ -x bin/rawserver ] || { echo "bench: run make build first" >&2; exit 1; }
ms() { awk -v v="$1" 'BEGIN { printf "%.3f", v / 1e6 }'; }
us() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1e3 }'; }
fail=0
floor() {
  local fast=(bin/rawserver -bench-tools) mc=bin/minimal-client m f r ratios=()
  go build -o "$mc" ./scripts/bench/minimal-client
  echo "per-call floor: ${fast[*]}, echo; $n calls after $warmup warm-up, $rounds rounds"
  printf '| round | mcpprobe p50 | minimal client p50 | ratio |\n|---|---|---|---|\n'
  for r in $(seq 1 "$rounds"); do
    m=$(./bin/mcpprobe bench --json --quiet --startup 0 -n "$n" --warmup "$warmup" --call echo --args '{"text":"a","n":3}' -- "${fast[@]}" | jq '.bench.calls[0].p50_ns')
    f=$("$mc" -calls "$n" -warmup "$warmup" -- "${fast[@]}" | jq '.p50_ns')
    ratios+=("$(awk -v a="$m" -v b="$f" 'BEGIN { printf "%.2f", a / b }')")
    printf '| %d | %s µs | %s µs | %s× |\n' "$r" "$(us "$m")" "$(us "$f")" "${ratios[-1]}"
  done
  local med
  med=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  if awk -v v="$med" 'BEGIN { exit !(v <= 1.5) }'; then echo "  median ratio $med× (target ≤ 1.5×)  PASS"; else echo "  median ratio $med× (target ≤ 1.5×)  FAIL"; fail=1; fi
  local overhead
  overhead=$(./bin/mcpprobe bench --json --quiet --startup 0 -n 1 --warmup 0 --call echo --args '{"text":"a","n":3}' -- "${fast[@]}" | jq '.bench.overhead_ns')
  echo "client cost alone (in-process echo peer, no pipe, bench's overhead_ns): $(us "$overhead") µs"
}
floor
if [ ! -d scripts/bench/node_modules/@modelcontextprotocol/sdk ]; then
  echo "skipped: the 5 ms accuracy and TS SDK comparison need scripts/install-peers.sh --bench"
  exit $fail
fi
server=(bin/rawserver -bench-tools -call-sleep 5ms)
echo "server: ${server[*]} (tools/call sleeps 5 ms); $n calls after $warmup warm-up, $rounds rounds"
printf '| round | mcpprobe p50 | TS SDK client p50 | mcpprobe p95 | TS SDK p95 |\n|---|---|---|---|---|\n'
for r in $(seq 1 "$rounds"); do
  m=$(./bin/mcpprobe bench --json --quiet --startup 0 -n "$n" --warmup "$warmup" --call sleep --args '{"mode":"fast"}' -- "${server[@]}")
  t=$(node scripts/bench/ts-client.mjs "$n" "$warmup" sleep '{"mode":"fast"}' -- "${server[@]}")
  mp50=$(jq '.bench.calls[0].p50_ns' <<<"$m"); mp95=$(jq '.bench.calls[0].p95_ns' <<<"$m")
  tp50=$(jq '.p50_ns' <<<"$t"); tp95=$(jq '.p95_ns' <<<"$t")
  printf '| %d | %s ms | %s ms | %s ms | %s ms |\n' "$r" "$(ms "$mp50")" "$(ms "$tp50")" "$(ms "$mp95")" "$(ms "$tp95")"
  awk -v v="$mp50" 'BEGIN { exit !(v >= 5e6 && v <= 6e6) }' || { echo "  round $r: mcpprobe p50 outside 5.0–6.0 ms"; fail=1; }
  awk -v a="$mp50" -v b="$tp50" 'BEGIN { exit !(a <= b) }' || { echo "  round $r: mcpprobe p50 above the TS SDK client's"; fail=1; }
done
exit $fail
