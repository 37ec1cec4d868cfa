#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in scripts/conformance/package.json with the Node.js 22 it needs)
# and mcpprobe's own equivalents (wire --json, and check --json with
# malformed's cases where the binary has `check`, else malformed --json) on
# the same fixture servers over
# Streamable HTTP, and writes the side-by-side table docs/conformance.md
# (scripts/conformance/table.mjs, joined by scripts/conformance-map.json).
#
#   scripts/conformance-side-by-side.sh           every server (a few minutes)
#   scripts/conformance-side-by-side.sh --quick   one server, the Go SDK fixture (about a minute)
#
# Options: --out FILE (default docs/conformance.md), --work DIR (keep the raw
# results there; default a temporary directory, removed at the end),
# --bin DIR (take mcpprobe, goodserver, mcpgoserver and sdk-everything from
# DIR instead of building them), --servers ID,ID (a subset, by the ids below),
# --scenarios NAME,NAME (a subset of the suite's server scenarios: the suite
# runs only those, one --scenario at a time, and the table has only their
# rows), --add-server 'ID|LABEL|SDK|COMMAND[|CHECK ARGS]' (one more server,
# repeatable; COMMAND as in the list below, e.g. the suite's own reference
# server from a checkout of its repository: see docs/reference.md; CHECK ARGS,
# if given, are added to its mcpprobe check, such as --call TOOL).
#
# Every server listens on 127.0.0.1 only, in its own process group, killed
# with the group at the end (or on Ctrl-C); every step is bounded by timeout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

quick=0
out="$root/docs/conformance.md"
work=""
bindir=""
only=""
scenarios_only=""
added=()
added_ids=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --out) out=$2; shift ;;
    --work) work=$2; shift ;;
    --bin) bindir=$2; shift ;;
    --servers) only=$2; shift ;;
    --scenarios) scenarios_only=$2; shift ;;
    --add-server) added+=("$2"); shift ;;
    -h | --help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "conformance-side-by-side: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

say() { echo "conformance-side-by-side: $*" >&2; }
# bound runs a command for at most $1 seconds, then TERM, then KILL 5 s later.
# timeout leads its own process group; it runs in the background and is
# waited for, so that a Ctrl-C reaches the trap at once (bash defers a trap
# until a foreground command ends, and a foreground timeout in its own group
# never sees the Ctrl-C), and the trap ends the group.
bounded=""
bound() {
  local s=$1 rc=0
  shift
  timeout --kill-after=5 "$s" "$@" &
  bounded=$!
  wait "$bounded" || rc=$?
  bounded=""
  return "$rc"
}

command -v npm >/dev/null || { say "npm is not installed: it installs Node.js 22 and the suite"; exit 1; }
command -v go >/dev/null || { say "go is not installed: it builds mcpprobe and the Go fixture servers"; exit 1; }

# The pinned Node.js 22 and suite, into scripts/conformance/node_modules
# (never global): `npm ci` against the lock, skipped when already there.
suite_dir="$here/conformance"
if [ ! -x "$suite_dir/node_modules/.bin/conformance" ] || [ ! -x "$suite_dir/node_modules/.bin/node" ]; then
  say "installing Node.js 22 and the conformance suite into $suite_dir/node_modules"
  bound 600 npm ci --prefix "$suite_dir" --no-audit --no-fund --loglevel=error
fi
export PATH="$suite_dir/node_modules/.bin:$PATH"
node_version=$(node --version)
case "$node_version" in v22.*) ;; *) say "expected Node.js 22 from scripts/conformance, got $node_version"; exit 1 ;; esac
suite_version=$(node -p "require('$suite_dir/node_modules/@modelcontextprotocol/conformance/package.json').version")

