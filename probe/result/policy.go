package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/hosts"
)

// Verdict outcomes.
const (
	Survives     = "survives"
	WouldTimeOut = "would time out"
	Inconclusive = "inconclusive"
)

func policies() []Policy {
	var out []Policy
	for _, c := range hosts.KnownPolicies() {
		p := Policy{Name: c.Name, ResetOnProgress: c.ResetOnProgress, Source: c.Source, MeasuredOn: c.MeasuredOn, Note: c.Note}
		for _, f := range []struct {
			s string
			d *time.Duration
		}{{c.Timeout, &p.Timeout}, {c.MaxTotal, &p.MaxTotal}, {c.Idle, &p.Idle}} {
			if f.s == "" {
				continue
			}
			d, err := time.ParseDuration(f.s)
			if err != nil {
				panic(fmt.Sprintf("result: embedded hosts.json: policy %s: %v", c.Name, err))
			}
			*f.d = d
		}
		out = append(out, p)
	}
	return out
}

// policyKeys are the keys --policy knows, in the order its errors list them.
var policyKeys = []string{"timeout", "reset-on-progress", "max-total", "idle", "max-total-on-progress"}

func parsePolicy(s string) (Policy, error) {
	name, spec, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok {
		return Policy{}, fmt.Errorf("--policy %q: want NAME=timeout:D[,reset-on-progress][,max-total:D][,idle:D]", s)
	}
	if name == "" {
		return Policy{}, fmt.Errorf("--policy %q: the policy has no name before '='", s)
	}
	p := Policy{Name: name, Source: "--policy"}
	seen := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return Policy{}, fmt.Errorf("--policy %s: an empty item in %q", name, spec)
		}
		key, val, hasVal := strings.Cut(item, ":")
		key = strings.TrimSpace(key)
		if !slices.Contains(policyKeys, key) {
			return Policy{}, fmt.Errorf("--policy %s: unknown key %q; known: %s", name, key, strings.Join(policyKeys, ", "))
		}
		if seen[key] {
			return Policy{}, fmt.Errorf("--policy %s: %s given twice", name, key)
		}
		seen[key] = true
		switch key {
		case "reset-on-progress", "max-total-on-progress":
			if hasVal {
				return Policy{}, fmt.Errorf("--policy %s: %s takes no value", name, key)
			}
			if key == "reset-on-progress" {
				p.ResetOnProgress = true
			} else {
				p.MaxTotalOnProgress = true
			}
			continue
		}
		if !hasVal || strings.TrimSpace(val) == "" {
			return Policy{}, fmt.Errorf("--policy %s: %s needs a duration, such as %s:30s", name, key, key)
		}
		d, err := time.ParseDuration(strings.TrimSpace(val))
		if err != nil || d <= 0 {
			return Policy{}, fmt.Errorf("--policy %s: %s: %q is not a positive duration (such as 500ms, 30s, 2m)", name, key, val)
		}
		switch key {
		case "timeout":
			p.Timeout = d
		case "max-total":
			p.MaxTotal = d
		case "idle":
			p.Idle = d
		}
	}
	switch {
	case p.ResetOnProgress && p.Timeout == 0:
		return Policy{}, fmt.Errorf("--policy %s: reset-on-progress resets the timeout, and there is none", name)
	case p.Timeout == 0 && p.MaxTotal == 0 && p.Idle == 0:
		return Policy{}, fmt.Errorf("--policy %s: sets no limit: give timeout, max-total or idle", name)
	case p.MaxTotalOnProgress && (p.MaxTotal == 0 || !p.ResetOnProgress):
		return Policy{}, fmt.Errorf("--policy %s: max-total-on-progress needs max-total and reset-on-progress (it is when the TypeScript SDK checks maxTotalTimeout)", name)
	}
	return p, nil
}

// giveUp is when and why a policy stops waiting, if it does.
type giveUp struct {
	at  time.Duration
	why string
	set bool
}

func (g *giveUp) earlier(at time.Duration, why string) {
	if !g.set || at < g.at {
		*g = giveUp{at: at, why: why, set: true}
	}
}

