#!/usr/bin/env bash
# Is `mcpprobe report` a pure function of what the server did? For each of
# a set of real servers (four SDKs: the TypeScript SDK 1.x and 2.x, the
# official Go SDK, mcp-go), writes the report N times and checks that every
# output is byte-identical to the first and that `report --check` against
# the first passes each time. With --load, two CPU burners (stress-ng when
# installed, else two shell loops) run for the whole time and are killed at
# the end: the machine is busier than any CI runner.
#
#   scripts/report-stability.sh [--load] [N] [-- REPORT_FLAGS…]
#
# N runs per server, default 10. Flags after "--" go to every report and
# check (--discover-timeout 30s, say, to tell a deadline a loaded machine
# misses from anything else).
#
# Needs Go and the npm peers (scripts/install-peers.sh). Prints one line per
# server and exits 1 if any server's reports differ or a check failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
load=0
n=10
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --load) load=1 ;;
    --) shift; extra=("$@"); break ;;
    ''|*[!0-9]*) echo "usage: $0 [--load] [N] [-- REPORT_FLAGS…]" >&2; exit 2 ;;
    *) n=$1 ;;
  esac
  shift
done
[ "$n" -ge 1 ] || { echo "N must be at least 1" >&2; exit 2; }

peers="$root/scripts/peers/node_modules/@modelcontextprotocol"
for f in "$peers/server-everything/dist/index.js" "$peers/server-filesystem/dist/index.js" \
  "$root/fixtures/tsserver2/node_modules/@modelcontextprotocol/server"; do
  [ -e "$f" ] || { echo "report-stability: $f is missing: run scripts/install-peers.sh" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/report-stability.XXXXXX")
burners=()
cleanup() {
  for p in "${burners[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null; done
  for p in "${burners[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "building mcpprobe and the Go servers…" >&2
(cd "$root" &&
  go build -o "$work/mcpprobe" ./cmd/mcpprobe &&
  go build -o "$work/mcpgoserver" ./fixtures/mcpgoserver &&
  go build -o "$work/rawserver" ./fixtures/rawserver &&
  go build -o "$work/go-sdk-hello" github.com/modelcontextprotocol/go-sdk/examples/server/hello &&
  go build -o "$work/go-sdk-everything" github.com/modelcontextprotocol/go-sdk/examples/server/everything) || exit 2

# server-filesystem serves a directory: a small fixed one.
mkdir -p "$work/files/sub"
printf 'hello\n' >"$work/files/a.txt"
printf 'nested\n' >"$work/files/sub/b.txt"

# name|command…, one server a line; the command is run by report after "--".
servers=(
  "server-everything (TS SDK 1.x, npm)|node $peers/server-everything/dist/index.js stdio"
  "server-filesystem (TS SDK 1.x, npm)|node $peers/server-filesystem/dist/index.js $work/files"
  "tsserver2 (TS SDK 2.x)|node $root/fixtures/tsserver2/server.mjs serve"
  "go-sdk hello (Go SDK)|$work/go-sdk-hello"
  "go-sdk everything (Go SDK)|$work/go-sdk-everything"
  "mcpgoserver (mcp-go)|$work/mcpgoserver"
  "rawserver: stderr, notifications, server requests|$work/rawserver -stderr-flood 20 -server-requests -unknown-id -invalid-flood 3"
  "slow boot: sleep 3, then server-everything|sh -c 'sleep 3; exec node $peers/server-everything/dist/index.js stdio'"
)

if [ "$load" = 1 ]; then
  if command -v stress-ng >/dev/null; then
    setsid stress-ng --cpu 2 --timeout 0 --quiet >/dev/null 2>&1 &
    burners+=($!)
    echo "load: stress-ng --cpu 2 (pid ${burners[0]})" >&2
  else
    for _ in 1 2; do
      setsid sh -c 'while :; do :; done' &
      burners+=($!)
    done
    echo "load: two shell loops (pids ${burners[*]})" >&2
  fi
fi

failed=0
printf '%-52s %5s %10s %8s %s\n' server runs identical "check 0" "seconds"
i=0
for entry in "${servers[@]}"; do
  i=$((i + 1))
  name=${entry%%|*}
  cmd=${entry#*|}
  dir="$work/s$i"
  mkdir -p "$dir"
  start=$(date +%s)
  # eval: the slow-boot entry quotes its sh -c script.
  eval "set -- $cmd"
  "$work/mcpprobe" report "${extra[@]}" --date 2026-01-01 --out "$dir/ref.md" -- "$@" 2>"$dir/ref.err"
  code=$?
  same=0 checks=0
  if [ "$code" -le 1 ] && [ -s "$dir/ref.md" ]; then
    for r in $(seq 1 "$n"); do
      "$work/mcpprobe" report "${extra[@]}" --date 2026-01-01 -- "$@" >"$dir/run$r.md" 2>"$dir/run$r.err"
      if cmp -s "$dir/ref.md" "$dir/run$r.md"; then
        same=$((same + 1))
      elif [ ! -e "$dir/first.diff" ]; then
        diff -u "$dir/ref.md" "$dir/run$r.md" >"$dir/first.diff"
      fi
      "$work/mcpprobe" report "${extra[@]}" --check "$dir/ref.md" -- "$@" >"$dir/check$r.out" 2>"$dir/check$r.err"
      c=$?
      if [ "$c" = 0 ]; then
        checks=$((checks + 1))
      elif [ ! -e "$dir/first.check" ]; then
        { echo "exit $c"; cat "$dir/check$r.out" "$dir/check$r.err"; } >"$dir/first.check"
      fi
    done
  fi
  secs=$(($(date +%s) - start))
  printf '%-52s %5d %7d/%-2d %5d/%-2d %s\n' "$name" "$n" "$same" "$n" "$checks" "$n" "$secs"
  if [ "$same" != "$n" ] || [ "$checks" != "$n" ]; then
    failed=1
    if [ "$code" -gt 1 ] || [ ! -s "$dir/ref.md" ]; then
      echo "  the first report failed (exit $code): $(head -c 300 "$dir/ref.err")"
    fi
    if [ -e "$dir/first.diff" ]; then
      echo "  the first difference:"
      grep '^[-+][^-+]' "$dir/first.diff" | head -6 | sed 's/^/    /'
    fi
    if [ -e "$dir/first.check" ]; then
      echo "  the first failed check:"
      grep -v '^ ' "$dir/first.check" | head -12 | cut -c1-300 | sed 's/^/    /'
    fi
  fi
done
if [ "$failed" = 0 ]; then
  echo "every report byte-identical, every check passed"
fi
exit "$failed"