if [ -z "$work" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/conformance-side-by-side.XXXXXX")
  keep=0
else
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
  keep=1
fi

groups=()
cleanup() {
  local pid
  if [ -n "$bounded" ]; then stop_group "$bounded"; fi
  for pid in "${groups[@]}"; do stop_group "$pid"; done
  groups=()
  if [ "$keep" = 0 ]; then rm -rf "$work"; fi
}
# stop_group ends a server's process group: TERM, up to 3 s, then KILL.
stop_group() {
  local pid=$1 i
  kill -TERM -- "-$pid" 2>/dev/null || return 0
  for i in $(seq 30); do
    kill -0 -- "-$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
}
# stop_server stops one server's group and forgets it, so that the exit trap
# never signals a process group id the system may have handed out again.
stop_server() {
  local pid=$1 kept=() g
  stop_group "$pid"
  for g in "${groups[@]}"; do [ "$g" = "$pid" ] || kept+=("$g"); done
  groups=("${kept[@]}")
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "$bindir" ]; then
  bindir="$work/bin"
  say "building mcpprobe and the Go fixture servers into $bindir"
  (cd "$root" &&
    bound 900 go build -o "$bindir/mcpprobe" ./cmd/mcpprobe &&
    bound 900 go build -o "$bindir/goodserver" ./fixtures/goodserver &&
    bound 900 go build -o "$bindir/mcpgoserver" ./fixtures/mcpgoserver &&
    bound 900 go build -o "$bindir/sdk-everything" github.com/modelcontextprotocol/go-sdk/examples/server/everything)
fi
mcpprobe="$bindir/mcpprobe"

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

# The servers: id|label|SDK|how it is started. {PORT} is a free port picked
# here; a server started on port 0 prints "listening on URL" on stderr.
everything="$root/scripts/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
all_servers=(
  "go-sdk|Go SDK fixture (fixtures/goodserver)|modelcontextprotocol/go-sdk|$bindir/goodserver -http 127.0.0.1:0"
  "go-sdk-json|Go SDK fixture, JSON responses (goodserver -json-response)|modelcontextprotocol/go-sdk|$bindir/goodserver -http 127.0.0.1:0 -json-response"
  "go-sdk-stateless|Go SDK fixture, stateless (goodserver -stateless)|modelcontextprotocol/go-sdk|$bindir/goodserver -http 127.0.0.1:0 -stateless"
  "go-sdk-everything|Go SDK example server everything|modelcontextprotocol/go-sdk examples/server/everything|$bindir/sdk-everything -http 127.0.0.1:{PORT}"
  "mcp-go|mcp-go corpus server (fixtures/mcpgoserver)|mark3labs/mcp-go|$bindir/mcpgoserver -http 127.0.0.1:0"
  "ts-sdk-1|TypeScript SDK 1.x corpus server (fixtures/tsserver)|@modelcontextprotocol/sdk 1.x|node $root/fixtures/tsserver/server.mjs corpus --http 127.0.0.1:0"
  "ts-sdk-2|TypeScript SDK 2.x corpus server (fixtures/tsserver2), both eras|@modelcontextprotocol/server 2.x|node $root/fixtures/tsserver2/server.mjs http 127.0.0.1:0"
  "ts-sdk-2-skills|TypeScript SDK 2.x fixture with the Skills extension (fixtures/tsserver2 --skills), both eras|@modelcontextprotocol/server 2.x SkillsExtension|node $root/fixtures/tsserver2/server.mjs http 127.0.0.1:0 --skills"
  "server-everything|server-everything streamableHttp|@modelcontextprotocol/server-everything|PORT={PORT} node -r $root/fixtures/loopback.cjs $everything streamableHttp"
)
for entry in "${added[@]}"; do
  IFS='|' read -r id label sdk cmd _ <<<"$entry"
  if [ -z "$id" ] || [ -z "$cmd" ] || [[ ! $id =~ ^[a-z0-9-]+$ ]]; then
    say "--add-server wants 'ID|LABEL|SDK|COMMAND[|CHECK ARGS]' with an id of a-z, 0-9 and -, got: $entry"
    exit 2
  fi
  all_servers+=("$entry")
  added_ids="$added_ids,$id"
  if [ -n "$only" ]; then only="$only,$id"; fi
done
if [ "$quick" = 1 ] && [ -z "$only" ]; then only=go-sdk; fi

# start_server starts one server in its own session and sets server_url.
# It runs in this shell, not in a $(...) subshell, so that the exit trap
# knows the group.
start_server() {
  local id=$1 cmd=$2 log=$3 port="" url="" pid i
  server_url=""
  if [[ $cmd == *"{PORT}"* ]]; then
    port=$(free_port)
    cmd=${cmd//\{PORT\}/$port}
  fi
  if [[ $cmd == PORT=* ]]; then
    local env=${cmd%% *}
    cmd=${cmd#* }
    env "$env" setsid $cmd </dev/null >"$log" 2>&1 &
  else
    setsid $cmd </dev/null >"$log" 2>&1 &
  fi
  pid=$!
  groups+=("$pid")
  echo "$pid" >"$(dirname "$log")/server.pid"
  for i in $(seq 300); do
    if [ -z "$port" ]; then
      url=$(sed -n 's/^listening on \(http:\/\/127\.0\.0\.1:[0-9]*\/mcp\).*/\1/p' "$log" | head -1)
      [ -n "$url" ] && break
    elif (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      url="http://127.0.0.1:$port/mcp"
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$url" ] || return 1
  server_url=$url
}

has_check=0
if bound 20 "$mcpprobe" check --help >/dev/null 2>&1; then has_check=1; fi
if [ "$has_check" = 1 ]; then commands="wire --json, check --json (malformed's cases among its verdicts)"; else commands="wire --json, malformed --json (mcpprobe check is not in this binary: skipped)"; fi

bound 60 conformance list --server >"$work/list.txt"
node "$suite_dir/scenarios.mjs" "$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" <"$work/list.txt" >"$work/scenarios.all.json"
# A subset keeps the suite's order; a name the suite does not list is a
# usage error, not an empty table.
SUBSET="$scenarios_only" node -e '
const all = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const want = (process.env.SUBSET || "").split(",").filter(Boolean);
const unknown = want.filter((n) => !all.some((s) => s.name === n));
if (unknown.length) { process.stderr.write(`conformance-side-by-side: --scenarios names what the suite does not list: ${unknown.join(", ")}\n`); process.exit(2); }
process.stdout.write(JSON.stringify(want.length ? all.filter((s) => want.includes(s.name)) : all, null, 2) + "\n");
' "$work/scenarios.all.json" >"$work/scenarios.json"
started=$(date +%s)

servers_json="["
for entry in "${all_servers[@]}"; do
  IFS='|' read -r id label sdk cmd check_args <<<"$entry"
  if [ -n "$only" ] && [[ ",$only," != *",$id,"* ]]; then continue; fi
  if [ "$id" = server-everything ] && [ ! -f "$everything" ]; then
    say "$id: $everything is missing (run scripts/install-peers.sh); skipped"
    continue
  fi
  if [ "$id" = ts-sdk-1 ] && [ ! -d "$root/fixtures/tsserver/node_modules" ]; then
    say "$id: fixtures/tsserver/node_modules is missing (run scripts/install-peers.sh); skipped"
    continue
  fi
  if { [ "$id" = ts-sdk-2 ] || [ "$id" = ts-sdk-2-skills ]; } && [ ! -d "$root/fixtures/tsserver2/node_modules" ]; then
    say "$id: fixtures/tsserver2/node_modules is missing (run scripts/install-peers.sh); skipped"
    continue
  fi
  dir="$work/$id"
  mkdir -p "$dir"
  say "$id: starting $cmd"
  if ! start_server "$id" "$cmd" "$dir/server.log"; then
    say "$id: never came up; its log:"
    tail -5 "$dir/server.log" >&2 || true
    [ -f "$dir/server.pid" ] && stop_server "$(cat "$dir/server.pid")"
    continue
  fi
  url=$server_url
  rc=0
  if [ -z "$scenarios_only" ]; then
    # Every scenario of --suite all, each bounded by the suite's own
    # --timeout, the whole bounded here: a server that hangs every scenario
    # leaves the scenarios not reached "not run", not a stuck script.
    say "$id: $url: the suite (--suite all)"
    bound 900 conformance server --url "$url" --suite all --timeout 20000 -o "$dir/suite" >"$dir/suite.log" 2>&1 || rc=$?
  else
    say "$id: $url: the suite, scenarios $scenarios_only"
    IFS=',' read -r -a names <<<"$scenarios_only"
    for name in "${names[@]}"; do
      r=0
      bound 120 conformance server --url "$url" --scenario "$name" --timeout 20000 -o "$dir/suite" >>"$dir/suite.log" 2>&1 || r=$?
      [ "$r" = 0 ] || rc=$r
    done
  fi
  echo "$rc" >"$dir/suite.rc"
  say "$id: mcpprobe $commands"
  rc=0; bound 120 "$mcpprobe" wire --json "$url" >"$dir/wire.json" 2>"$dir/wire.err" || rc=$?; echo "$rc" >"$dir/wire.rc"
  if [ "$has_check" = 1 ]; then
    # check_args (an --add-server's fifth field) are words: no quoting.
    # shellcheck disable=SC2086
    rc=0; bound 600 "$mcpprobe" check --json $check_args "$url" >"$dir/check.json" 2>"$dir/check.err" || rc=$?; echo "$rc" >"$dir/check.rc"
  else
    rc=0; bound 300 "$mcpprobe" malformed --json "$url" >"$dir/malformed.json" 2>"$dir/malformed.err" || rc=$?; echo "$rc" >"$dir/malformed.rc"
    echo "not in this binary (built from $(cd "$root" && git describe --always --dirty 2>/dev/null || echo unknown)): skipped" >"$dir/check.note"
  fi
  stop_server "$(cat "$dir/server.pid")"
  shown_cmd=${cmd//$root\//}
  shown_cmd=${shown_cmd//$bindir\//}
  # A server given with --add-server runs from the user's own paths: the
  # table names it by its label, not by a command line of this machine.
  if [[ ",$added_ids," == *",$id,"* ]]; then shown_cmd="a command given with --add-server"; fi
  servers_json+=$(ID="$id" LABEL="$label" SDK="$sdk" URL="$url" CMD="$shown_cmd" CHECKARGS="$check_args" node -e 'const e=process.env;process.stdout.write(JSON.stringify({id:e.ID,label:e.LABEL,sdk:e.SDK,url:e.URL,command:e.CMD,checkArgs:e.CHECKARGS}))'),
done
servers_json="${servers_json%,}]"
echo "$servers_json" >"$work/servers.json"
[ "$servers_json" != "[]" ] || { say "no server came up; nothing to compare"; exit 1; }

elapsed=$(($(date +%s) - started))
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
DATE=$(date -u +%Y-%m-%dT%H:%MZ) MACHINE="$(uname -srm), $(nproc 2>/dev/null || echo '?') cores${cpu:+, $cpu}, $(go version | cut -d' ' -f3)" \
  SUITE="@modelcontextprotocol/conformance@$suite_version" NODEV="$node_version" \
  MCPPROBE="$("$mcpprobe" --version 2>/dev/null | head -1) (commit $(cd "$root" && git describe --always --dirty 2>/dev/null || echo unknown))" \
  COMMANDS="$commands" QUICK="$quick" SUBSET="$scenarios_only" \
  LOAD="load average $load (1, 5, 15 min) at the end; the servers' runs took ${elapsed} s" node -e '
const e = process.env;
process.stdout.write(JSON.stringify({date: e.DATE, machine: e.MACHINE, suite: e.SUITE, node: e.NODEV, mcpprobe: e.MCPPROBE, commands: e.COMMANDS, quick: e.QUICK === "1", load: e.LOAD, subset: e.SUBSET}, null, 2));
' >"$work/meta.json"

node "$suite_dir/table.mjs" "$work" "$root/scripts/conformance-map.json" "$out"
if [ "$keep" = 1 ]; then say "raw results kept in $work"; fi