func judge(p Policy, t Timeline) Verdict {
	v := Verdict{Policy: p}
	horizon := t.Duration
	var prog []time.Duration
	for _, at := range t.Progress {
		if at >= 0 && at <= horizon {
			prog = append(prog, at)
		}
	}
	slices.Sort(prog)

	var g giveUp
	if p.Timeout > 0 {
		if !p.ResetOnProgress {
			g.earlier(p.Timeout, fmt.Sprintf("no response within the %s timeout, which progress does not extend", dur(p.Timeout)))
		} else {
			last, seen := time.Duration(0), false
			fired := false
			for _, at := range prog {
				// A progress at the very moment the timer fires does not
				// save the call: the timer may run first.
				if at >= last+p.Timeout {
					break
				}
				if p.MaxTotalOnProgress && p.MaxTotal > 0 && at >= p.MaxTotal {
					g.earlier(at, fmt.Sprintf("a progress notification came after the %s total ceiling, which is checked only then", dur(p.MaxTotal)))
					fired = true
					break
				}
				last, seen = at, true
			}
			if !fired {
				why := fmt.Sprintf("no progress or response for %s after the last progress at %s", dur(p.Timeout), dur(last))
				if !seen {
					why = fmt.Sprintf("no progress or response within the %s timeout", dur(p.Timeout))
				}
				g.earlier(last+p.Timeout, why)
			}
		}
	}
	if p.MaxTotal > 0 && !p.MaxTotalOnProgress {
		g.earlier(p.MaxTotal, fmt.Sprintf("the %s total ceiling passed, whatever the progress", dur(p.MaxTotal)))
	}
	if p.Idle > 0 {
		last := time.Duration(0)
		for _, at := range prog {
			if at >= last+p.Idle {
				break
			}
			last = at
		}
		g.earlier(last+p.Idle, fmt.Sprintf("silent for %s from %s, past the %s idle limit", dur(p.Idle), dur(last), dur(p.Idle)))
	}

	switch {
	case t.Completed && (!g.set || t.Duration < g.at):
		v.Outcome = Survives
		v.Why = fmt.Sprintf("the response came at %s", dur(t.Duration))
		if g.set {
			v.Why += fmt.Sprintf(", before this policy would give up at %s", dur(g.at))
		}
	case g.set && g.at <= t.Duration && t.KnownUntil > 0 && g.at > t.KnownUntil && (p.ResetOnProgress || p.Idle > 0 || p.MaxTotalOnProgress):
		// The timer would fire where the progress is not known: what
		// was counted, not kept, may have kept it running.
		v.Outcome = Inconclusive
		v.Why = fmt.Sprintf("the progress after %s was counted, not kept (a flood past what the session keeps): whether it kept this policy's timer running is not known", dur(t.KnownUntil))
	case g.set && g.at <= t.Duration:
		v.Outcome, v.At, v.Why = WouldTimeOut, g.at, g.why
	default:
		v.Outcome = Inconclusive
		v.Why = fmt.Sprintf("no response within the probe's own wait (%s), and this policy would not have given up by then", dur(t.Duration))
		if g.set {
			v.Why += fmt.Sprintf(" (at the earliest at %s)", dur(g.at))
		}
	}
	return v
}

// dur prints a duration rounded to the millisecond as a person writes
// it: "100ms", "1.5s", "60s", "90s", "2m", "27h46m40s".
func dur(d time.Duration) string {
	if d >= time.Millisecond {
		d = d.Round(time.Millisecond)
	}
	switch {
	case d < time.Second:
		return d.String()
	case d < 2*time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	case d%time.Second != 0:
		return d.String()
	}
	var b strings.Builder
	h, m, sec := d/time.Hour, d%time.Hour/time.Minute, d%time.Minute/time.Second
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if sec > 0 {
		fmt.Fprintf(&b, "%ds", sec)
	}
	return b.String()
}

// JudgeAll applies each policy to a timeline, in order.
func JudgeAll(ps []Policy, t Timeline) []Verdict {
	out := make([]Verdict, len(ps))
	for i, p := range ps {
		out[i] = Judge(p, t)
	}
	return out
}

// VerdictFindings are the would-time-out findings of verdicts.
func VerdictFindings(vs []Verdict) []findings.Finding {
	var out []findings.Finding
	for _, v := range vs {
		if v.Outcome == WouldTimeOut {
			out = append(out, findings.New(findings.WouldTimeOut, "%s would give up at %s: %s", v.Policy.Name, dur(v.At), v.Why))
		}
	}
	return out
}

// ProgressEvent is one notifications/progress the probe saw during a call.
type ProgressEvent struct {
	At       time.Duration // since the request was sent
	Progress float64
	HasTotal bool
	Total    float64
	Message  string
	// Token is the raw progressToken as the server sent it, nil when the
	// notification had none.
	Token []byte
	// AfterResponse: the notification came after the call's response, in
	// the order the probe read them.
	AfterResponse bool
	// Invalid says what of progress or total is not a number, as sent;
	// "" when both are (or total is absent).
	Invalid string
}

