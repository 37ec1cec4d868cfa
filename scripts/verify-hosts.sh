#!/usr/bin/env bash
# Re-reads the host rules in probe/hosts/hosts.json from the hosts' own
# shipped code. Claude Code is published on npm as a native binary per
# platform (@anthropic-ai/claude-code-linux-x64) with its JavaScript
# embedded, so the rules are read out of that text: the MCP tool's
# description cut, the server-instructions cut, the slice helper they call
# (how it treats a surrogate pair at the cut), the limit constants and the
# environment variable. For each version it writes
# probe/hosts/testdata/claude-code/VERSION.txt: the tarball's sha256 and
# the snippets matched, one a line. TestClaudeCodeExtracts reads them and
# fails when the profile says otherwise.
#
#   scripts/verify-hosts.sh            re-extract the pinned versions (a diff in git is a change)
#   scripts/verify-hosts.sh --latest   also extract the newest published version, to review
#
# Codex (@openai/codex) ships a stripped static Rust binary: its limits are
# compiled constants, not readable text; the script says so and records
# the strings it can match.
#
# The other hosts (issue 37), each pinned by version or commit, each file
# it reads with its sha256, written to probe/hosts/testdata/HOST/PIN.txt
# as "# file PATH sha256 HASH" and the matched lines, "PATH:LINE:TEXT";
# TestHostExtracts checks the profiles against them:
#   gemini-cli   npm @google/gemini-cli-core (its dist/src JavaScript)
#   copilot-cli  npm @github/copilot-linux-x64 (a Node single-executable
#                binary: records that its code is not plain text)
#   opencode     npm opencode-linux-x64 (a Bun binary, its JavaScript
#                embedded as text)
#   vscode       microsoft/vscode-copilot-chat at a commit (a bare clone:
#                VSCODE_COPILOT_CHAT_GIT=DIR, else cloned blob-less)
#   cline        cline/cline at a commit (CLINE_GIT=DIR, else cloned)
#
#   scripts/verify-hosts.sh HOST...    re-extract only those hosts
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../probe/hosts/testdata"
# 2.1.294 is the last with one 2,048 limit, 2.1.295 the first with a
# second (16,384) once a tool is loaded through tool search, 2.1.296 the
# first whose default is 4,096 (bisected 2026-12 from 2.1.280 to 2.1.332).
versions=(2.1.197 2.1.280 2.1.294 2.1.295 2.1.296 2.1.332)
only=()
for a in "$@"; do
  case "$a" in
  --latest) versions+=("$(npm view @anthropic-ai/claude-code version)") ;;
  *) only+=("$a") ;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# VERIFY_HOSTS_CACHE=DIR keeps the tarballs there between runs.
