#!/usr/bin/env bash
# The action's body: check the committed report, diff against the reference
# definitions, gate, write the job summary and, on a pull request, post or
# update ONE comment (found again by its marker). Inputs come as INPUT_*,
# the rest from the GITHUB_* environment a runner sets. MCPPROBE names the
# binary (default: mcpprobe on PATH).
set -uo pipefail
MCPPROBE=${MCPPROBE:-mcpprobe}
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
