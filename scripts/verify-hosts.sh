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
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../probe/hosts/testdata"
# 2.1.294 is the last with one 2,048 limit, 2.1.295 the first with a
# second (16,384) once a tool is loaded through tool search, 2.1.296 the
# first whose default is 4,096 (bisected 2026-12 from 2.1.280 to 2.1.332).
versions=(2.1.197 2.1.280 2.1.294 2.1.295 2.1.296 2.1.332)
if [ "${1:-}" = "--latest" ]; then
  versions+=("$(npm view @anthropic-ai/claude-code version)")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

# VERIFY_HOSTS_CACHE=DIR keeps the tarballs there between runs.
cache=${VERIFY_HOSTS_CACHE:-$tmp}
for v in "${versions[@]}"; do
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
