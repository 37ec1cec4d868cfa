package result

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// every returns progress times every step from step up to and including end.
func every(step, end time.Duration) []time.Duration {
	var out []time.Duration
	for at := step; at <= end; at += step {
		out = append(out, at)
	}
	return out
}

func mustPolicy(t *testing.T, s string) Policy {
	t.Helper()
	p, err := ParsePolicy(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPolicies(t *testing.T) {
	ps := Policies()
	if len(ps) == 0 {
		t.Fatal("no policies")
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if p.Name == "" || seen[p.Name] {
			t.Errorf("policy name %q empty or repeated", p.Name)
		}
		seen[p.Name] = true
		if p.Source == "" || p.MeasuredOn == "" {
			t.Errorf("%s: no source or date", p.Name)
		}
		if p.Timeout <= 0 && p.MaxTotal <= 0 && p.Idle <= 0 {
			t.Errorf("%s: no limit", p.Name)
		}
	}
	for _, name := range []string{"ts-sdk", "ts-sdk-reset", "codex"} {
		i := slices.IndexFunc(ps, func(p Policy) bool { return p.Name == name })
		if i < 0 || ps[i].Timeout != 60*time.Second {
			t.Errorf("%s: want a 60 s timeout", name)
		}
	}
	if gap, name := DefaultGap(); gap != 60*time.Second || name != "ts-sdk-reset" {
		t.Errorf("DefaultGap = %s from %s", gap, name)
	}
}

func TestParsePolicy(t *testing.T) {
	cases := []struct {
		in   string
		want Policy
		err  string
	}{
		{in: "mine=timeout:30s,reset-on-progress,max-total:2m", want: Policy{Name: "mine", Timeout: 30 * time.Second, ResetOnProgress: true, MaxTotal: 2 * time.Minute, Source: "--policy"}},
		{in: " x = timeout:500ms , idle:10s ", want: Policy{Name: "x", Timeout: 500 * ms, Idle: 10 * time.Second, Source: "--policy"}},
		{in: "sdk=timeout:60s,reset-on-progress,max-total:5m,max-total-on-progress", want: Policy{Name: "sdk", Timeout: time.Minute, ResetOnProgress: true, MaxTotal: 5 * time.Minute, MaxTotalOnProgress: true, Source: "--policy"}},
		{in: "idle=idle:3s", want: Policy{Name: "idle", Idle: 3 * time.Second, Source: "--policy"}},
		{in: "timeout:30s", err: "want NAME="},
		{in: "=timeout:30s", err: "no name"},
		{in: "a=timeout:30s,wait:3s", err: `unknown key "wait"`},
		{in: "a=timeout:thirty", err: "not a positive duration"},
		{in: "a=timeout:-1s", err: "not a positive duration"},
		{in: "a=timeout:0s", err: "not a positive duration"},
		{in: "a=timeout", err: "needs a duration"},
		{in: "a=timeout:1s,timeout:2s", err: "given twice"},
		{in: "a=timeout:1s,,idle:2s", err: "empty item"},
		{in: "a=reset-on-progress:yes,timeout:1s", err: "takes no value"},
		{in: "a=reset-on-progress", err: "there is none"},
		{in: "a=", err: "empty item"},
		{in: "a=max-total:1m,max-total-on-progress", err: "needs max-total and reset-on-progress"},
	}
	for _, c := range cases {
		got, err := ParsePolicy(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParsePolicy(%q) error = %v, want %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("ParsePolicy(%q): %v", c.in, err)
		case c.err == "" && got != c.want:
			t.Errorf("ParsePolicy(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestJudge(t *testing.T) {
	cases := []struct {
		name    string
		policy  string
		t       Timeline
		outcome string
		at      time.Duration
		why     string
	}{
		// The acceptance: progress every 100 ms for 2 s.
		{name: "no reset: times out at the timeout whatever the progress", policy: "p=timeout:1s",
			t: Timeline{Duration: 2 * time.Second, Completed: true, Progress: every(100*ms, 2*time.Second)}, outcome: WouldTimeOut, at: time.Second, why: "progress does not extend"},
		{name: "reset on progress: survives", policy: "p=timeout:1s,reset-on-progress",
			t: Timeline{Duration: 2 * time.Second, Completed: true, Progress: every(100*ms, 2*time.Second)}, outcome: Survives},
		{name: "reset on progress, then a silence longer than the timeout", policy: "p=timeout:1s,reset-on-progress",
			t: Timeline{Duration: 3 * time.Second, Completed: true, Progress: every(100*ms, 500*ms)}, outcome: WouldTimeOut, at: 1500 * ms, why: "after the last progress at 500ms"},
		{name: "reset on progress, no progress at all", policy: "p=timeout:1s,reset-on-progress",
			t: Timeline{Duration: 2 * time.Second, Completed: true}, outcome: WouldTimeOut, at: time.Second, why: "no progress or response within"},
		{name: "a response exactly at the deadline does not survive", policy: "p=timeout:1s",
			t: Timeline{Duration: time.Second, Completed: true}, outcome: WouldTimeOut, at: time.Second},
		{name: "a response before the deadline", policy: "p=timeout:1s",
			t: Timeline{Duration: 999 * ms, Completed: true}, outcome: Survives},
		{name: "total ceiling cuts a call that keeps reporting progress", policy: "p=timeout:1s,reset-on-progress,max-total:1500ms",
			t: Timeline{Duration: 2 * time.Second, Completed: true, Progress: every(100*ms, 2*time.Second)}, outcome: WouldTimeOut, at: 1500 * ms, why: "total ceiling"},
		{name: "SDK ceiling: checked at the first progress past it", policy: "p=timeout:1s,reset-on-progress,max-total:1450ms,max-total-on-progress",
			t: Timeline{Duration: 2 * time.Second, Completed: true, Progress: every(100*ms, 2*time.Second)}, outcome: WouldTimeOut, at: 1500 * ms, why: "checked only then"},
		{name: "SDK ceiling: no progress past it, so the call outlives it", policy: "p=timeout:1s,reset-on-progress,max-total:1500ms,max-total-on-progress",
			t: Timeline{Duration: 2 * time.Second, Completed: true, Progress: every(100*ms, 1200*ms)}, outcome: Survives},
		{name: "idle: the first silence past the limit", policy: "p=idle:1s",
			t: Timeline{Duration: 5 * time.Second, Completed: true, Progress: []time.Duration{300 * ms, 900 * ms, 3 * time.Second}}, outcome: WouldTimeOut, at: 1900 * ms, why: "idle limit"},
		{name: "idle: progress often enough", policy: "p=idle:1s",
			t: Timeline{Duration: 2 * time.Second, Completed: true, Progress: every(500*ms, 2*time.Second)}, outcome: Survives},
		{name: "not completed, and the policy would still be waiting", policy: "p=timeout:60s",
			t: Timeline{Duration: 5 * time.Second}, outcome: Inconclusive, why: "at the earliest at 60s"},
		{name: "not completed, but the policy had given up already", policy: "p=timeout:1s",
			t: Timeline{Duration: 5 * time.Second}, outcome: WouldTimeOut, at: time.Second},
		{name: "not completed, progress until the probe's end", policy: "p=timeout:1s,reset-on-progress",
			t: Timeline{Duration: 5 * time.Second, Progress: every(100*ms, 5*time.Second)}, outcome: Inconclusive},
		{name: "a flood past what was kept: the silence after it is not known", policy: "p=timeout:1s,reset-on-progress",
			t: Timeline{Duration: 5 * time.Second, Completed: true, Progress: every(1*ms, 200*ms), KnownUntil: 200 * ms}, outcome: Inconclusive, why: "counted, not kept"},
		{name: "a flood past what was kept does not hide a plain timeout", policy: "p=timeout:1s",
			t: Timeline{Duration: 5 * time.Second, Completed: true, Progress: every(1*ms, 200*ms), KnownUntil: 200 * ms}, outcome: WouldTimeOut, at: time.Second},
		{name: "a flood past what was kept, timer fired before it", policy: "p=timeout:100ms,reset-on-progress",
			t: Timeline{Duration: 5 * time.Second, Completed: true, Progress: []time.Duration{50 * ms, 400 * ms}, KnownUntil: 400 * ms}, outcome: WouldTimeOut, at: 150 * ms},
		{name: "progress after the horizon is ignored", policy: "p=timeout:1s,reset-on-progress",
			t: Timeline{Duration: 500 * ms, Completed: true, Progress: []time.Duration{time.Hour}}, outcome: Survives},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustPolicy(t, c.policy)
			v := Judge(p, c.t)
			if v.Policy != p {
				t.Errorf("Policy = %+v", v.Policy)
			}
			if v.Outcome != c.outcome || c.outcome == WouldTimeOut && v.At != c.at {
				t.Fatalf("%s at %s (%s), want %s at %s", v.Outcome, v.At, v.Why, c.outcome, c.at)
			}
			if v.Why == "" || !strings.Contains(v.Why, c.why) {
				t.Errorf("Why = %q, want %q in it", v.Why, c.why)
			}
		})
	}
}

func TestJudgeKnownPolicies(t *testing.T) {
	// A 90 s call with progress every 10 s: the bare SDK and Codex give up
	// at 60 s; the SDK with reset survives; Claude Code's day-long default
	// survives.
	tl := Timeline{Duration: 90 * time.Second, Completed: true, Progress: every(10*time.Second, 90*time.Second)}
	want := map[string]string{"ts-sdk": WouldTimeOut, "ts-sdk-reset": Survives, "claude-code": Survives, "codex": WouldTimeOut}
	vs := JudgeAll(Policies(), tl)
	for _, v := range vs {
		if w, ok := want[v.Policy.Name]; ok && v.Outcome != w {
			t.Errorf("%s: %s (%s), want %s", v.Policy.Name, v.Outcome, v.Why, w)
		}
	}
	if len(vs) != len(Policies()) {
		t.Errorf("%d verdicts", len(vs))
	}
	fs := VerdictFindings(vs)
	if len(fs) != 2 || !strings.Contains(fs[0].Message, "would give up at 60s") {
		t.Errorf("findings = %+v", fs)
	}
}

func TestDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		100 * ms: "100ms", 1500 * ms: "1.5s", time.Second: "1s", time.Minute: "60s", 90 * time.Second: "90s",
		100_000_000 * ms: "27h46m40s", 61500 * ms: "61.5s", 0: "0s", 2 * time.Minute: "2m", 150 * time.Second: "2m30s",
	} {
		if got := dur(d); got != want {
			t.Errorf("dur(%s) = %q, want %q", time.Duration(d), got, want)
		}
	}
}

func TestCheckProgress(t *testing.T) {
	tok := []byte(`"t1"`)
	ev := func(at time.Duration, p float64) ProgressEvent { return ProgressEvent{At: at, Progress: p, Token: tok} }
	cases := []struct {
		name      string
		sent      []byte
		events    []ProgressEvent
		end       time.Duration
		completed bool
		gap       time.Duration
		codes     []string
		msg       string
	}{
		{name: "clean", sent: tok, events: []ProgressEvent{ev(100*ms, 1), ev(200*ms, 2)}, end: 300 * ms, completed: true},
		{name: "no progress requested, none sent", end: 90 * time.Second, completed: true},
		{name: "equal progress is not an increase", sent: tok, events: []ProgressEvent{ev(100*ms, 1), ev(200*ms, 1), ev(300*ms, 0.5)}, end: time.Second, completed: true,
			codes: []string{"progress-not-monotonic"}, msg: "2 time(s)"},
		{name: "after the response", sent: tok, events: []ProgressEvent{ev(100*ms, 1), ev(400*ms, 2), {At: 400 * ms, Progress: 3, Token: tok, AfterResponse: true}}, end: 300 * ms, completed: true,
			codes: []string{"progress-after-response"}, msg: "2 progress notification(s) after the response"},
		{name: "a token other than the request's", sent: tok, events: []ProgressEvent{{At: 100 * ms, Progress: 1, Token: []byte(`"other"`)}}, end: time.Second, completed: true,
			codes: []string{"progress-unknown-token"}, msg: `token "other"`},
		{name: "a progress that is not a number is left out of the monotonic check", sent: tok, events: []ProgressEvent{ev(100*ms, 1), {At: 200 * ms, Token: tok, Invalid: `progress "half": not a number`}, ev(300*ms, 2)}, end: time.Second, completed: true,
			codes: []string{"progress-invalid"}, msg: `#2 at 200ms: progress "half": not a number`},
		{name: "no token", sent: tok, events: []ProgressEvent{{At: 100 * ms, Progress: 1}}, end: time.Second, completed: true,
			codes: []string{"progress-unknown-token"}, msg: "no token"},
		{name: "progress when the request carried no token", events: []ProgressEvent{ev(100*ms, 1)}, end: time.Second, completed: true,
			codes: []string{"progress-unknown-token"}, msg: "the request carried none"},
		{name: "an integer token, spaced differently", sent: []byte(`7`), events: []ProgressEvent{{At: time.Second, Progress: 1, Token: []byte(` 7 `)}}, end: 2 * time.Second, completed: true},
		{name: "a silence over the given gap", sent: tok, events: []ProgressEvent{ev(time.Second, 1), ev(5*time.Second, 2)}, end: 6 * time.Second, completed: true, gap: 2 * time.Second,
			codes: []string{"progress-gap"}, msg: "no progress for 4s (from 1s to 5s, the next progress), over 2s"},
		{name: "the default gap: 60 s", sent: tok, events: []ProgressEvent{ev(10*time.Second, 1)}, end: 80 * time.Second, completed: true,
			codes: []string{"progress-gap"}, msg: "over 60s, the shortest window a known client allows under reset-on-progress (ts-sdk-reset)"},
		{name: "under the default gap", sent: tok, events: []ProgressEvent{ev(50*time.Second, 1)}, end: 100 * time.Second, completed: true},
		{name: "silence until the probe stopped", sent: tok, end: 2 * time.Second, gap: time.Second,
			codes: []string{"progress-gap"}, msg: "the probe stopped waiting"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := CheckProgress(c.sent, c.events, c.end, c.completed, c.gap)
			if got := codes(fs); !slices.Equal(got, c.codes) {
				t.Fatalf("codes = %v, want %v: %+v", got, c.codes, fs)
			}
			if c.msg != "" && !strings.Contains(fs[0].Message, c.msg) {
				t.Errorf("message %q lacks %q", fs[0].Message, c.msg)
			}
		})
	}
}
