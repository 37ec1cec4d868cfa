package probe

import (
	"strings"

	"github.com/tidwall/gjson"
)

// cacheable are the methods whose complete results carry caching hints in
// 2026-07-28 (basic/utilities/caching: server/discover, the lists and
// resources/read).
var cacheable = map[string]bool{
	"server/discover":          true,
	"tools/list":               true,
	"prompts/list":             true,
	"resources/list":           true,
	"resources/templates/list": true,
	"resources/read":           true,
}

// ShapeClause is what LegacyShape rests on, for a finding's message.
const ShapeClause = "2026-07-28 gives every result a resultType (basic, MUST) and every complete list or read result ttlMs and cacheScope (basic/utilities/caching, MUST)"

// LegacyShape says what a result of a 2026-07-28 connection lacks of the
// shape its era gives every result: resultType on all (basic/index), and
// ttlMs and cacheScope on a complete result of a cacheable method
// (basic/utilities/caching, MUST). "" when it has them. A dual-era server
// that pinned the connection to 2025-11-25 answers without all three:
// the label "2026-07-28" would then say what the answers do not.
func LegacyShape(method string, result []byte) string {
	res := gjson.ParseBytes(result)
	if !res.IsObject() {
		return ""
	}
	var missing []string
	rt := res.Get("resultType")
	if !rt.Exists() {
		missing = append(missing, "resultType")
	}
	if cacheable[method] && (!rt.Exists() || rt.String() == "complete") {
		for _, k := range []string{"ttlMs", "cacheScope"} {
			if !res.Get(k).Exists() {
				missing = append(missing, k)
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "no " + strings.Join(missing, ", no ")
}