cache=${VERIFY_HOSTS_CACHE:-$tmp}
wanted() { [ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $1 "* ]]; }

# pack NAME@VERSION: the tarball's path in the cache, fetched once.
pack() {
  local f
  f="$cache/$(echo "${1%@*}" | sed 's/^@//; s#/#-#')-${1##*@}.tgz"
  [ -f "$f" ] || (cd "$cache" && npm pack "$1" --silent >/dev/null)
  echo "$f"
}

# grepfile LABEL FILE ERE...: the file's sha256, then each line matching
# any pattern, as LABEL:LINE:TEXT.
grepfile() {
  local label=$1 file=$2
  shift 2
  echo "# file $label sha256 $(sha256sum "$file" | cut -d' ' -f1)"
  local args=()
  for p in "$@"; do args+=(-e "$p"); done
  grep -nE "${args[@]}" "$file" | sed "s#^#$label:#" || true
}

# gitfile GITDIR COMMIT PATH ERE...: grepfile of a file at a commit.
gitfile() {
  local dir=$1 commit=$2 path=$3
  shift 3
  git --git-dir="$dir" show "$commit:$path" >"$tmp/blob"
  grepfile "$path" "$tmp/blob" "$@"
}

# mirror REPO DEFAULT_DIR: a bare git directory holding REPO's history.
mirror() {
  local dir=$2
  if [ ! -d "$dir" ]; then
    dir="$cache/$(basename "$1").git"
    [ -d "$dir" ] || git clone -q --bare --filter=blob:none "https://github.com/$1" "$dir"
  fi
  echo "$dir"
}

gemini() {
  local v=0.61.0 tgz d f
  tgz=$(pack "@google/gemini-cli-core@$v")
  d="$tmp/gemini" && mkdir -p "$d" && tar xzf "$tgz" -C "$d"
  f="$out/gemini-cli/$v.txt" && mkdir -p "$out/gemini-cli"
  {
    echo "# @google/gemini-cli-core $v: package/dist/src, its JavaScript"
    echo "# tarball sha256 $(sha256sum "$tgz" | cut -d' ' -f1)"
    cd "$d/package/dist/src"
    grepfile config/config.js config/config.js 'DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD = [0-9_]+;'
    grepfile utils/fileUtils.js utils/fileUtils.js 'const headChars = Math\.floor\(maxChars \* [0-9.]+\);' 'Output too large\. Showing first' 'characters omitted\] \.\.\.'
    grepfile scheduler/tool-executor.js scheduler/tool-executor.js 'content\.length === 1 &&' 'call\.tool instanceof DiscoveredMCPTool\)' 'textContent\.length > threshold'
    grepfile utils/textUtils.js utils/textUtils.js 'return `<untrusted_context>'
    grepfile tools/mcp-tool.js tools/mcp-tool.js 'return \{ text: wrapUntrusted\(block\.text\) \};' 'const MAX_FUNCTION_NAME_LENGTH = [0-9]+;' "name\.startsWith\('mcp_'\) \? name" 'validToolname\.replace\(/\[\^' 'const safeLimit = MAX_FUNCTION_NAME_LENGTH - 1;' "validToolname\.slice\(0, [0-9]+\) \+ '\.\.\.' \+ validToolname\.slice\(-[0-9]+\)"
    grepfile tools/mcp-client-manager.js tools/mcp-client-manager.js 'start of server instructions'
    grepfile tools/mcp-client.js tools/mcp-client.js "res\\['type'\\] = res\\['type'\\]\\[1 - nIdx\\];" "res\\['nullable'\\] = true;" "toolDef\\.description \\?\\? '', toolDef\\.inputSchema \\?\\?"
    grepfile core/geminiChat.js core/geminiChat.js 'This error was probably caused by cyclic schema references'
    # Secure Parameters (SEP-3221): what of a tool reaches the model is
    # built from inputSchema alone; no file names secureInputSchema.
    echo "# secureInputSchema named in dist/src: $(grep -rlE 'secureInputSchema' . | wc -l) files"
    cd - >/dev/null
  } >"$f"
  rm -rf "$d"
  echo "verify-hosts: gemini-cli $v: ${f#"$here/../"}"
}

copilot() {
  local v=1.0.102 tgz d f n
  tgz=$(pack "@github/copilot-linux-x64@$v")
  d="$tmp/copilot" && mkdir -p "$d" && tar xzf "$tgz" -C "$d"
  f="$out/copilot-cli/$v.txt" && mkdir -p "$out/copilot-cli"
  n=$(grep -caF 'Output too large to read at once' "$d/package/copilot" || true)
  {
    echo "# @github/copilot-linux-x64 $v: package/copilot, a Node single-executable binary"
    echo "# tarball sha256 $(sha256sum "$tgz" | cut -d' ' -f1)"
    echo "# not plain text: the application code is packed in the executable's blob; lines holding the result notice as text: $n"
  } >"$f"
  rm -rf "$d"
  echo "verify-hosts: copilot-cli $v: ${f#"$here/../"}"
}

opencode() {
  local v=1.18.33 tgz d f id='[A-Za-z0-9_$]{1,4}'
  tgz=$(pack "opencode-linux-x64@$v")
  d="$tmp/opencode" && mkdir -p "$d" && tar xzf "$tgz" -C "$d"
  f="$out/opencode/$v.txt" && mkdir -p "$out/opencode"
  {
    echo "# opencode-linux-x64 $v: package/bin/opencode, the JavaScript embedded in the Bun binary"
    echo "# tarball sha256 $(sha256sum "$tgz" | cut -d' ' -f1)"
    grep -aoE "var $id=$id\.days\(7\),$id=[0-9]+,$id=[0-9]+,$id=$id,$id=$id\.join\($id,\"\*\"\)" "$d/package/bin/opencode" | LC_ALL=C sort -u || true
    grep -aoE "return\{maxLines:$id\?\.tool_output\?\.max_lines\?\?$id,maxBytes:$id\?\.tool_output\?\.max_bytes\?\?$id\}" "$d/package/bin/opencode" | LC_ALL=C sort -u || true
    grep -aoE "direction\?\?"head"" "$d/package/bin/opencode" | LC_ALL=C sort -u || true
    grep -aoE "if\($id\.length<=$id&&$id<=$id\)return\{content:$id,truncated:!1\}" "$d/package/bin/opencode" | LC_ALL=C sort -u || true
    grep -aoE 'return\{content:[a-z]==="head"\?`\$\{[a-z]\}' "$d/package/bin/opencode" | LC_ALL=C sort -u || true
    grep -aoE '\.\.\.\$\{[a-z]\} \$\{[A-Z]\} truncated\.\.\.' "$d/package/bin/opencode" | LC_ALL=C sort -u || true
  } >"$f"
  rm -rf "$d"
  echo "verify-hosts: opencode $v: ${f#"$here/../"}"
}

vscode() {
  local c=31acd00a86424e2ee6e980e54919cf31fbf88030 dir f
  dir=$(mirror microsoft/vscode-copilot-chat "${VSCODE_COPILOT_CHAT_GIT:-/work/.mirror/microsoft+vscode-copilot-chat/repo}")
  f="$out/vscode/${c:0:7}.txt" && mkdir -p "$out/vscode"
  {
    echo "# microsoft/vscode-copilot-chat commit $c ($(git --git-dir="$dir" show -s --format=%cs "$c")), version $(git --git-dir="$dir" show "$c:package.json" | grep -m1 -oE '"version": "[^"]+"' | cut -d'"' -f4)"
    gitfile "$dir" "$c" src/platform/configuration/common/configurationService.ts 'export const HARD_TOOL_LIMIT = [0-9]+;' "VirtualToolThreshold = defineSetting<number>\('chat\.virtualTools\.threshold'"
    gitfile "$dir" "$c" src/extension/tools/common/virtualTools/virtualTool.ts "VIRTUAL_TOOL_NAME_PREFIX = '[a-z_]+';"
    gitfile "$dir" "$c" src/extension/tools/common/virtualTools/toolGrouping.ts 'const value = configured \?\? HARD_TOOL_LIMIT;'
    gitfile "$dir" "$c" src/extension/prompt/node/chatMLFetcher.ts 'tools\.length > HARD_TOOL_LIMIT' 'Tool limit exceeded'
  } >"$f"
  echo "verify-hosts: vscode ${c:0:7}: ${f#"$here/../"}"
}

cline() {
  local c=21cb8d2525bcedf1f4b6890b27a74a14fe7451e4 dir f
  dir=$(mirror cline/cline "${CLINE_GIT:-/work/.mirror/cline+cline/repo}")
  f="$out/cline/${c:0:7}.txt" && mkdir -p "$out/cline"
  {
    echo "# cline/cline commit $c ($(git --git-dir="$dir" show -s --format=%cs "$c"))"
    gitfile "$dir" "$c" sdk/packages/core/src/extensions/mcp/name-transform.ts 'const MAX_MCP_TOOL_NAME_LENGTH = [0-9]+;' 'const INVALID_MCP_TOOL_NAME_CHARACTERS = ' 'const HASH_LENGTH = [0-9]+;' 'const rawName = `\$\{serverName\}[^`]*\$\{toolName\}`;' 'return `\$\{baseName\}_\$\{hash\}`;'
    gitfile "$dir" "$c" sdk/packages/core/src/extensions/mcp/tools.ts 'const base = tool\.description\?\.trim\(\);' 'description: defaultMcpDescription\('
  } >"$f"
  echo "verify-hosts: cline ${c:0:7}: ${f#"$here/../"}"
}

for h in gemini-cli copilot-cli opencode vscode cline; do
  if wanted "$h"; then
    case $h in
    gemini-cli) gemini ;; copilot-cli) copilot ;; opencode) opencode ;; vscode) vscode ;; cline) cline ;;
    esac
  fi
