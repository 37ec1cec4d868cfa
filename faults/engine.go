package faults

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Dir is the way a frame travels.
type Dir int

const (
	ToServer Dir = iota // a request or notification from the client
	ToClient            // a reply, a request or stray text from the server
)

func (d Dir) String() string {
	if d == ToServer {
		return "to server"
	}
	return "to client"
}

// A Fault is one kind of failure. The engine calls Apply for each frame
// the fault acts on (those of the calls its selector hit, or every frame
// for a stream fault), in both directions; Apply decides what reaches the
// other side by calling inj.Pass (the frame, changed or not), inj.Write
// (extra bytes), both, neither, or later through inj.After. It returns the
// error of passing the frame on, if any.
//
// One value serves one plan; state that must not be shared between
// connections lives in the Injection, not in the fault.
type Fault interface {
	Apply(inj *Injection, dir Dir, frame []byte) error
	// Describe says what the fault does, for people; at names the calls
	// it hits ("call 6", "every call of get"), "" for a fault that
	// selects none.
	Describe(at string) string
}

// An Opener is a fault that acts when a connection opens, before the
// server sees any message: a server that dies at startup, a stderr flood.
type Opener interface {
	Open(inj *Injection) error
}

// Hit is the tools/call a frame belongs to, as the marking numbered it.
type Hit struct {
	N    int    // 1-based, counted across the restarts of one run
	Tool string // params.name
	// Retry marks the retry of call N after a restart: the same call, so
	// a fault selected by its number does not hit it again.
	Retry bool
}

// Piece is what leaves the engine towards one side: the frame, changed
// or not, or extra bytes a fault wrote.
type Piece struct {
	Raw   []byte
	Extra bool              // written by a fault (inj.Write), not the frame
	From  transport.Message // the frame it travels with (for its Seq and T)
	// note is 1 + the index of the last event that explains the piece:
	// the in-process client model words what a client did with it.
	note int
}

// Counter numbers the tools/calls of a run. Servers restarted within the
// run share it, so that "call 6" is the client's sixth call. A client that
// knows which call it is making (Drive) says so first, so that a call it
// never got to send, or a retry, does not shift the numbers.
type Counter struct {
	mu      sync.Mutex
	n       int
	planned int  // the number of the next call, when told
	retry   bool // the next call is a retry of call planned
}

// plan says the next call is call n, or its retry.
func (c *Counter) plan(n int, retry bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.planned, c.retry = n, retry
}

func (c *Counter) next() (n int, retry bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.planned > 0 {
		n, retry = c.planned, c.retry
		c.planned, c.retry = 0, false
		c.n = n
		return n, retry
	}
	c.n++
	return c.n, false
}

// Frontend is what a front end gives the engine: where it acts, how to
// end the server, where each direction's bytes go.
type Frontend struct {
	Where    Front // the engine refuses a fault that cannot act here
	Kill     func()
	ToServer func(Piece) error
	// ToClient may be called from several goroutines (held frames come
	// out on their own); it must be safe for that.
	ToClient func(Piece) error
	Stderr   io.Writer            // nil where the client's stderr cannot be reached
	Clock    func() time.Duration // for events; nil: since NewEngine
	Calls    *Counter             // shared across a run's restarts; nil: this engine alone
}

// Engine runs a plan's faults on one connection. It numbers the
// client's tools/calls, asks each fault's selector once per call whether
// it is hit, remembers the reply id, and passes every frame through the
// faults that hit its call, then through the stream faults, to the
// front end's sink. A front end calls NewEngine, Open once before the
// server sees a message, FromClient and FromServer for each frame, and
// Settle then Close when the connection ends.
type Engine struct {
	fe      Frontend
	opening []*stage // Opener faults
	calls   []*stage // OnCall faults, in rank order
	streams []*stage // OnStream faults, in rank order
	sel     *rand.Rand

	mu     sync.Mutex // sel, marks, events, due
	marks  map[string]mark
	events []Event
	due    time.Time // when the last held frame is due

	streamMu [2]sync.Mutex // one write at a time through the stream faults
	wg       sync.WaitGroup
	done     chan struct{}
	stop     sync.Once
}

type stage struct {
	rule Rule
	rng  *lockedRand
}

type mark struct {
	hit    Hit
	stages []*stage
}

// maxEvents and maxMarks bound what a long-running proxy keeps in
// memory: events nobody reads, and marks of calls a server never answers.
const (
	maxEvents = 1 << 14
	maxMarks  = 1 << 14
)

// NewEngine builds the engine of one connection; it refuses a plan with a
// fault that cannot act in fe.Where.
func NewEngine(p Plan, fe Frontend) (*Engine, error) {
	if err := p.Check(fe.Where); err != nil {
		return nil, err
	}
	if fe.Calls == nil {
		fe.Calls = new(Counter)
	}
	if fe.Clock == nil {
		t0 := time.Now()
		fe.Clock = func() time.Duration { return time.Since(t0) }
	}
	e := &Engine{fe: fe, sel: seeded(p.Seed, ""), marks: map[string]mark{}, done: make(chan struct{})}
	for _, r := range p.ordered() {
		st := &stage{rule: r, rng: &lockedRand{r: seeded(p.Seed, r.Kind.Name)}}
		if _, ok := r.Fault.(Opener); ok {
			e.opening = append(e.opening, st)
		}
		switch r.Kind.Stage {
		case OnCall:
			e.calls = append(e.calls, st)
		case OnStream:
			e.streams = append(e.streams, st)
		}
	}
	return e, nil
}

