package probe

import (
	"fmt"
	"strconv"
	"testing"
)

const skillsCaps = `{"resources":{},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}}`

func skillEntry(i int) string {
	return fmt.Sprintf(`{"uri":"skill://s%d/SKILL.md","frontmatter":{"name":"s%d","description":"d"},"resources":"dynamic"}`, i, i)
}

func TestSkillsCapture(t *testing.T) {
	for _, tc := range []struct {
		name     string
		caps     string
		routes   map[string]route
		maxPages int
		// want: skills captured (nil capture when -1), gets asked, not got, list error
		skills, gets, notGot int
		listErr              string
	}{
		{name: "not declared", caps: `{"resources":{}}`, skills: -1},
		{name: "two pages, a get each", caps: skillsCaps, routes: map[string]route{
			"skills/list": pages(map[string]string{"": `{"skills":[` + skillEntry(1) + `],"nextCursor":"p2"}`, "p2": `{"skills":[` + skillEntry(2) + `]}`}),
			"skills/get":  func(r req) []string { return ok(r, `{"skill":{}}`) },
		}, skills: 2, gets: 2},
		{name: "a cursor that never ends", caps: skillsCaps, maxPages: 5, routes: map[string]route{
			"skills/list": func(r req) []string {
				n, _ := strconv.Atoi(r.Params.Get("cursor").String())
				return ok(r, `{"skills":[`+skillEntry(n)+`],"nextCursor":"`+strconv.Itoa(n+1)+`"}`)
			},
			"skills/get": func(r req) []string { return ok(r, `{"skill":{}}`) },
		}, skills: 5, gets: 5, listErr: "stopped after 5 pages"},
		{name: "thousands of skills: gets bounded", caps: skillsCaps, routes: map[string]route{
			"skills/list": func(r req) []string {
				b := []byte(`{"skills":[`)
				for i := range MaxSkillGets + 7 {
					if i > 0 {
						b = append(b, ',')
					}
					b = append(b, skillEntry(i)...)
				}
				return ok(r, string(append(b, "]}"...)))
			},
			"skills/get": func(r req) []string { return fail(r, -32602, "no", "") },
		}, skills: MaxSkillGets + 7, gets: MaxSkillGets, notGot: 7},
		{name: "skills/get never answered: one wait, not one per skill", caps: skillsCaps, routes: map[string]route{
			"skills/list": pages(map[string]string{"": `{"skills":[` + skillEntry(1) + `,` + skillEntry(2) + `,` + skillEntry(3) + `]}`}),
			"skills/get":  silent,
		}, skills: 3, gets: 1, notGot: 2},
		{name: "skills/list not served", caps: skillsCaps, routes: map[string]route{}, skills: 0, listErr: "JSON-RPC error -32601: Method not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := fastOptions("2025-11-25")
			o.MaxPages = tc.maxPages
			c, err := run(t, startServer(t, scripted(tc.caps, tc.routes)), o)
			if err != nil {
				t.Fatal(err)
			}
			if tc.skills < 0 {
				if c.Skills != nil {
					t.Errorf("skills captured for a server without the extension: %+v", c.Skills)
				}
				return
			}
			sk := c.Skills
			if sk == nil {
				t.Fatal("no skills capture")
			}
			if len(sk.List.Items) != tc.skills || len(sk.Gets) != tc.gets || sk.NotGot != tc.notGot || sk.List.Error != tc.listErr {
				t.Errorf("items %d gets %d not got %d error %q; want %d %d %d %q", len(sk.List.Items), len(sk.Gets), sk.NotGot, sk.List.Error,
					tc.skills, tc.gets, tc.notGot, tc.listErr)
			}
			if string(sk.Setting) != `{"directoryRead":true}` {
				t.Errorf("setting %s", sk.Setting)
			}
		})
	}
}
