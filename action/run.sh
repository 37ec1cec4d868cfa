#!/usr/bin/env bash
# The action's body: check the committed report, diff against the reference
# definitions, compare a base build with the head build over a matrix of
# configurations, gate, write the job summary and, on a pull request, post or
# update ONE comment (found again by its marker). Inputs come as INPUT_*,
# the rest from the GITHUB_* environment a runner sets. MCPPROBE names the
# binary (default: mcpprobe on PATH).
set -uo pipefail
MCPPROBE=${MCPPROBE:-mcpprobe}
here=$(cd "$(dirname "$0")" && pwd)
API=${GITHUB_API_URL:-https://api.github.com}
MARKER='<!-- mcpprobe-action -->'
read -r -a server <<<"${INPUT_SERVER:?the server input is required}"
gates=()
[ -n "${INPUT_FAIL_ON:-}" ] && gates=(--fail-on "$INPUT_FAIL_ON")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
summary=$work/summary.md
echo "$MARKER" >"$summary"
echo "## mcpprobe" >>"$summary"

# fence appends a titled, fenced block of FILE, capped so a huge diff
# cannot exceed GitHub's 65,536-character comment limit.
fence() {
	{ echo; echo "### $1"; echo; echo '```'"${3:-}"; head -c 20000 "$2"; echo '```'; } >>"$summary"
}

if [ -n "${INPUT_REPORT:-}" ]; then
	"$MCPPROBE" report --check "$INPUT_REPORT" -- "${server[@]}" >"$work/check" 2>"$work/check.err"
	rc=$?
	if [ $rc -eq 0 ]; then
		{ echo; echo "✓ \`$INPUT_REPORT\` is current."; } >>"$summary"
	else
		status=1
		{ echo; echo "✗ \`$INPUT_REPORT\` is stale (exit $rc): $(head -c 2000 "$work/check.err")"; } >>"$summary"
		fence "What changed in $INPUT_REPORT" "$work/check" diff
	fi
fi
if [ -n "${INPUT_REF:-}" ]; then
	"$MCPPROBE" diff --ref "$INPUT_REF" "${gates[@]}" -- "${server[@]}" >"$work/diff" 2>"$work/diff.err"
	rc=$?
	[ $rc -ne 0 ] && status=1
	fence "Definitions against $INPUT_REF (exit $rc)" "$work/diff"
fi
# Base against head: for each configuration, what changed in the
# definitions and in what each host delivers of every changed tool. Both
# builds are the caller's; this step reads and runs, and writes nothing
# back but the summary and the comment body.
if [ -n "${INPUT_BASE_SERVER:-}" ]; then
	read -r -a base <<<"$INPUT_BASE_SERVER"
	# The default flags first, then one configuration a line of configs.
	cfgs=("")
	while IFS= read -r line; do
		[ -n "${line// /}" ] && cfgs+=("$line")
	done <<<"${INPUT_CONFIGS:-}"
	{ echo; echo "### Base against head"; } >>"$summary"
	i=0
	for cfg in "${cfgs[@]}"; do
		i=$((i + 1))
		read -r -a extra <<<"$cfg"
		label=${cfg:-default flags}
		{ echo; echo "#### Configuration $i: \`$label\`"; echo; } >>"$summary"
		if ! "$MCPPROBE" snapshot "${extra[@]}" -o "$work/base-$i.lock" -- "${base[@]}" >/dev/null 2>"$work/base-$i.err" ||
			! "$MCPPROBE" budget --json --per-host-tools "${extra[@]}" -- "${base[@]}" >"$work/bbase-$i.json" 2>>"$work/base-$i.err"; then
			status=1
			echo "✗ the base server could not be probed: $(head -c 2000 "$work/base-$i.err")" >>"$summary"
			continue
		fi
		"$MCPPROBE" diff --json "${extra[@]}" --ref "$work/base-$i.lock" -- "${server[@]}" >"$work/cmp-$i.json" 2>"$work/cmp-$i.err"
		rc=$?
		if [ $rc -gt 1 ] || ! "$MCPPROBE" budget --json --per-host-tools "${extra[@]}" -- "${server[@]}" >"$work/bhead-$i.json" 2>>"$work/cmp-$i.err"; then
			status=1
			echo "✗ the head server could not be probed (exit $rc): $(head -c 2000 "$work/cmp-$i.err")" >>"$summary"
			continue
		fi
		jq -r -f "$here/compare.jq" --slurpfile base "$work/bbase-$i.json" --slurpfile head "$work/bhead-$i.json" \
			"$work/cmp-$i.json" >>"$summary" 2>"$work/jq-$i.err" || {
			status=1
			echo "✗ comparing: $(head -c 2000 "$work/jq-$i.err")" >>"$summary"
		}
	done
fi

# The report itself, with the gates: findings and delivery per host.
"$MCPPROBE" report "${gates[@]}" -- "${server[@]}" >"$work/report" 2>"$work/report.err"
rc=$?
if [ $rc -ne 0 ]; then
	status=1
	{ echo; echo "✗ report exit $rc: $(head -c 2000 "$work/report.err")"; } >>"$summary"
fi
{ echo; echo "<details><summary>Report</summary>"; echo; head -c 30000 "$work/report"; echo; echo "</details>"; } >>"$summary"

[ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$summary" >>"$GITHUB_STEP_SUMMARY"
cat "$summary"
# The comment's body as a file too: a pull request from a fork runs with a
# read-only token, so a later job (workflow_run) can post it instead.
if [ -n "${INPUT_COMMENT_FILE:-}" ]; then
	cp "$summary" "$INPUT_COMMENT_FILE"
	[ -n "${GITHUB_OUTPUT:-}" ] && echo "comment-file=$INPUT_COMMENT_FILE" >>"$GITHUB_OUTPUT"
fi

case "${GITHUB_EVENT_NAME:-}" in pull_request | pull_request_target) ;; *) exit $status ;; esac
if [ "${INPUT_COMMENT:-true}" != true ] || [ -z "${GITHUB_TOKEN:-}" ]; then
	exit $status
fi
pr=$(jq -r '.pull_request.number // empty' "${GITHUB_EVENT_PATH:?}")
if [ -z "$pr" ]; then
	echo "mcpprobe: no pull request number in $GITHUB_EVENT_PATH; no comment" >&2
	exit $status
fi
api() { curl -fsS --max-time 30 -H "Authorization: Bearer $GITHUB_TOKEN" \
	-H "Accept: application/vnd.github+json" -H "X-GitHub-Api-Version: 2022-11-28" "$@"; }
body=$(jq -Rs '{body: .}' "$summary")
# Our comment is the first one whose body starts with the marker.
id=$(api "$API/repos/$GITHUB_REPOSITORY/issues/$pr/comments?per_page=100" |
	jq -r --arg m "$MARKER" '[.[] | select(.body | startswith($m))][0].id // empty') || {
	echo "mcpprobe: listing the pull request's comments failed" >&2
	exit 1
}
if [ -n "$id" ]; then
	api -X PATCH "$API/repos/$GITHUB_REPOSITORY/issues/comments/$id" -d "$body" >/dev/null || status=1
else
	api -X POST "$API/repos/$GITHUB_REPOSITORY/issues/$pr/comments" -d "$body" >/dev/null || status=1
fi
exit $status