// seeded is the one way a seed becomes randomness: stream "" is the
// marking's (which calls a p: selector hits), and each fault that draws
// numbers of its own gets a stream named after its kind, so that adding a
// fault to a plan never changes which calls another one hits.
func seeded(seed uint64, stream string) *rand.Rand {
	var h uint64
	if stream != "" {
		f := fnv.New64a()
		f.Write([]byte(stream))
		h = f.Sum64()
	}
	return rand.New(rand.NewPCG(seed+h, seed^0x9e3779b97f4a7c15))
}

type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

// Open runs the faults that act when the connection opens. A front end
// calls it once, before the server sees any client message.
func (e *Engine) Open() error {
	for _, st := range e.opening {
		if err := st.rule.Fault.(Opener).Open(&Injection{e: e, st: st}); err != nil {
			return err
		}
	}
	return nil
}

// FromClient carries one frame from the client to the server. A
// tools/call request is numbered and marked here; the error is the
// server side's write error.
func (e *Engine) FromClient(raw []byte) error {
	hit, stages := e.mark(raw)
	p := Piece{Raw: raw, From: transport.Message{Raw: raw}}
	return e.call(ToServer, hit, stages, 0, p)
}

// FromServer carries one frame from the server to the client; a reply
// to a marked call meets the faults that hit the call.
func (e *Engine) FromServer(m transport.Message) error {
	hit, stages := e.reply(m.Raw)
	return e.call(ToClient, hit, stages, 0, Piece{Raw: m.Raw, From: m})
}

// mark numbers a tools/call request and draws, fault by fault in rank
// order, whether each hits it.
func (e *Engine) mark(raw []byte) (Hit, []*stage) {
	if len(e.calls) == 0 {
		return Hit{}, nil
	}
	v := gjson.ParseBytes(raw)
	id := v.Get("id")
	if v.Get("method").String() != "tools/call" || !id.Exists() {
		return Hit{}, nil
	}
	hit := Hit{Tool: v.Get("params.name").String()}
	hit.N, hit.Retry = e.fe.Calls.next()
	e.mu.Lock()
	defer e.mu.Unlock()
	var hitBy []*stage
	for _, st := range e.calls {
		if st.rule.At == nil || (hit.Retry && st.rule.At.At > 0) {
			continue
		}
		if st.rule.At.Match(hit.N, hit.Tool, e.sel) {
			hitBy = append(hitBy, st)
		}
	}
	if len(hitBy) > 0 && len(e.marks) < maxMarks {
		e.marks[id.Raw] = mark{hit: hit, stages: hitBy}
	}
	return hit, hitBy
}

// reply finds the mark of the call a server frame answers, and forgets
// it: a second reply with the same id is not the call's.
func (e *Engine) reply(raw []byte) (Hit, []*stage) {
	if len(e.calls) == 0 {
		return Hit{}, nil
	}
	v := gjson.ParseBytes(raw)
	id := v.Get("id")
	if !id.Exists() || v.Get("method").Exists() {
		return Hit{}, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	m, ok := e.marks[id.Raw]
	if !ok {
		return Hit{}, nil
	}
	delete(e.marks, id.Raw)
	return m.hit, m.stages
}

// call runs the call faults stages[i:] on a piece, then the stream.
func (e *Engine) call(dir Dir, hit Hit, stages []*stage, i int, p Piece) error {
	if i == len(stages) {
		return e.stream(dir, 0, p, false)
	}
	inj := &Injection{e: e, st: stages[i], dir: dir, hit: hit, from: p.From, note: p.note, stages: stages, i: i}
	return stages[i].rule.Fault.Apply(inj, dir, p.Raw)
}

// stream runs the stream faults streams[i:] on a piece, then the sink.
// The stream faults see one write at a time per direction, so that a
// frame cut in chunks is never interleaved with another.
func (e *Engine) stream(dir Dir, i int, p Piece, locked bool) error {
	if len(e.streams) > 0 && !locked {
		e.streamMu[dir].Lock()
		defer e.streamMu[dir].Unlock()
	}
	if i == len(e.streams) {
		if dir == ToServer {
			return e.fe.ToServer(p)
		}
		return e.fe.ToClient(p)
	}
	inj := &Injection{e: e, st: e.streams[i], dir: dir, from: p.From, note: p.note, extra: p.Extra, i: i, inStream: true, locked: true}
	return e.streams[i].rule.Fault.Apply(inj, dir, p.Raw)
}

// Aside runs fn with the stream faults of dir held off: what fn writes
// past the engine (a line too long for the faults, passed on as it
// comes) is then never interleaved with a frame they cut in pieces.
func (e *Engine) Aside(dir Dir, fn func()) {
	e.streamMu[dir].Lock()
	defer e.streamMu[dir].Unlock()
	fn()
}

// Events returns what the faults did, in order.
func (e *Engine) Events() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.events...)
}

