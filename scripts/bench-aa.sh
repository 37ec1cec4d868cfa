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
# AA_ONLY=1 skips the +1 ms half (its gate too): for a long run that
# checks the test's calibration, the p-values' spread printed at the end.
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
        ([$c[] | select(.name != "call sleep" and .significant) | .name] | "\(length) \(join(", "))"),
        ([$c[] | .p] | map(tostring) | join(" "))'
}

echo "load average: $(cut -d" " -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "A = B = $a; $rounds rounds × $n calls per series, $warmup warm-up; $runs runs"
printf '| run | A/A ratio | p | significant | other series significant | +1 ms ratio | p | significant |\n|---|---|---|---|---|---|---|---|\n'
aa_sig=0 aa_other=0 slow_ok=0 aa_below=0 aa_ps=()
for r in $(seq 1 "$runs"); do
  mapfile -t x < <(run "$a")
  if [ "${AA_ONLY:-0}" = 1 ]; then y=("1 1 true" "0"); else mapfile -t y < <(run "$slow"); fi
  read -ra ps <<<"${x[2]}"
  aa_ps+=("${ps[@]}")
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
[ "${AA_ONLY:-0}" = 1 ] && slow_ok=$runs || echo "+1 ms, call sleep: significant with ratio > 1 in $slow_ok of $runs runs (want all)"
# The test's calibration: under the null every series' p is uniform
# (on the grid of 2^rounds sign patterns), so the share of the A/A p's
# under each level should be about that level; many more than that at
# the small levels is a test that claims differences too often. Over
# all series of all runs (AA_ONLY=1 RUNS=100 makes it 600 tests).
printf '%s\n' "${aa_ps[@]}" | awk -v n="${#aa_ps[@]}" '
  { for (i = 1; i <= 5; i++) if ($1 < lv[i]) c[i]++ }
  BEGIN { split("0.01 0.05 0.1 0.25 0.5", lv, " ") }
  END { printf "A/A p-values, all %d series tests: ", n; for (i = 1; i <= 5; i++) printf "%s under %s (%.1f expected)%s", c[i] + 0, lv[i], n * lv[i], (i < 5 ? ", " : "\n") }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
[ "$aa_sig" -eq 0 ] && [ "$aa_below" -ge "$lo" ] && [ "$aa_below" -le "$hi" ] && [ "$slow_ok" -eq "$runs" ]
