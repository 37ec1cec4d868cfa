package call

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/tidwall/gjson"
)

// Task statuses (2025-11-25 basic/utilities/tasks).
const (
	statusWorking       = "working"
	statusInputRequired = "input_required"
)

// terminal statuses: a task in one MUST NOT move to any other.
var terminal = map[string]bool{"completed": true, "failed": true, "cancelled": true}

// allowed is the spec's lifecycle: from each non-terminal status, where a
// task may go (staying put is no transition).
var allowed = map[string]map[string]bool{
	statusWorking:       {statusInputRequired: true, "completed": true, "failed": true, "cancelled": true},
	statusInputRequired: {statusWorking: true, "completed": true, "failed": true, "cancelled": true},
}

// Poll interval bounds: a server's pollInterval is honoured within them,
// so that neither a zero nor an hour stalls or floods the probe.
const (
	minPoll     = 50 * time.Millisecond
	maxPoll     = 5 * time.Second
	defaultPoll = 500 * time.Millisecond
)

// taskInfo reads what the server says of tasks for this tool.
func (c *caller) taskInfo() (support string, capability bool) {
	support = gjson.GetBytes(c.r.Definition, "execution.taskSupport").String()
	capability = gjson.GetBytes(c.cl.Capture.Capabilities, "tasks.requests.tools.call").Exists()
	return support, capability
}

// requiredWithoutTask reports what a server answered a plain call of a
// tool that requires a task.
func (c *caller) requiredWithoutTask() {
	r := c.r
	if r.Kind != "tool" || c.o.Task {
		return
	}
	support, _ := c.taskInfo()
	if support != "required" {
		return
	}
	switch {
	case r.Error != nil && r.Error.Code == probe.CodeMethodNotFound:
		r.add(findings.TaskRequiredWithoutTask, "`%s` declares taskSupport \"required\" and was called without --task: the server answered -32601, as the spec asks (%s)", r.Name, r.Error.Message)
	case r.Error != nil:
		r.addAt(findings.Warning, findings.TaskRequiredWithoutTask, "`%s` declares taskSupport \"required\" and was called without --task: the server answered %s (%s) where 2025-11-25 basic/utilities/tasks says it MUST answer -32601", r.Name, rawCodeOr(r.Error), r.Error.Message)
	case r.Completed:
		what := "a result"
		if ie := gjson.GetBytes(r.Result, "isError"); ie.Bool() {
			what = fmt.Sprintf("an isError result (%q)", clip(gjson.GetBytes(r.Result, "content.0.text").String(), 100))
		}
		r.addAt(findings.Warning, findings.TaskRequiredWithoutTask, "`%s` declares taskSupport \"required\" and was called without --task: the server answered with %s where 2025-11-25 basic/utilities/tasks says it MUST answer -32601 (a JSON-RPC error never reaches the model; an isError result does)", r.Name, what)
	}
}

