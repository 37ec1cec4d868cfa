#!/usr/bin/env bash
# The A/A check of `bench --vs`, live (the unit test, TestCompareRoundsAA,
# checks the statistics on synthetic rounds):
#   1. a server against itself must come out "no significant difference"
#      in every one of RUNS runs (default 20);
#   2. the A/A call ratio's sign is balanced: below 1 in no fewer than a
#      quarter and no more than three quarters of the runs (5..15 of 20):
#      a side that always wins by a hair, never significantly, is an
#      order or first-round bias the significance test cannot see (by
#      chance 20 fair runs fall outside 5..15 about 4% of the time);
#   3. against the same server with 1 ms added per call (rawserver
#      -call-sleep 1ms), significant, ratio above 1, in every run.
# Both on the call series (`--call sleep`, the tool -call-sleep slows); the
# other series (startup phases, exit, ping) are counted and shown too: each
# is its own test at the same level, so over six series an A/A run has
# about a 6% chance that one of them comes out significant by chance.
# Not part of make test: it takes about a minute. Needs jq and `make build`.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-20}
rounds=${ROUNDS:-10}
n=${N:-100}
warmup=${WARMUP:-10}
command -v jq >/dev/null || { echo "bench-aa: jq is missing: apt-get install jq" >&2; exit 1; }
[ -x bin/mcpprobe ] && [ -x bin/rawserver ] || { echo "bench-aa: run make build first" >&2; exit 1; }
a="bin/rawserver -bench-tools"
slow="bin/rawserver -bench-tools -call-sleep 1ms"

# run VS: one comparison of A with VS; prints the call series' ratio, p and
# verdict, then how many other series came out significant.
run() {
  ./bin/mcpprobe bench --json --quiet --rounds "$rounds" -n "$n" --warmup "$warmup" --call sleep --vs "$1" -- $a |
    jq -r '.bench.vs.comparisons as $c
      | ($c[] | select(.name == "call sleep") | "\(.ratio) \(.p) \(.significant)"),
        ([$c[] | select(.name != "call sleep" and .significant) | .name] | "\(length) \(join(", "))")'
}

echo "load average: $(cut -d" " -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "A = B = $a; $rounds rounds × $n calls per series, $warmup warm-up; $runs runs"
printf '| run | A/A ratio | p | significant | other series significant | +1 ms ratio | p | significant |\n|---|---|---|---|---|---|---|---|\n'
aa_sig=0 aa_other=0 slow_ok=0 aa_below=0
for r in $(seq 1 "$runs"); do
  mapfile -t x < <(run "$a")
  mapfile -t y < <(run "$slow")
  read -r ar ap as <<<"${x[0]}"
  read -r sr sp ss <<<"${y[0]}"
  [ "$as" = true ] && aa_sig=$((aa_sig + 1))
  awk -v v="$ar" 'BEGIN { exit !(v < 1) }' && aa_below=$((aa_below + 1))
  [ "${x[1]%% *}" != 0 ] && aa_other=$((aa_other + 1))
  [ "$ss" = true ] && awk -v v="$sr" 'BEGIN { exit !(v > 1) }' && slow_ok=$((slow_ok + 1))
  printf '| %d | %.3f | %.3g | %s | %s | %.2f | %.3g | %s |\n' "$r" "$ar" "$ap" "$as" "${x[1]}" "$sr" "$sp" "$ss"
done
echo
echo "A/A, call sleep: significant in $aa_sig of $runs runs (want 0)"
lo=$(( (runs + 3) / 4 )) hi=$(( runs - (runs + 3) / 4 ))
echo "A/A, call sleep: ratio below 1 in $aa_below of $runs runs (want $lo to $hi)"
echo "A/A, any other series significant: in $aa_other of $runs runs (reported, not gated)"
echo "+1 ms, call sleep: significant with ratio > 1 in $slow_ok of $runs runs (want all)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
[ "$aa_sig" -eq 0 ] && [ "$aa_below" -ge "$lo" ] && [ "$aa_below" -le "$hi" ] && [ "$slow_ok" -eq "$runs" ]
