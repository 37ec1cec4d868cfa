#!/usr/bin/env bash
# `mcpprobe load` against vegeta (github.com/tsenart/vegeta), the same HTTP
# server, the same request, the same open-loop rate, interleaved
# (mcpprobe, vegeta, mcpprobe, vegeta, …), each as a user types it:
#   mcpprobe load --rate R/s --duration D --call find_orders URL
#   vegeta attack -rate R/s -duration D -targets T -output F; vegeta report F
# CPU is user + system of the generator's processes (GNU time), the
# server's (bin/goodserver -http -stateless -json-response: one POST a
# call, no session) read from /proc around each run and printed beside it.
# Target: mcpprobe's median CPU ≤ 1.25× vegeta's (attack and report).
# Then one `--json` run gives the scheduler's lateness, sent − due per
# request (latency less service), the price of sleeping on timers.
# vegeta is built with `go install` into a temporary GOBIN: it is not a
# dependency of mcpprobe. RATE (1000), DURATION (5s), RUNS (3); VEGETA=path
# uses a vegeta already built, MCPPROBE=path another mcpprobe (a build to
# compare with). Needs `make build`, jq and GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${RATE:-1000}
dur=${DURATION:-5s}
runs=${RUNS:-3}
mcpprobe=${MCPPROBE:-./bin/mcpprobe}
command -v jq >/dev/null || { echo "bench-load: jq is missing: apt-get install jq" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-load: GNU time is missing: apt-get install time" >&2; exit 1; }
[ -x "$mcpprobe" ] && [ -x bin/goodserver ] || { echo "bench-load: run make build first" >&2; exit 1; }
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
vegeta=${VEGETA:-}
if [ -z "$vegeta" ]; then
  (cd "$work" && GOBIN="$work/bin" GOFLAGS=-mod=mod go install github.com/tsenart/vegeta/v12@v12.13.0)
  vegeta=$work/bin/vegeta
fi

bin/goodserver -http 127.0.0.1:0 -stateless -json-response >/dev/null 2>"$work/server.log" &
server=$!
pids+=("$server")
for _ in $(seq 1 100); do
  grep -q "listening on" "$work/server.log" && break
  sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$work/server.log" | head -1)
[ -n "$url" ] || { echo "bench-load: the server did not start" >&2; exit 1; }

# The request mcpprobe sends for --call find_orders (2026-07-28, stateless).
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find_orders","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"vegeta","version":"12"}}}}' >"$work/body.json"
cat >"$work/targets" <<EOF
POST $url
Content-Type: application/json
Accept: application/json, text/event-stream
MCP-Protocol-Version: 2026-07-28
Mcp-Method: tools/call
Mcp-Name: find_orders
@$work/body.json
EOF

# server_cpu: the server's CPU so far, in seconds.
server_cpu() { awk '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / 100 }' "/proc/$server/stat"; }
# cpu CMD…: the CPU of CMD in seconds (user + system, children included).
cpu() {
  /usr/bin/time -o "$work/time" -f '%U %S' "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; echo "bench-load: $1 failed" >&2; exit 1; }
  awk '{ printf "%.3f", $1 + $2 }' "$work/time"
}
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "mcpprobe load and vegeta at $rate/s for $dur against $url (goodserver -stateless -json-response), $runs runs each, interleaved"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| run | mcpprobe CPU | its server CPU | vegeta CPU (attack + report) | its server CPU |\n|---|---|---|---|---|\n'
ms=() vs=()
for i in $(seq 1 "$runs"); do
  s0=$(server_cpu)
  m=$(cpu "$mcpprobe" load --rate "$rate/s" --duration "$dur" --call find_orders "$url")
  s1=$(server_cpu)
  a=$(cpu "$vegeta" attack -rate "$rate/s" -duration "$dur" -targets "$work/targets" -output "$work/results.bin")
  r=$(cpu "$vegeta" report "$work/results.bin")
  s2=$(server_cpu)
  v=$(awk -v a="$a" -v b="$r" 'BEGIN { printf "%.3f", a + b }')
  ms+=("$m") vs+=("$v")
  printf '| %d | %s s | %s s | %s s (%s + %s) | %s s |\n' "$i" "$m" "$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f", b - a }')" \
    "$v" "$a" "$r" "$(awk -v a="$s1" -v b="$s2" 'BEGIN { printf "%.2f", b - a }')"
done
"$vegeta" report "$work/results.bin" | sed -n '1,3p;/^Status/p' | sed 's/^/  vegeta, last run: /'
mm=$(median "${ms[@]}") vm=$(median "${vs[@]}")
ratio=$(awk -v a="$mm" -v b="$vm" 'BEGIN { printf "%.2f", a / b }')
fail=0
if awk -v x="$ratio" 'BEGIN { exit !(x <= 1.25) }'; then verdict=PASS; else verdict=FAIL; fail=1; fi
echo "median CPU: mcpprobe $mm s, vegeta $vm s; mcpprobe ÷ vegeta ${ratio}× (target ≤ 1.25×)  $verdict"

# Lateness: sent − due of every request of one --json run, and mcpprobe's
# own report of its CPU beside the server's.
"$mcpprobe" load --json --rate "$rate/s" --duration "$dur" --call find_orders "$url" >"$work/load.json"
jq -r '.load as $l | $l.steps[0].all as $a | [range(0; $a.samples_ns | length) | $a.samples_ns[.] - $a.service_ns[.]] | sort as $d |
  "scheduler lateness (sent − due) over \($d | length) requests: p50 \($d[(length * 0.5 | floor)] / 1e3 | floor) µs, p99 \($d[(length * 0.99 | floor)] / 1e3 | floor) µs, max \($d[-1] / 1e3 | floor) µs" +
  (if $l.generator then "; generator CPU \($l.generator.cpu_ns / $l.generator.requests / 1e3 | . * 10 | floor / 10) µs a request" else "" end)' "$work/load.json"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
