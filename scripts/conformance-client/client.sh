#!/usr/bin/env bash
# mcpprobe as the client under test of the official MCP conformance suite
# (@modelcontextprotocol/conformance, `conformance client`): the suite runs
# this script with the scenario server's URL as its last argument and
# MCP_CONFORMANCE_SCENARIO (and, for some scenarios, MCP_CONFORMANCE_CONTEXT,
# JSON) in the environment. Each scenario maps to the mcpprobe command
# lines a user would type to do what the scenario asks of a client; the
# mapping is all this script holds. MCPPROBE names the binary (default:
# mcpprobe on the PATH). Every mcpprobe run is bounded by its own flags;
# the suite bounds the whole (--timeout).
#
# It exits 0 once the commands ran, whatever mcpprobe found: the suite
# judges what reached its server, and mcpprobe's exit 3 on a target it
# could not probe is printed, not hidden.
set -uo pipefail
url=${!#}
scenario=${MCP_CONFORMANCE_SCENARIO:-}
context=${MCP_CONFORMANCE_CONTEXT:-'{}'}
probe=${MCPPROBE:-mcpprobe}
bounds=(--timeout 10s --startup-timeout 15s --discover-timeout 2s)

run() {
  echo "+ mcpprobe $*" >&2
  "$probe" "$@"
  local rc=$?
  echo "  (exit $rc)" >&2
}

# ctxval prints one member of the context, "" when absent.
ctxval() { jq -r "$1 // empty" <<<"$context"; }

# oauth: the suite's authorization servers approve at once, so the
# "browser" fetches the authorization URL and follows its redirect to
# mcpprobe's loopback callback.
oauth=(--oauth --oauth-browser-cmd "curl -s -L -o /dev/null --max-time 20" --oauth-wait 30s)

# issuer is the authorization server the resource's metadata names, as a
# user who gives a client secret names the one they trust with it
# (--issuer): mcpprobe sends a secret to no other origin than the
# resource's own or that one.
issuer() {
  local origin=${url%%/mcp*}
  curl -s --max-time 10 "$origin/.well-known/oauth-protected-resource/mcp" | jq -r '.authorization_servers[0] // empty'
}

case "$scenario" in
initialize | request-metadata | json-schema-ref-no-deref)
  run wire "${bounds[@]}" "$url"
  ;;
elicitation-sep1034-client-defaults)
  # No --elicit: the form is accepted as a host shows it, its defaults in.
  run call "${bounds[@]}" "$url" test_client_elicitation_defaults
  ;;
tools_call)
  run call "${bounds[@]}" --args '{"a":1,"b":2}' "$url" add_numbers
  ;;
sep-2322-client-request-state)
  # Each tool of the scenario, as a user calls it: one round trip per
  # input_required, the requestState echoed, none invented.
  for tool in test_mrtr_echo_state test_mrtr_unrelated test_mrtr_no_state test_mrtr_no_result_type; do
    run call "${bounds[@]}" "$url" "$tool"
  done
  ;;
http-custom-headers)
  # The tool calls the scenario asks for, with its arguments.
  n=$(jq '.toolCalls | length' <<<"$context")
  for ((i = 0; i < n; i++)); do
    name=$(jq -r ".toolCalls[$i].name" <<<"$context")
    args=$(jq -c ".toolCalls[$i].arguments" <<<"$context")
    run call "${bounds[@]}" --no-validate --args "$args" "$url" "$name"
  done
  ;;
http-standard-headers)
  run call "${bounds[@]}" "$url" test_headers
  run call "${bounds[@]}" "$url" my-hyphenated-tool
  run read "${bounds[@]}" "$url" "file:///path/to/file%20name.txt"
  run read "${bounds[@]}" "$url" "https://example.com/resource?id=123"
  run prompt "${bounds[@]}" "$url" test_prompt
  ;;
http-invalid-tool-headers)
  run call "${bounds[@]}" --args '{"region":"us-west1"}' "$url" valid_tool
  ;;
json-schema-2020-12-preservation)
  schema=$("$probe" wire --json "${bounds[@]}" "$url" | jq -c '[.wire.tools[]? | select(.name == "json_schema_2020_12_tool")][0].inputSchema // {}')
  run call "${bounds[@]}" --no-validate --args "{\"schema\":$schema}" "$url" json_schema_echo
  ;;
sep-2640-client-no-prefetch)
  # A host lists the skills (SEP-2640) and reads none of their files
  # until one is loaded: wire lists them and reads no file.
  run wire "${bounds[@]}" "$url"
  ;;
sep-2640-client-verify-digest | sep-2640-client-verify-size | sep-2640-client-verify-frontmatter)
  # A user lists the skills, then loads the first as a host does: its
  # SKILL.md read and verified against the listing (read --skill); a
  # file that fails is refused, and nothing more of the skill is read.
  skill=$("$probe" wire --json "${bounds[@]}" "$url" | jq -r '.wire.skills.skills[0].uri // empty')
  run read "${bounds[@]}" --skill "$url" "${skill:-skill://none-listed/SKILL.md}"
  ;;
auth/pre-registration)
  export CONFORMANCE_CLIENT_SECRET
  CONFORMANCE_CLIENT_SECRET=$(ctxval .client_secret)
  run wire "${bounds[@]}" "${oauth[@]}" --client-id "$(ctxval .client_id)" --client-secret-env CONFORMANCE_CLIENT_SECRET --issuer "$(issuer)" "$url"
  ;;
auth/client-credentials-jwt)
  # The scenario's key, in a file only this user reads, removed at exit.
  key=$(mktemp "${TMPDIR:-/tmp}/conformance-key.XXXXXX")
  trap 'rm -f "$key"' EXIT
  chmod 600 "$key"
  ctxval .private_key_pem >"$key"
  run wire "${bounds[@]}" --client-id "$(ctxval .client_id)" --client-key "$key" "$url"
  ;;
auth/client-credentials-basic)
  export CONFORMANCE_CLIENT_SECRET
  CONFORMANCE_CLIENT_SECRET=$(ctxval .client_secret)
  run wire "${bounds[@]}" --client-id "$(ctxval .client_id)" --client-secret-env CONFORMANCE_CLIENT_SECRET --issuer "$(issuer)" "$url"
  ;;
auth/basic-cimd)
  # A client with a published Client ID Metadata Document names its URL
  # (the suite's authorization server does not fetch it).
  run wire "${bounds[@]}" "${oauth[@]}" --client-id https://conformance-test.local/client-metadata.json "$url"
  ;;
auth/scope-step-up)
  # The scenario's server asks more scope of tools/call than of the rest:
  # a user calling its tool is what makes the step-up happen.
  run call "${bounds[@]}" "${oauth[@]}" "$url" test-tool
  ;;
auth/*)
  cid=$(ctxval .client_id)
  run wire "${bounds[@]}" "${oauth[@]}" ${cid:+--client-id "$cid"} "$url"
  ;;
*)
  run wire "${bounds[@]}" "$url"
  ;;
esac
exit 0