func (e *Engine) event(call int, what string) int {
	return e.eventAt(call, what, e.fe.Clock(), false)
}

// eventAt records an event that happened at t (the clock's time), such
// as a stray line the trace timed when it was read off the wire.
func (e *Engine) eventAt(call int, what string, t time.Duration, stray bool) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.events) >= maxEvents {
		return 0
	}
	e.events = append(e.events, Event{Call: call, What: what, T: t, Stray: stray})
	return len(e.events)
}

// amend adds what came of it to an event (the client model's part).
func (e *Engine) amend(note int, more string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if note > 0 && note <= len(e.events) {
		e.events[note-1].What += more
	}
}

// Holding reports whether a fault ever held a frame back on this
// connection.
func (e *Engine) Holding() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.due.IsZero()
}

// Settle waits for the frames faults hold back, at most until the last
// is due plus grace. It reports whether they all went out.
func (e *Engine) Settle(grace time.Duration) bool {
	e.mu.Lock()
	wait := time.Until(e.due) + grace
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	return transport.WaitFor(done, max(wait, 0))
}

// Close drops the frames still held back; a connection that ended cannot
// deliver them.
func (e *Engine) Close() {
	e.stop.Do(func() { close(e.done) })
	e.wg.Wait()
}

// errNoStderr: a fault wrote on stderr where the front end has none.
var errNoStderr = errors.New("this front end cannot write on the client's stderr")

// Injection is a fault's handle on the connection while it acts on one
// frame (or on the opening): the call hit, the ways on, the server's life.
// It stays valid after Apply returns, for a fault that acts later.
type Injection struct {
	e    *Engine
	st   *stage
	dir  Dir
	hit  Hit
	from transport.Message
	note int

	stages []*stage // the call faults hitting this frame's call
	i      int      // this fault's place among them (or among the streams)
	extra  bool     // a stream fault's piece was written by a fault
	// inStream: the fault is a stream fault; locked: Apply runs under the
	// stream lock (false when called back later through After).
	inStream, locked bool
}

// Hit is the call the frame belongs to; zero for the opening, and for a
// stream fault's frames.
func (i *Injection) Hit() Hit { return i.hit }

// Pass hands the frame (or what the fault made of it) on towards its
// side: to the next fault, then to the stream faults, then out.
func (i *Injection) Pass(b []byte) error {
	p := Piece{Raw: b, Extra: i.extra, From: i.from, note: i.note}
	if i.inStream {
		return i.e.stream(i.dir, i.i+1, p, i.locked)
	}
	return i.e.call(i.dir, i.hit, i.stages, i.i+1, p)
}

// Write sends extra bytes the same way, before what is passed after it.
// They skip the remaining call faults, which act on frames, but go
// through the stream faults like every byte.
func (i *Injection) Write(b []byte) error {
	p := Piece{Raw: b, Extra: true, From: i.from, note: i.note}
	if i.inStream {
		return i.e.stream(i.dir, i.i+1, p, i.locked)
	}
	return i.e.stream(i.dir, 0, p, false)
}

// Kill ends the server at once, with its process group (or drops its
// HTTP connection).
func (i *Injection) Kill() { i.e.fe.Kill() }

// Stderr writes on the client's stderr, as the server would.
func (i *Injection) Stderr(b []byte) error {
	if i.e.fe.Stderr == nil {
		return errNoStderr
	}
	_, err := i.e.fe.Stderr.Write(b)
	return err
}

// After runs then, with a fresh injection, once d has passed, unless
// the connection ends first. The front ends wait for it (bounded) before
// they finish.
func (i *Injection) After(d time.Duration, then func(later *Injection)) {
	later := *i
	later.locked = false
	i.e.mu.Lock()
	if due := time.Now().Add(d); due.After(i.e.due) {
		i.e.due = due
	}
	i.e.mu.Unlock()
	i.e.wg.Add(1)
	go func() {
		defer i.e.wg.Done()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			then(&later)
		case <-i.e.done:
		}
	}()
}

// Note records what the fault did, for the outcome table, against the
// call hit. What is passed or written after it carries the note, so the
// in-process client can add what a client made of it.
func (i *Injection) Note(format string, args ...any) {
	if n := i.e.event(i.hit.N, fmt.Sprintf(format, args...)); n > 0 {
		i.note = n
	}
}

// IntN is a seeded number in [0, n) from the fault's own stream.
func (i *Injection) IntN(n int) int {
	i.st.rng.mu.Lock()
	defer i.st.rng.mu.Unlock()
	return i.st.rng.r.IntN(n)
}

// Float64 is a seeded number in [0, 1) from the fault's own stream.
func (i *Injection) Float64() float64 {
	i.st.rng.mu.Lock()
	defer i.st.rng.mu.Unlock()
	return i.st.rng.r.Float64()
}
