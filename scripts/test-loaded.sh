#!/usr/bin/env bash
# Runs the same suite as `make test` while CPU burners keep every core
# busy: the suite must pass on a loaded machine as it does on an idle one
# (the tests scale their wall-clock bounds with a load factor they measure;
# internal/loadfactor). The burners are stress-ng, installed with apt-get
# when it is missing and apt-get can be used, or else shell busy loops;
# they start before the suite and are killed after it, also on Ctrl-C or
# a failure. BURNERS=N sets how many (default: one per core). Extra
# arguments go to make (e.g. GO=go1.26).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
burners=${BURNERS:-$cores}

if ! command -v stress-ng >/dev/null && command -v apt-get >/dev/null; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo="none"; fi
  fi
  if [ "$sudo" != none ]; then
    echo "test-loaded: installing stress-ng" >&2
    { $sudo apt-get update -qq && $sudo apt-get install -y -qq stress-ng; } >/dev/null 2>&1 || true
  fi
fi

pids=()
stop_burners() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_burners EXIT
trap 'stop_burners; exit 130' INT
trap 'stop_burners; exit 143' TERM

if command -v stress-ng >/dev/null; then
  stress-ng --cpu "$burners" --quiet &
  pids+=($!)
  what="stress-ng --cpu $burners"
else
  for _ in $(seq "$burners"); do
    ( while :; do :; done ) &
    pids+=($!)
  done
  what="$burners shell busy loops"
fi
echo "test-loaded: $what on $cores cores; running make test" >&2
start=$(date +%s)
status=0
"${MAKE:-make}" test "$@" || status=$?
echo "test-loaded: make test exit $status after $(( $(date +%s) - start )) s under $what" >&2
exit "$status"
