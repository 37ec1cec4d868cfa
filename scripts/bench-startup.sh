#!/usr/bin/env bash
# Start-up cost, CPU (user + system of the process and what it waited for,
# the kernel's accounting) per run, interleaved in one run
# (scripts/bench/cputime: A B C … A B C …), on the same small server (the
# bundled Go SDK server, or SERVER="cmd args…"):
#   floor     scripts/bench/minimal-client replaying what mcpprobe sends: one
#             listing session by a raw Go program, the server's own cost
#             plus the least a client can add;
#   go-sdk    the official Go SDK's client listing the tools
#             (scripts/bench/sdk-client -list);
#   wire      mcpprobe wire, text, as a user types it (the gate);
#   wire-json mcpprobe wire --quiet --json (what the script measured first);
#   version   mcpprobe --version (no server).
# Targets: wire's median (text, as typed) no higher than go-sdk's;
# --version under 3 ms.
# Prints the machine and the load average before and after: on a shared
# machine compare the ratios, not the milliseconds.
# Needs `make build` and jq. RUNS (default 20) runs each after 2 warm-up.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-20}
command -v jq >/dev/null || { echo "bench-startup: jq is missing: apt-get install jq" >&2; exit 1; }
server=${SERVER:-./bin/goodserver}
[ -x bin/mcpprobe ] && [ -x "${server%% *}" ] || { echo "bench-startup: run make build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The clients are built as make build builds mcpprobe (without cgo,
# static), so that none of them pays the dynamic loader and another not.
go build -o "$work/cputime" ./scripts/bench/cputime
CGO_ENABLED=0 go build -o "$work/minimal-client" ./scripts/bench/minimal-client
CGO_ENABLED=0 go build -o "$work/sdk-client" ./scripts/bench/sdk-client
# shellcheck disable=SC2086 # SERVER is a command line
./bin/mcpprobe wire --quiet --trace "$work/trace.jsonl" -- $server >/dev/null
jq -r 'select(.dir=="send") | .raw' "$work/trace.jsonl" >"$work/frames"
echo "server: $server"
"$work/cputime" -n "$runs" -warmup 2 \
  "floor=$work/minimal-client $work/frames $server" \
  "go-sdk=$work/sdk-client -sdk go-sdk -list -- $server" \
  "wire=./bin/mcpprobe wire -- $server" \
  "wire-json=./bin/mcpprobe wire --quiet --json -- $server" \
  "version=./bin/mcpprobe --version" | tee "$work/out"
med() { awk -F'|' -v n="$1" '$2 ~ "^ "n" $" { gsub(/ ms/, "", $3); print $3 + 0 }' "$work/out"; }
fail=0
w=$(med wire) g=$(med go-sdk) v=$(med version) wj=$(med wire-json)
if awk -v a="$w" -v b="$g" 'BEGIN { exit !(a <= b) }'; then r=PASS; else r=FAIL; fail=1; fi
echo "wire (text, as typed) ÷ go-sdk (median CPU): $(awk -v a="$w" -v b="$g" 'BEGIN { printf "%.2f", a / b }')× (target ≤ 1)  $r"
echo "wire --quiet --json ÷ go-sdk (median CPU): $(awk -v a="$wj" -v b="$g" 'BEGIN { printf "%.2f", a / b }')×"
if awk -v a="$v" 'BEGIN { exit !(a < 3) }'; then r=PASS; else r=FAIL; fail=1; fi
echo "mcpprobe --version: $v ms of CPU (target < 3 ms)  $r"
exit $fail
