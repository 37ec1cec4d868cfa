# Base against head, as markdown: the input is `mcpprobe diff --json`'s
# envelope (base snapshot → head server); $base[0] and $head[0] are each
# side's `mcpprobe budget --json`. For every tool the diff names, each
# host's delivery on both sides, changed rows marked.
def cell:
  if . == null then "absent"
  elif .delivered == "whole" then "whole"
  elif .delivered == "cut" then "\(.delivered_len) of \(.description_len) (cut at \(.cut.at))"
  else (.delivered // "?" | tostring)
  end
  + (if . != null and .deferred then ", deferred" else "" end)
  + (if . != null and (.cut.hides // [] | length) > 0 then "; hides " + ([.cut.hides[].words] | join(", ")) else "" end);
def esc: tostring | gsub("\\|"; "\\|") | gsub("\n"; " ");
def hosts($b): [$b.budget.hosts[] | select(.host != "all")];
def tool($b; $host; $name): first(($b.budget.hosts[] | select(.host == $host) | .tools[] | select(.name == $name)) // null);
.diff as $d
| ([$d.changes[]?.tool // empty] + ($d.tools_added // []) + ($d.tools_removed // [])
   + [($d.tools_renamed // [])[] | (.from // empty), (.to // empty)] | unique) as $tools
| if ($d.changes // [] | length) == 0 and ($tools | length) == 0 then
    "No change: the head serves what the base served, and every host delivers the same."
  else
    "\($d.changes | length) change(s) in the definitions:\n",
    ($d.changes[] | "- `\(.path // .item // .part | esc)` \(.kind)" + (if .note then ": \(.note | esc)" else "" end)),
    (if ($tools | length) > 0 then
      "\nWhat each host delivers of the changed tools (base → head):\n",
      "| tool | host | base | head | |",
      "| --- | --- | --- | --- | --- |",
      ($tools[] as $t | hosts($head[0])[] as $h
        | (tool($base[0]; $h.host; $t) | cell) as $was
        | (tool($head[0]; $h.host; $t) | cell) as $now
        | "| `\($t | esc)` | \($h.name | esc) | \($was | esc) | \($now | esc) | \(if $was == $now then "" else "changed" end) |")
    else empty end),
    (if ($d.changes // [] | map(select(.word_diff != null)) | length) > 0 then
      "\n<details><summary>Word changes</summary>\n\n```text",
      ($d.changes[] | select(.word_diff != null) | "\(.path): \(.word_diff | tostring | .[0:4000])"),
      "```\n\n</details>"
    else empty end)
  end