// DefaultGap is the silence past which a progress timeline gets a
// progress-gap finding: the shortest window among the known policies that
// reset on progress or watch for idleness (today the TypeScript SDK's 60 s
// with resetTimeoutOnProgress). Past it, that client gives up although
// the server reports progress. The name is the policy it comes from.
func DefaultGap() (time.Duration, string) {
	var gap time.Duration
	name := ""
	for _, p := range Policies() {
		for _, w := range []time.Duration{resetWindow(p), p.Idle} {
			if w > 0 && (gap == 0 || w < gap) {
				gap, name = w, p.Name
			}
		}
	}
	return gap, name
}

func resetWindow(p Policy) time.Duration {
	if p.ResetOnProgress {
		return p.Timeout
	}
	return 0
}

// CheckProgress holds a call's progress timeline to the spec
// (basic/utilities/progress): progress increases, stops after completion,
// references the request's token; and reports the longest silence when
// it is over gap (0: DefaultGap). sent is the raw progressToken the
// request carried, nil when it carried none; end is when the response
// came (completed) or when the probe stopped waiting.
func CheckProgress(sent []byte, events []ProgressEvent, end time.Duration, completed bool, gap time.Duration) []findings.Finding {
	var out []findings.Finding
	gapFrom := ""
	if gap <= 0 {
		gap, gapFrom = DefaultGap()
		gapFrom = ", the shortest window a known client allows under reset-on-progress (" + gapFrom + ")"
	}
	want := compactJSON(sent)
	var badToken, after, down, invalid []string
	prev, hasPrev := 0.0, false
	for i, e := range events {
		if e.Token == nil || want == nil || !bytes.Equal(compactJSON(e.Token), want) {
			tok := "no token"
			if e.Token != nil {
				tok = "token " + string(e.Token)
			}
			badToken = append(badToken, fmt.Sprintf("#%d at %s (%s)", i+1, dur(e.At), tok))
			continue
		}
		if e.AfterResponse || completed && e.At > end {
			after = append(after, fmt.Sprintf("#%d at %s", i+1, dur(e.At)))
		}
		if e.Invalid != "" {
			invalid = append(invalid, fmt.Sprintf("#%d at %s: %s", i+1, dur(e.At), e.Invalid))
			continue
		}
		if hasPrev && e.Progress <= prev {
			down = append(down, fmt.Sprintf("#%d at %s: %g after %g", i+1, dur(e.At), e.Progress, prev))
		}
		prev, hasPrev = e.Progress, true
	}
	if len(badToken) > 0 {
		what := "the request's progressToken " + string(want)
		if want == nil {
			what = "a progressToken, and the request carried none"
		}
		out = append(out, findings.New(findings.ProgressUnknownToken, "%d progress notification(s) without %s: %s", len(badToken), what, examples(badToken)))
	}
	if len(invalid) > 0 {
		out = append(out, findings.New(findings.ProgressInvalid, "%d progress notification(s) with a value that is not a number (2025-11-25 schema, ProgressNotification): %s", len(invalid), examples(invalid)))
	}
	if len(down) > 0 {
		out = append(out, findings.New(findings.ProgressNotMonotonic, "progress did not increase %d time(s): %s", len(down), examples(down)))
	}
	if len(after) > 0 {
		out = append(out, findings.New(findings.ProgressAfterResponse, "%d progress notification(s) after the response at %s: %s", len(after), dur(end), examples(after)))
	}
	if want == nil || gap <= 0 {
		return out
	}
	// The silences a client would see: from the request to the first
	// progress, between progress, and from the last to the response (or
	// to the probe's end).
	last, from, to := time.Duration(0), time.Duration(0), time.Duration(0)
	longest := time.Duration(-1)
	mark := func(at time.Duration) {
		if at-last > longest {
			longest, from, to = at-last, last, at
		}
		last = at
	}
	for _, e := range events {
		if e.Token != nil && bytes.Equal(compactJSON(e.Token), want) && e.At >= last && e.At <= end && !e.AfterResponse {
			mark(e.At)
		}
	}
	mark(end)
	if longest > gap {
		until := "the response"
		if !completed {
			until = "the probe stopped waiting"
		}
		if to != end {
			until = "the next progress"
		}
		out = append(out, findings.New(findings.ProgressGap, "no progress for %s (from %s to %s, %s), over %s%s", dur(longest), dur(from), dur(to), until, dur(gap), gapFrom))
	}
	return out
}

func compactJSON(b []byte) []byte {
	if b == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

// examples lists the first few items.
func examples(s []string) string {
	const n = 3
	if len(s) <= n {
		return strings.Join(s, "; ")
	}
	return strings.Join(s[:n], "; ") + fmt.Sprintf("; and %d more", len(s)-n)
}
