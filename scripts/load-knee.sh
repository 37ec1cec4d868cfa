#!/usr/bin/env bash
# The knee of `mcpprobe load`, live, against a server of known capacity:
# goodserver -http -workers K -service S serves tools/call with K workers
# each holding a call S, a capacity of K/S calls per second. A ramp from
# half to one and a half times that, in tenths, with --max-p99 at 5 × S,
# must break the bound within 10% of K/S. Then the coordinated-omission
# check: a server that stalls 1 s on its 5th call must show the stall in
# p99 (an open loop charges every request due during the stall its wait).
# Not part of make test (timing: it takes about a minute). Needs jq and
# `make build`.
set -euo pipefail
cd "$(dirname "$0")/.."
k=${K:-2}
service_ms=${SERVICE_MS:-50}
step_s=${STEP:-4s}
runs=${RUNS:-3}
sessions=${SESSIONS:-32}
command -v jq >/dev/null || { echo "load-knee: jq is missing: apt-get install jq" >&2; exit 1; }
[ -x bin/mcpprobe ] && [ -x bin/goodserver ] || { echo "load-knee: run make build first" >&2; exit 1; }

# serve ARGS…: starts goodserver -http and sets url to where it listens.
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
serve() {
  local log
  log=$(mktemp)
  bin/goodserver -http 127.0.0.1:0 "$@" >/dev/null 2>"$log" &
  pids+=($!)
  for _ in $(seq 1 100); do
    grep -q "listening on" "$log" && break
    sleep 0.1
  done
  url=$(sed -n 's/^listening on //p' "$log" | head -1)
  rm -f "$log"
}

cap=$(( k * 1000 / service_ms ))
from=$(( cap / 2 )) to=$(( cap * 3 / 2 )) step=$(( cap / 10 ))
serve -workers "$k" -service "${service_ms}ms"
echo "capacity K/S = $k / ${service_ms} ms = $cap/s; ramp $from:$to:$step, $step_s a step, --max-p99 $(( 5 * service_ms ))ms; load average $(cut -d' ' -f1 /proc/loadavg)"
printf '| run | knee | last good | knee / capacity | why |\n|---|---|---|---|---|\n'
bad=0
for r in $(seq 1 "$runs"); do
  out=$(./bin/mcpprobe load --json --quiet --ramp "$from:$to:$step" --duration "$step_s" \
    --max-p99 "$(( 5 * service_ms ))ms" --sessions "$sessions" --call find_orders "$url")
  read -r knee good why < <(jq -r '.load.knee | "\(.knee_rate) \(.last_good_rate) \(.why)"' <<<"$out")
  ratio=$(awk -v a="$knee" -v c="$cap" 'BEGIN { if (a == "null") print "none"; else printf "%.2f", a / c }')
  printf '| %d | %s/s | %s/s | %s | %s |\n' "$r" "$knee" "$good" "$ratio" "$why"
  awk -v x="$ratio" 'BEGIN { exit !(x == "none" || x < 0.9 || x > 1.1) }' && bad=$((bad + 1))
done

serve -stall-after 5 -stall 1s
p99=$(./bin/mcpprobe load --json --quiet --rate 50/s --requests 100 --sessions 1 --call find_orders "$url" |
  jq -r '.load.steps[0].all | "\(.p99_ns / 1e6 | floor) ms p99, \(.service_p99_ns / 1e6 | floor) ms service p99, \([.samples_ns[] | select(. >= 500e6)] | length) of \(.n) requests over 500 ms"')
echo "stall of 1 s on the 5th of 100 calls at 50/s, one session: $p99"
[ "$bad" -eq 0 ] || { echo "load-knee: $bad of $runs runs found the knee more than 10% from the capacity" >&2; exit 1; }