done
if [ ${#only[@]} -gt 0 ] && ! wanted claude-code && ! wanted codex; then
  exit 0
fi

# ERE patterns, tolerant of the minifier's names ([A-Za-z0-9_$]).
id='[A-Za-z0-9_$]{1,6}'
patterns=(
  # the MCP tool's description as the model gets it (prompt())
  "async prompt\(\)\{let $id=$id\.description\?\?\"\";return [^}]{0,160}\}"
  "async prompt\(\{loadedThroughToolSearch:$id\}\)\{return [^}]{0,40}\}"
  "maxDescriptionLength:$id=$id\(\),maxLoadedDescriptionLength:$id=$id\(!0\)"
  "$id=$id\($id,\`Tool \"\\\$\{$id\.name\}\" description\`,$id(,$id(\(!0\))?)?\)"
  # the server instructions
  "if\($id&&$id\.length>$id\)$id=$id\($id,$id\)\+\"[^\"]{0,40}\",$id\($id,\`Server instructions truncated from[^\`]{0,80}\`\)"
  "function $id\($id,$id\)\{if\(!$id\)return $id;return $id\($id,\"Server instructions\",$id\)\}"
  "function $id\($id,$id,$id=$id\(\)\)\{if\(!$id\)return $id;return $id\($id,\"Server instructions\",$id,$id\)\}"
  # the shared truncation helper: limit, log, slice, marker
  "function $id\($id,$id,$id(,?$id=$id\(\))?\)\{(let $id=$id\(\);)?if\($id\.length<=$id\)return $id;if\($id!==void 0\)$id\($id,\`\\\$\{$id\} truncated from[^\`]{0,60}\`\);return $id\($id,$id\)\+\"[^\"]{0,40}\"\}"
  # the slice helpers: what happens to a surrogate pair at the cut
  "function $id\([a-z],[a-z]\)\{(if\([a-z]<=0\)return\"\";)?if\([a-z]\.length<=[a-z]\)return [a-z];let [a-z]=[a-z]\.slice\(0,[a-z]\),[a-z]=[a-z]\.charCodeAt\([a-z]-1\);return [^}]{0,80}\}"
  "function $id\([a-z]\)\{if\(typeof Buffer<\"u\"\)return Buffer\.from\([a-z],\"utf16le\"\)\.toString\(\"utf16le\"\);return $id\([a-z]\)\}"
  # the limit when an environment variable may set it
  "function $id\(\)\{return $id\.CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH\?\?$id\}"
  "function $id\($id=!1\)\{return $id\.CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH\?\?\($id\?$id:$id\)\}"
)

for v in "${versions[@]}"; do
  wanted claude-code || break
  tgz="$cache/anthropic-ai-claude-code-linux-x64-$v.tgz"
  [ -f "$tgz" ] || (cd "$cache" && npm pack "@anthropic-ai/claude-code-linux-x64@$v" --silent >/dev/null)
  sum=$(sha256sum "$tgz" | cut -d' ' -f1)
  mkdir -p "$tmp/$v" && tar xzf "$tgz" -C "$tmp/$v"
  bin="$tmp/$v/package/claude"
  f="$out/claude-code/$v.txt"
  {
    echo "# @anthropic-ai/claude-code-linux-x64 $v: package/claude, the JavaScript embedded in it"
    echo "# tarball sha256 $sum"
    for p in "${patterns[@]}"; do
      grep -aoE "$p" "$bin" | LC_ALL=C sort -u || true
    done
  } >"$f"
  # The limit constants: the names the snippets compare a length with or
  # fall back to, and their numeric definitions.
  names=$(grep -v '^#' "$f" | grep -oE "length>$id\?|\?\?$id\}|\?$id:$id\)\}" | sed -E 's/^(length>|\?\?|\?)//' | tr ':?)}' '\n\n\n\n' | grep -v '^$' | LC_ALL=C sort -u || true)
  for n in $names; do
    grep -aoE "(var |[,;])${n//\$/\\$}=[0-9]+[,;]" "$bin" | LC_ALL=C sort -u >>"$f" || true
  done
  rm -rf "$tmp/$v"
  echo "verify-hosts: claude-code $v: $(($(wc -l <"$f") - 2)) snippets in ${f#"$here/../"}"
done

# Codex: a compiled binary. Record what can be read: the version, the
# strings of its output markers.
wanted codex || exit 0
cv=$(npm view @openai/codex version)
tgz="$cache/openai-codex-$cv-linux-x64.tgz"
[ -f "$tgz" ] || (cd "$cache" && npm pack "@openai/codex@$cv-linux-x64" --silent >/dev/null)
sum=$(sha256sum "$tgz" | cut -d' ' -f1)
mkdir -p "$tmp/codex" && tar xzf "$tgz" -C "$tmp/codex"
cbin=$(find "$tmp/codex" -type f -path '*/bin/codex' | head -1)
{
  echo "# @openai/codex $cv-linux-x64: $(file -b "$cbin" | cut -d, -f1-2,5-6)"
  echo "# tarball sha256 $sum"
  echo "# a compiled Rust binary: no cut, threshold or prepend rule is readable as code; the strings below are all that match"
  strings -n 8 "$cbin" | grep -oE 'Total output lines: |[^ ]{0,0} tokens truncated|tool_input_schema_max_bytes|tool_output_token_limit' | LC_ALL=C sort -u
} >"$out/codex.txt"
echo "verify-hosts: codex $cv: ${out#"$here/../"}/codex.txt"
