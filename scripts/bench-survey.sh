#!/usr/bin/env bash
# A survey of 200 local servers (the Go fixture goodserver and variants:
# paginated, noisy, many tools) with --jobs 8 and with --jobs 1: servers
# per second, peak RSS of mcpprobe (GNU time's %M, the kernel's wait4
# peak), and the speed-up. Each figure is the median of RUNS runs (3).
# Then the same for 200 servers that each wait 100 ms before answering
# tools/list, as a server that starts slowly or calls a network does
# (npm servers take 380-470 ms to answer initialize here): the fixtures
# answer in a few milliseconds of CPU, so on 2 cores their survey is
# bound by CPU, and a wait is where --jobs pays.
# Needs `make build` (bin/mcpprobe, bin/goodserver, bin/rawserver) and
# GNU time. N changes the fleet's size.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
n=${N:-200}
for b in mcpprobe goodserver rawserver; do
  [ -x "bin/$b" ] || { echo "bench-survey: run make build first (bin/$b is missing)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-survey: GNU time is missing: apt-get install time" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
good=$(pwd)/bin/goodserver raw=$(pwd)/bin/rawserver
for i in $(seq 0 $((n - 1))); do
  case $((i % 4)) in
    0) printf '{"id":"s%03d","command":"%s"}\n' "$i" "$good" ;;
    1) printf '{"id":"s%03d","command":"%s","args":["-page-size","1"]}\n' "$i" "$good" ;;
    2) printf '{"id":"s%03d","command":"%s","args":["-banner","-pages","3"]}\n' "$i" "$raw" ;;
    3) printf '{"id":"s%03d","command":"%s","args":["-many","200"]}\n' "$i" "$raw" ;;
  esac
done >"$dir/fleet.jsonl"
for i in $(seq 0 $((n - 1))); do
  printf '{"id":"w%03d","command":"%s","args":["-slow-list","100ms"]}\n' "$i" "$raw"
done >"$dir/waiting.jsonl"

# measure JOBS FLEET: sets secs (median wall time) and mib (highest peak RSS).
measure() {
  local ts=() rss=0 out
  for _ in $(seq 1 "$runs"); do
    /usr/bin/time -o "$dir/time" -f '%e %M' ./bin/mcpprobe survey "$dir/$2.jsonl" --jobs "$1" -o "$dir/out.jsonl" 2>/dev/null
    [ "$(wc -l <"$dir/out.jsonl")" -eq "$n" ] || { echo "bench-survey: --jobs $1 wrote $(wc -l <"$dir/out.jsonl") lines, want $n" >&2; exit 1; }
    out=$(tail -1 "$dir/time")
    ts+=("${out% *}")
    [ "${out#* }" -gt "$rss" ] && rss=${out#* }
  done
  secs=$(printf '%s\n' "${ts[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  mib=$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')
}

row() { printf '  %-8s %10s %14s %14s\n' "$1" "$secs" "$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.1f", n / s }')" "$mib"; }
for fleet in fleet waiting; do
  if [ "$fleet" = fleet ]; then
    echo "survey of $n local servers (goodserver and rawserver variants) on $(nproc) cores, median of $runs runs"
  else
    echo "survey of $n local servers that each wait 100 ms before answering tools/list, median of $runs runs"
  fi
  printf '  %-8s %10s %14s %14s\n' jobs "wall (s)" "servers/s" "peak RSS (MiB)"
  measure 1 "$fleet"
  s1=$secs
  row 1
  measure 8 "$fleet"
  row 8
  echo "  speed-up of --jobs 8 over --jobs 1: $(awk -v a="$s1" -v b="$secs" 'BEGIN { printf "%.2f×", a / b }')"
done
