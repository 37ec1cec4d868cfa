package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
)

// SkillsExtension is the Skills extension's identifier (SEP-2640): a
// server that declares it under capabilities.extensions serves skills/list
// and skills/get.
const SkillsExtension = "io.modelcontextprotocol/skills"

// MaxSkillGets bounds the skills/get requests of one capture: one per
// listed skill, for the first this many. A listing of thousands of skills
// costs a few pages, not thousands of round trips.
const MaxSkillGets = 100

// Skills is what a server that declares the Skills extension served: its
// declaration, every page of skills/list as received, and skills/get of
// each listed skill (the first MaxSkillGets).
type Skills struct {
	// Setting is the value under capabilities.extensions, as sent.
	Setting []byte
	List    List
	Gets    []SkillGet
	// NotGot counts the listed skills not asked for: past MaxSkillGets,
	// or after a skills/get went unanswered (GetsStopped says so).
	NotGot      int
	GetsStopped string
}

// SkillGet is one skills/get and what answered it.
type SkillGet struct {
	URI    string // the uri asked for, as listed
	Raw    []byte // the whole response as received, nil if none
	Result []byte
	// Error says why there is no result: a JSON-RPC error (Code set),
	// no reply, or the connection ending.
	Error string
	Code  int64
}

// SkillsSetting is the value a capabilities object declares for the Skills
// extension, as sent; ok is false when it does not declare it.
func SkillsSetting(caps []byte) (raw []byte, ok bool) {
	v := gjson.GetBytes(caps, "extensions."+gjson.Escape(SkillsExtension))
	if !v.Exists() {
		return nil, false
	}
	return rawOf(caps, v), true
}

// ListSkills lists the skills of a server that declares the extension and
// gets each (Capture.Skills); it does nothing for one that does not.
func (cl *Client) ListSkills(ctx context.Context) { cl.p.skills(ctx, true) }

// ListSkillsOnly lists the skills and gets none: what a host does before it
// loads one, the listing being all it needs to choose and to verify.
func (cl *Client) ListSkillsOnly(ctx context.Context) { cl.p.skills(ctx, false) }

func (p *prober) skills(ctx context.Context, get bool) {
	setting, ok := SkillsSetting(p.c.Capabilities)
	if !ok {
		return
	}
	sk := &Skills{Setting: setting, List: List{Method: "skills/list", Key: "skills"}}
	p.c.Skills = sk
	if p.stopped != "" {
		sk.List.Skipped = p.stopped
		return
	}
	sk.List.Asked = true
	p.list(ctx, &sk.List, "uri", "skill")
	if !get {
		return
	}
	for _, it := range sk.List.Items {
		uri := gjson.GetBytes(it, "uri")
		if uri.Type != gjson.String {
			continue
		}
		if len(sk.Gets) == MaxSkillGets || sk.GetsStopped != "" {
			sk.NotGot++
			continue
		}
		if ctx.Err() != nil || p.stopped != "" {
			break
		}
		g := SkillGet{URI: uri.String()}
		r, err := p.s.Call(ctx, "skills/get", p.params(`"uri":`+uri.Raw), p.o.Timeout)
		g.Raw, g.Result = r.Raw, r.Result
		var re *RPCError
		var te *TimeoutError
		switch {
		case errors.As(err, &re):
			g.Error, g.Code = re.Error(), re.Code
		case errors.As(err, &te):
			// A server silent to one skills/get would make a hundred
			// of them cost a hundred --timeouts: ask no more.
			g.Error = err.Error()
			sk.GetsStopped = fmt.Sprintf("skills/get of %s got no answer within %v; the rest were not asked", g.URI, p.o.Timeout)
		case err != nil:
			g.Error = err.Error()
		}
		sk.Gets = append(sk.Gets, g)
	}
}
