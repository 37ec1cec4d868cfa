#!/usr/bin/env bash
# Token counting, probe/tokens against tiktoken-go (the implementation it
# replaced, kept as the tests' reference), side by side in one run, with the
# ratio of each pair. Includes the reference's slow cases (an 80,000-character
# run takes it about 10 s; 1,000,000 characters never finished, so that case
# is timed for probe/tokens alone).
#
#   scripts/bench-tokens.sh                 # every benchmark, about a minute
#   BENCH=FreshProcess scripts/bench-tokens.sh
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(go test -run '^$' -bench "${BENCH:-.}" -benchtime "${BENCHTIME:-1s}" ./probe/tokens/ -args -reflong)
echo "$out" | grep '^Benchmark'
echo
echo "$out" | awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	n = split(name, part, "/"); impl = part[n]
	key = substr(name, 1, length(name) - length(impl) - 1)
	sub(/^Benchmark/, "", key)
	ns[key, impl] = $3
	for (i = 4; i < NF; i++) if ($(i+1) == "peak-RSS-MiB") rss[key, impl] = $i
	if (!(key in seen)) { seen[key] = 1; order[++keys] = key }
}
function ms(x) { return sprintf("%.3f ms", x / 1e6) }
END {
	printf "%-28s %14s %14s %10s   %s\n", "case", "probe/tokens", "tiktoken-go", "ratio", "peak RSS (MiB): probe/tokens, tiktoken-go, process floor"
	for (k = 1; k <= keys; k++) {
		key = order[k]
		if (!((key, "ours") in ns)) continue
		ref = ((key, "tiktoken-go") in ns) ? ms(ns[key, "tiktoken-go"]) : "not run"
		ratio = ((key, "tiktoken-go") in ns) ? sprintf("%.1fx", ns[key, "tiktoken-go"] / ns[key, "ours"]) : "-"
		mem = ""
		if ((key, "ours") in rss) mem = sprintf("%s, %s, %s", rss[key, "ours"], ((key, "tiktoken-go") in rss) ? rss[key, "tiktoken-go"] : "-", rss[key, "none"])
		if ((key, "none") in ns) mem = mem sprintf("; the process alone takes %s", ms(ns[key, "none"]))
		printf "%-28s %14s %14s %10s   %s\n", key, ms(ns[key, "ours"]), ref, ratio, mem
	}
}'