// follow takes a task-augmented call's CreateTaskResult and follows the
// task: tasks/get at the server's poll interval until a terminal status
// (tasks/result at once on input_required, as the spec asks), tasks/cancel
// after CancelAfter, then tasks/result; all within --timeout from the call.
func (c *caller) follow(created probe.Response) {
	r := c.r
	t := &Task{Created: created.Result}
	r.Task = t
	t.Support, t.Capability = c.taskInfo()
	supported := t.Capability && (t.Support == "optional" || t.Support == "required")
	task := gjson.GetBytes(created.Result, "task")
	id := task.Get("taskId")
	if !supported {
		why := "declares no tasks.requests.tools.call capability"
		if t.Capability {
			why = fmt.Sprintf("declares taskSupport %q for it", orAbsent(t.Support))
		}
		answer := "it answered with a task"
		if !task.Exists() {
			answer = "it ran the call as a plain one"
		}
		r.add(findings.TaskNotSupported, "--task on `%s`, whose server %s: clients MUST NOT augment this call (2025-11-25 basic/utilities/tasks); it was sent anyway, and %s", r.Name, why, answer)
	}
	if id.Type != gjson.String || !task.Get("status").Exists() {
		// A server that ignored the task runs the call as usual: its
		// answer is the call's result.
		switch {
		case !task.Exists() && supported:
			r.add(findings.TaskMalformed, "the task-augmented call of `%s` was answered without a task (no CreateTaskResult) although the tool supports tasks: the server ran it as a plain call", r.Name)
		case task.Exists():
			r.add(findings.TaskMalformed, "the task-augmented call of `%s` was answered with a task without a string taskId and a status", r.Name)
		}
		c.take(created, true, nil)
		return
	}
	t.ID = id.Str
	interval := c.observe(Poll{Method: "tools/call", At: created.T - r.Sent, Raw: created.Raw, Seq: created.Seq}, task)
	if t.Final != statusWorking {
		r.add(findings.TaskForbiddenTransition, "task %s began %q: tasks MUST begin in the working status (2025-11-25 basic/utilities/tasks)", t.shown(), t.Final)
	}
	deadline := time.Now().Add(c.timeout)
	cancelAt := time.Now().Add(c.o.CancelAfter)
	for last := false; !last && !t.Terminal && t.Final != statusInputRequired && c.ctx.Err() == nil; {
		wait := interval
		if c.o.CancelAfter > 0 && r.Cancel == nil {
			wait = min(wait, max(time.Until(cancelAt), 0))
		}
		// An interval that passes the deadline (a server's 10^12 ms,
		// held to maxPoll, against a shorter --timeout) still gets one
		// last poll before it, with a tenth of what is left to answer.
		if left := time.Until(deadline); wait >= left {
			if left < minPoll {
				break
			}
			wait, last = left-left/10, true
		}
		select {
		case <-time.After(wait):
		case <-c.ctx.Done():
		}
		if c.o.CancelAfter > 0 && r.Cancel == nil && !time.Now().Before(cancelAt) {
			c.cancelTask(deadline)
			continue
		}
		interval = c.get("tasks/get", deadline, interval)
	}
	if !t.Terminal && t.Final != statusInputRequired {
		r.add(findings.TaskNotTerminal, "task %s of `%s` was still %q after --timeout %v", t.shown(), r.Name, t.Final, c.timeout)
		r.Unanswered = fmt.Sprintf("the task did not end within %v", c.timeout)
		return
	}
	left := max(time.Until(deadline), time.Second)
	resp, err := c.cl.Session.Call(c.ctx, "tasks/result", c.params(`"taskId":`+quote(t.ID), ""), left)
	var te *probe.TimeoutError
	if errors.As(err, &te) {
		t.Polls = append(t.Polls, Poll{Method: "tasks/result", At: c.now(), Err: err.Error()})
		r.add(findings.TaskNotTerminal, "tasks/result for task %s of `%s` got no answer within what was left of --timeout %v", t.shown(), r.Name, c.timeout)
		r.Unanswered = err.Error()
		return
	}
	t.Polls = append(t.Polls, Poll{Method: "tasks/result", At: resp.T - r.Sent, Raw: resp.Raw, Seq: resp.Seq, Err: errString(err)})
	c.take(resp, true, err)
	// One last look: after input_required, tasks/result blocked until the
	// end, and this says how it ended; after a terminal status, it says
	// whether the task stayed there, as it MUST.
	if c.ctx.Err() == nil {
		c.get("tasks/get", time.Now().Add(max(time.Until(deadline), time.Second)), interval)
	}
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// get sends tasks/get and observes the task; it returns the next poll
// interval.
func (c *caller) get(method string, deadline time.Time, interval time.Duration) time.Duration {
	t := c.r.Task
	left := max(time.Until(deadline), 100*time.Millisecond)
	resp, err := c.cl.Session.Call(c.ctx, method, c.params(`"taskId":`+quote(t.ID), ""), left)
	if err != nil {
		p := Poll{Method: method, At: c.now(), Err: err.Error()}
		if resp.Raw != nil {
			p.At, p.Raw, p.Seq = resp.T-c.r.Sent, resp.Raw, resp.Seq
		}
		t.Polls = append(t.Polls, p)
		return interval
	}
	return c.observe(Poll{Method: method, At: resp.T - c.r.Sent, Raw: resp.Raw, Seq: resp.Seq}, gjson.ParseBytes(resp.Result))
}

// observe records a task state and checks its transition.
func (c *caller) observe(p Poll, task gjson.Result) time.Duration {
	t, r := c.r.Task, c.r
	p.Status, p.Message = task.Get("status").String(), task.Get("statusMessage").String()
	interval := defaultPoll
	if pi := task.Get("pollInterval"); pi.Type == gjson.Number {
		p.PollInterval, p.HasPollInterval = pi.Int(), true
		// Held in milliseconds first: 10^13 ms would overflow a Duration.
		interval = time.Duration(min(max(pi.Int(), minPoll.Milliseconds()), maxPoll.Milliseconds())) * time.Millisecond
	}
	t.Polls = append(t.Polls, p)
	if p.Status == "" {
		r.add(findings.TaskMalformed, "%s for task %s answered without a status (%s)", p.Method, t.shown(), c.place(p.Seq))
		return interval
	}
	prev := t.Final
	if prev != "" && prev != p.Status {
		switch {
		case terminal[prev]:
			r.add(findings.TaskForbiddenTransition, "task %s went from terminal %q to %q (%s): a terminal task MUST NOT change status", t.shown(), prev, p.Status, c.place(p.Seq))
		case !allowed[prev][p.Status]:
			r.add(findings.TaskForbiddenTransition, "task %s went from %q to %q (%s), which the lifecycle does not allow", t.shown(), prev, p.Status, c.place(p.Seq))
		}
	}
	t.Final = p.Status
	t.Terminal = terminal[p.Status]
	return interval
}

// cancelTask sends tasks/cancel and records its answer.
func (c *caller) cancelTask(deadline time.Time) {
	t, r := c.r.Task, c.r
	cn := &Cancel{Via: "tasks/cancel", At: c.now(), Reason: "mcpprobe --cancel-after " + c.o.CancelAfter.String(), LastProgress: -1}
	r.Cancel = cn
	left := max(time.Until(deadline), 100*time.Millisecond)
	resp, err := c.cl.Session.Call(c.ctx, "tasks/cancel", c.params(`"taskId":`+quote(t.ID), ""), left)
	cn.Answer = resp.Raw
	if err != nil {
		t.Polls = append(t.Polls, Poll{Method: "tasks/cancel", At: c.now(), Raw: resp.Raw, Seq: resp.Seq, Err: err.Error()})
		cn.Outcome = "refused: " + err.Error()
		return
	}
	c.observe(Poll{Method: "tasks/cancel", At: resp.T - r.Sent, Raw: resp.Raw, Seq: resp.Seq}, gjson.ParseBytes(resp.Result))
	cn.Outcome = "status " + t.Final
	if t.Final != "cancelled" {
		r.add(findings.TaskForbiddenTransition, "tasks/cancel for task %s answered status %q: a receiver MUST move the task to cancelled before answering (2025-11-25 basic/utilities/tasks, Task Cancellation)", t.shown(), t.Final)
	}
}

// shown is the task's id as messages quote it: a server chooses its
// length.
func (t *Task) shown() string { return clip(t.ID, 64) }

// clip cuts s to n runes for a message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// place names a frame by its place on its stream (probe.Places): the
// trace's Seq moves with how stderr interleaved with stdout.
func (c *caller) place(seq int) string { return probe.NewPlaces(c.trace).Of(seq) }
