// Package probe is mcpprobe's own MCP client: small, and built to see the
// raw bytes of everything a server sends. It detects the protocol era,
// lists what the server offers and returns it all as a Capture.
package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// Response is a JSON-RPC response, kept as received.
type Response struct {
	Raw    []byte // the whole message
	Result []byte // the raw "result" member, a slice of Raw; nil on error
	Error  *RPCError
	Seq    int           // trace frame
	T      time.Duration // when it arrived
	// Sent is when its request went out, on the same clock as T, where
	// the conn says (transport.Stamped, over stdio, for Chain's requests):
	// T - Sent is then the round trip on the wire. 0: not known.
	Sent time.Duration
	// Recovered: the response was glued to stray stdout text and cut out.
	Recovered bool
	// Dropped: the trace did not keep its frame, its keep budget spent;
	// keeping Raw would hold bytes no budget accounts for.
	Dropped bool
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int64
	Message string
	Data    []byte // raw, may be nil
	// RawCode is the "code" member as sent ("" when absent): Code reads
	// a string or a fraction as a number, and JudgeErrorCode must not.
	RawCode string
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Error codes the probe reacts to.
const (
	CodeMethodNotFound             = -32601
	CodeInvalidParams              = -32602
	CodeUnsupportedProtocolVersion = -32022
	CodeMissingClientCapability    = -32021
	CodeHeaderMismatch             = -32020
)

// TimeoutError is returned when a request got no response in time.
type TimeoutError struct {
	Method string
	After  time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no response to %s within %v", e.Method, e.After.Round(time.Millisecond))
}

// ClosedError is returned when the stream ended before the response came.
type ClosedError struct {
	Method string
	Cause  error
}

func (e *ClosedError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("the server's stream ended before it answered %s: %v", e.Method, e.Cause)
	}
	return fmt.Sprintf("the server's stream ended before it answered %s", e.Method)
}

func (e *ClosedError) Unwrap() error { return e.Cause }

// Event is something the server sent that was not a response to us:
// a notification, a request, a reply nobody asked for.
type Event struct {
	Kind   string // "notification", "request", "unknown_id", "late_reply", "invalid"
	Method string
	Raw    []byte
	Seq    int
	T      time.Duration
	Note   string
}

// Session matches requests and responses by id over a transport.Conn and
// answers what the server asks of us.
type Session struct {
	conn transport.Conn

	mu      sync.Mutex
	nextID  int64
	pending map[idK]*pendingCall
	// inline: the conn dispatches on its reader and may be sent to from
	// there (Chain).
	inline    bool
	abandoned map[idK]string // id → method, for requests that timed out
	// dropped are quiet requests no longer waited for: their answers,
	// whenever they come, are traced and otherwise ignored.
	dropped map[idK]bool
	// watchdog times out the requests waited for (await): one timer for
	// the session, set for the earliest deadline (watchAt), not one
	// timer per request; see arm.
	watchdog *time.Timer
	watchAt  time.Time
	// heard is closed with the first message from the server, of any
	// kind; heardT is its time.
	heard     chan struct{}
	heardOnce bool
	heardT    time.Duration
	events    []Event
	codes     []SeenCode
	// counts has every event by kind and method, kept or not; notKept
	// counts those past maxEvents; answered the server requests answered.
	counts   map[string]int
	notKept  int
	answered int
	closed   bool
	closeErr error
	done     chan struct{}
	// answerer, if set, answers the server's requests mcpprobe was told
	// how to answer (call's --elicit, --sampling-reply, --root).
	answerer Answerer
	byPolicy map[string]int // requests answered by the answerer, by method
	// answers are written by a goroutine of their own: written by the
	// reader, the answers to a flood of requests from a server that does
	// not read its stdin meanwhile would fill the pipe and stop the
	// reader, and the response behind the flood would never be read.
	answers chan []byte
	// unsent counts the answers queued and not yet written (FlushAnswers).
	unsent atomic.Int64
}

// Answerer answers a request from the server: the raw result to send, or
// ok false to leave it to the session's default (-32601, ping answered).
// It runs on the session's reader: it must not block.
type Answerer func(method string, params []byte) (result []byte, ok bool)

// SetAnswerer sets how the server's requests are answered from now on.
func (s *Session) SetAnswerer(a Answerer) {
	s.mu.Lock()
	s.answerer = a
	s.mu.Unlock()
}

// AnsweredByPolicy counts, by method, the server requests the answerer
// answered.
func (s *Session) AnsweredByPolicy() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]int, len(s.byPolicy))
	for k, v := range s.byPolicy {
		m[k] = v
	}
	return m
}

// maxEvents bounds the events a session keeps (a flood of notifications
// while a request is pending is the server's to send, not ours to hold);
// past it they are counted by kind and method. maxAnswers bounds the
// server requests answered: each answer is a write the server may not read.
const (
	maxEvents  = 10000
	maxAnswers = 1000
)

// NewSession starts reading from conn. A transport.Direct conn
// dispatches on its own reader goroutine, so a response reaches the
// waiting caller in one hand-off; any other is read by a goroutine of the
// session's.
func NewSession(conn transport.Conn) *Session {
	s := &Session{
		conn:      conn,
		pending:   map[idK]*pendingCall{},
		abandoned: map[idK]string{},
		dropped:   map[idK]bool{},
		counts:    map[string]int{},
		done:      make(chan struct{}),
		heard:     make(chan struct{}),
	}
	if d, ok := conn.(transport.Direct); ok && d.Direct(transport.Handler{Message: s.dispatch, Problem: s.fail, End: s.finish}) {
		_, s.inline = conn.(transport.Inline)
		return s
	}
	go s.read()
	return s
}

// write sends the answers to the server's requests, in order, until the
// stream ends.
func (s *Session) write(answers chan []byte) {
	for {
		select {
		case msg := <-answers:
			_ = s.conn.Send(msg)
			s.unsent.Add(-1)
		case <-s.done:
			// What was queued before the end is still sent: a transport
			// whose stream ended may still take writes.
			for {
				select {
				case msg := <-answers:
					_ = s.conn.Send(msg)
					s.unsent.Add(-1)
				default:
					return
				}
			}
		}
	}
}

// reply queues an answer; at most maxAnswers are ever queued, so it
// never blocks. The writer starts with the first answer: most sessions
// are never asked anything.
func (s *Session) reply(msg []byte) {
	s.mu.Lock()
	if s.answers == nil {
		s.answers = make(chan []byte, maxAnswers)
		go s.write(s.answers)
	}
	answers := s.answers
	s.mu.Unlock()
	s.unsent.Add(1)
	select {
	case answers <- msg:
	default:
		s.unsent.Add(-1)
	}
}

// FlushAnswers waits at most d for the answers queued to the server's
// requests to be written, and reports whether they were. The answers have
// a writer of their own: a session that ends at once after its last
// request would otherwise close the server's stdin with an answer still
// queued, and what the server did with it (a log line, a reply) would be
// missing from the capture, on a loaded machine only.
func (s *Session) FlushAnswers(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for s.unsent.Load() > 0 {
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// Heard is closed with the first message the server sends, whatever it
// is; HeardAt then says when it arrived.
func (s *Session) Heard() <-chan struct{} { return s.heard }

// HeardAt is when the server's first message arrived, on the trace's
// clock; ok false before it.
func (s *Session) HeardAt() (t time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heardT, s.heardOnce
}

func (s *Session) markHeard(t time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.heardOnce {
		s.heardOnce, s.heardT = true, t
		close(s.heard)
	}
}

// Done is closed when the server's stream has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Events returns what the server sent unasked, in order: the first
// maxEvents of it (EventCounts has them all).
func (s *Session) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// EventCounts returns how many events of each kind and method the server
// sent, kept or not, keyed "kind\x00method"; and how many were not kept.
func (s *Session) EventCounts() (map[string]int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		m[k] = v
	}
	return m, s.notKept
}

// idK is a request id normalised so that a response matches its request
// however the server spelled the number: an integer (exactly
// representable, the ids the probe sends) by value, any other number by
// its shortest spelling, a string by its value. A comparable struct, so
// that the ids of the probe's own requests cost no string per request.
type idK struct {
	kind byte // 'n' an integer, 'f' another number, 's' a string
	n    int64
	s    string
}

// String is the key as text: "n:1", "s:abc".
func (k idK) String() string {
	switch k.kind {
	case 'n':
		return "n:" + strconv.FormatInt(k.n, 10)
	case 'f':
		return "n:" + k.s
	}
	return "s:" + k.s
}

func intKey(n int64) idK { return idK{kind: 'n', n: n} }

// idKey normalises an id (see idK); ok false for an id that is neither a
// number nor a string.
func idKey(id gjson.Result) (idK, bool) {
	switch id.Type {
	case gjson.Number:
		if id.Num == math.Trunc(id.Num) && math.Abs(id.Num) < 1<<53 {
			return intKey(int64(id.Num)), true
		}
		return idK{kind: 'f', s: strconv.FormatFloat(id.Num, 'g', -1, 64)}, true
	case gjson.String:
		// Cloned: the key may outlive the message it was read from.
		return idK{kind: 's', s: strings.Clone(id.Str)}, true
	}
	return idK{}, false
}

// Call sends a request and waits at most timeout for its response. params
// is raw JSON or nil.
func (s *Session) Call(ctx context.Context, method string, params []byte, timeout time.Duration) (Response, error) {
	p, err := s.Begin(ctx, method, params)
	if err != nil {
		return Response{}, err
	}
	return p.Wait(ctx, timeout)
}

// Pending is a request sent and not yet answered: its id is what a
// notifications/cancelled names.
type Pending struct {
	s      *Session
	pc     *pendingCall
	key    idK
	method string
	ID     int64
	// Sent is when the request went out, on the transport's trace clock
	// (zero when the connection keeps no trace).
	Sent time.Duration
}

// Begin sends a request without waiting for its response; Wait waits.
func (s *Session) Begin(ctx context.Context, method string, params []byte) (*Pending, error) {
	return s.begin(ctx, method, params, false)
}

// BeginQuiet sends a request of the probe's own, such as the ping that
// asks whether a slow server is up: its answer is the caller's alone. An
// error code in it is not one of the server's codes, and once Dropped, an
// answer that comes is traced and nothing more (no late_reply), so that
// whether it was sent at all changes no finding.
func (s *Session) BeginQuiet(ctx context.Context, method string, params []byte) (*Pending, error) {
	return s.begin(ctx, method, params, true)
}

// begin sends a request whose response a Pending waits for.
func (s *Session) begin(ctx context.Context, method string, params []byte, quiet bool) (*Pending, error) {
	pc := &pendingCall{ch: make(chan Response, 1), method: method, quiet: quiet}
	key, id, sent, err := s.send(ctx, pc, params, 0)
	if err != nil {
		return nil, err
	}
	return &Pending{s: s, pc: pc, key: key, method: method, ID: id, Sent: sent}, nil
}

// beginThen sends a request whose outcome goes to then (Chain): no
// channel and no Pending, and its deadline is set under the lock that
// makes it pending, before it is sent.
func (s *Session) beginThen(ctx context.Context, method string, params []byte, timeout time.Duration, then func(Response, error)) (idK, error) {
	key, _, _, err := s.send(ctx, &pendingCall{method: method, then: then}, params, timeout)
	return key, err
}

// send makes pc pending under a new id and writes the request.
func (s *Session) send(ctx context.Context, pc *pendingCall, params []byte, timeout time.Duration) (idK, int64, time.Duration, error) {
	method := pc.method
	if err := ctx.Err(); err != nil {
		return idK{}, 0, 0, err // interrupted: nothing more is sent
	}
	s.mu.Lock()
	if s.closed {
		err := s.closeErr
		s.mu.Unlock()
		return idK{}, 0, 0, &ClosedError{Method: method, Cause: err}
	}
	s.nextID++
	id := s.nextID
	key := intKey(id)
	s.pending[key] = pc
	if pc.then != nil {
		s.armLocked(pc, method, timeout)
	}
	s.mu.Unlock()

	msg := make([]byte, 0, 64+len(method)+len(params))
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = strconv.AppendInt(msg, id, 10)
	msg = append(msg, `,"method":`...)
	msg = appendQuote(msg, method)
	if params != nil {
		msg = append(msg, `,"params":`...)
		msg = append(msg, params...)
	}
	msg = append(msg, '}')
	var sent time.Duration
	if tr := s.conn.Trace(); tr != nil && pc.then == nil {
		sent = tr.Since()
	}
	var err error
	if st, ok := s.conn.(transport.Stamped); ok && pc.then != nil {
		err = st.SendStamped(msg, &pc.sent)
	} else {
		err = s.conn.Send(msg)
	}
	if err != nil {
		s.forget(key, "")
		if errors.Is(err, transport.ErrPeerGone) {
			return idK{}, 0, 0, &ClosedError{Method: method, Cause: err}
		}
		return idK{}, 0, 0, err
	}
	return key, id, sent, nil
}

// Wait waits at most timeout for the response, as Call does: past it the
// request is abandoned, and a response that comes later is a late_reply.
func (p *Pending) Wait(ctx context.Context, timeout time.Duration) (Response, error) {
	return p.s.await(ctx, p.pc, p.key, p.method, timeout)
}

// Within waits at most d and, unlike Wait, keeps the request pending when
// d passes (ok false): a long call is watched in slices, a cancellation
// sent between two.
func (p *Pending) Within(ctx context.Context, d time.Duration) (r Response, ok bool, err error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r, open := <-p.pc.ch:
		if !open {
			return Response{}, true, p.pc.err
		}
		if r.Error != nil {
			return r, true, r.Error
		}
		return r, true, nil
	case <-t.C:
		return Response{}, false, nil
	case <-ctx.Done():
		p.s.forget(p.key, p.method)
		return Response{}, true, ctx.Err()
	}
}

// Abandon stops waiting: a response that comes later is a late_reply.
func (p *Pending) Abandon() { p.s.forget(p.key, p.method) }

// Drop stops waiting for a request begun with BeginQuiet, or one whose
// answer no longer matters: a response that comes later is traced and
// otherwise ignored.
func (p *Pending) Drop() {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	if _, waiting := p.s.pending[p.key]; waiting {
		delete(p.s.pending, p.key)
		p.s.dropped[p.key] = true
	}
}

// Adopt makes the answer of a quiet request the server's own after all:
// an error code in it counts as the server's, as it would have had the
// request not been quiet.
func (p *Pending) Adopt(r Response) {
	if r.Error == nil || r.Raw == nil {
		return
	}
	if e := gjson.GetBytes(r.Raw, "error"); e.Exists() {
		p.s.sawCode(e, r.Seq)
	}
}

// Answered delivers the response once it has come; it is closed, with no
// response, when it never can (Wait then says why). Whoever receives from
// it owns the response: Wait would not see it again.
func (p *Pending) Answered() <-chan Response { return p.pc.ch }

// await waits at most timeout for a pending request's response. The
// bound is the session's watchdog (arm), not a timer of the request's
// own: a closed loop of short calls then adds and removes no timer per
// call, which profiled as a tenth of the client's own cost per call.
func (s *Session) await(ctx context.Context, pc *pendingCall, key idK, method string, timeout time.Duration) (Response, error) {
	if timeout <= 0 {
		return s.awaitTimer(ctx, pc, key, method, timeout)
	}
	s.arm(pc, key, method, timeout)
	select {
	case r, ok := <-pc.ch:
		if !ok {
			// Closed by fail, finish or the watchdog, which set err first.
			return Response{}, pc.err
		}
		if r.Error != nil {
			return r, r.Error
		}
		return r, nil
	case <-ctx.Done():
		s.forget(key, method)
		return Response{}, ctx.Err()
	}
}

// awaitTimer is await with a timer of its own, for a timeout of zero or
// less (the request times out at once unless already answered).
func (s *Session) awaitTimer(ctx context.Context, pc *pendingCall, key idK, method string, timeout time.Duration) (Response, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r, ok := <-pc.ch:
		if !ok {
			// Closed by fail or finish, which set err first.
			return Response{}, pc.err
		}
		if r.Error != nil {
			return r, r.Error
		}
		return r, nil
	case <-t.C:
		s.forget(key, method)
		return Response{}, &TimeoutError{Method: method, After: timeout}
	case <-ctx.Done():
		s.forget(key, method)
		return Response{}, ctx.Err()
	}
}

// arm gives a request still pending its deadline, and sets the watchdog
// for it if it is the earliest. With one timeout for every call the
// deadlines only grow, so the watchdog set for the first is left alone
// by the calls after it: it fires once per timeout, finds what is due
// and sets itself for the earliest deadline left (expire).
func (s *Session) arm(pc *pendingCall, key idK, method string, timeout time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending[key] != pc {
		return // answered (or failed) already: its channel says so
	}
	s.armLocked(pc, method, timeout)
}

// armLocked is arm with s.mu held and pc pending.
func (s *Session) armLocked(pc *pendingCall, method string, timeout time.Duration) {
	pc.deadline, pc.waitMethod, pc.timeout = time.Now().Add(timeout), method, timeout
	if !s.watchAt.IsZero() && !pc.deadline.Before(s.watchAt) {
		return
	}
	s.watchAt = pc.deadline
	if s.watchdog == nil {
		s.watchdog = time.AfterFunc(timeout, s.expire)
		return
	}
	s.watchdog.Reset(timeout)
}

// expire times out every request past its deadline, as await's timer
// did: no longer pending, abandoned (its answer, if it comes, a
// late_reply), its waiter told with a TimeoutError; then sets the
// watchdog for the earliest deadline left.
func (s *Session) expire() {
	var ended []*pendingCall
	defer func() { tellThen(ended) }()
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	var next time.Time
	for k, pc := range s.pending {
		switch {
		case pc.deadline.IsZero():
		case !now.Before(pc.deadline):
			delete(s.pending, k)
			if pc.waitMethod != "" {
				s.abandoned[k] = pc.waitMethod
			}
			ended = pc.end(&TimeoutError{Method: pc.waitMethod, After: pc.timeout}, ended)
		case next.IsZero() || pc.deadline.Before(next):
			next = pc.deadline
		}
	}
	s.watchAt = next
	if !next.IsZero() && s.watchdog != nil {
		s.watchdog.Reset(next.Sub(now))
	}
}

func (s *Session) forget(key idK, method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, key)
	if method != "" {
		s.abandoned[key] = method
	}
}

// Notify sends a notification.
func (s *Session) Notify(method string, params []byte) error {
	msg := []byte(`{"jsonrpc":"2.0","method":` + jsonQuote(method))
	if params != nil {
		msg = append(append(msg, `,"params":`...), params...)
	}
	return s.conn.Send(append(msg, '}'))
}

func (s *Session) read() {
	msgs, problems := s.conn.Messages(), s.conn.Problems()
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				// A fault raised just before the end explains it better
				// than the end does.
				select {
				case p := <-problems:
					s.fail(p)
				default:
				}
				s.finish()
				return
			}
			s.dispatch(m)
		case p := <-problems:
			s.fail(p)
		}
	}
}

// pendingCall is a request waiting for its response. When it can never
// come, err says why and ch is closed.
type pendingCall struct {
	ch     chan Response
	method string
	err    error
	quiet  bool // begun with BeginQuiet
	// then, when set (Chain), takes the response or the reason there is
	// none in place of ch, on the goroutine that learnt it.
	then func(Response, error)
	// deadline, once waited for (arm): when the watchdog times it out,
	// as a TimeoutError for waitMethod after timeout.
	deadline   time.Time
	waitMethod string
	timeout    time.Duration
	// sent: see Response.Sent; stored by the conn before the request's
	// first byte is written, and the answer may be read before Send
	// returns.
	sent atomic.Int64
}

// fail ends every pending request with err: after a stream fault such as
// an oversize line, a pending response may never be readable.
func (s *Session) fail(err error) {
	var ended []*pendingCall
	defer func() { tellThen(ended) }()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, pc := range s.pending {
		ended = pc.end(err, ended)
		delete(s.pending, k)
	}
}

// end ends a request that can have no answer, under s.mu: err says why,
// its waiter's channel is closed, and a chained request is added to
// ended, for tellThen once the lock is released.
func (pc *pendingCall) end(err error, ended []*pendingCall) []*pendingCall {
	pc.err = err
	if pc.ch != nil {
		close(pc.ch)
	}
	if pc.then != nil {
		ended = append(ended, pc)
	}
	return ended
}

// tellThen gives each chained request in ended the reason it has no
// answer. It runs with s.mu released: a chain begins its next request
// from then.
func tellThen(ended []*pendingCall) {
	for _, pc := range ended {
		pc.then(Response{}, pc.err)
	}
}

func (s *Session) finish() {
	var ended []*pendingCall
	defer func() { tellThen(ended) }()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.closeErr = s.conn.Err()
	if s.watchdog != nil {
		s.watchdog.Stop()
	}
	for k, pc := range s.pending {
		ended = pc.end(&ClosedError{Method: pc.method, Cause: s.closeErr}, ended)
		delete(s.pending, k)
	}
	close(s.done)
}

func (s *Session) event(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[e.Kind+"\x00"+e.Method]++
	if len(s.events) >= maxEvents {
		s.notKept++
		return
	}
	s.events = append(s.events, e)
}

func (s *Session) dispatch(m transport.Message) {
	s.markHeard(m.T)
	if isBatch(m.Raw) {
		v := gjson.ParseBytes(m.Raw)
		s.event(Event{Kind: "batch", Raw: m.Raw, Seq: m.Seq, T: m.T, Note: "the server sent a JSON-RPC batch"})
		v.ForEach(func(_, el gjson.Result) bool {
			s.dispatchOne(rawOf(m.Raw, el), m)
			return true
		})
		return
	}
	s.dispatchOne(m.Raw, m)
}

// isBatch is gjson's IsArray without a parse per message: the first byte
// past whitespace (gjson skips every byte up to ' ') is '['.
func isBatch(raw []byte) bool {
	for _, c := range raw {
		if c > ' ' {
			return c == '['
		}
	}
	return false
}

// members are the top-level members of a message dispatchOne reads,
// each the first of its name, as gjson's Get would find it.
type members struct {
	jsonrpc, method, id, err, result, params gjson.Result
}

// topMembers reads raw's top-level members in one pass, without copying
// raw: the results' strings are windows on it (raw is never changed
// once received), so whatever is kept past the message is cloned. A
// Get per member scanned the message once each, and ParseBytes copied
// it first: a third of the client's own cost per call.
func topMembers(raw []byte) members {
	var m members
	v := gjson.Parse(unsafe.String(unsafe.SliceData(raw), len(raw)))
	if !v.IsObject() {
		return m
	}
	v.ForEach(func(k, val gjson.Result) bool {
		var dst *gjson.Result
		switch k.Str {
		case "jsonrpc":
			dst = &m.jsonrpc
		case "method":
			dst = &m.method
		case "id":
			dst = &m.id
		case "error":
			dst = &m.err
		case "result":
			dst = &m.result
		case "params":
			dst = &m.params
		default:
			return true
		}
		if !dst.Exists() {
			*dst = val
		}
		return true
	})
	return m
}

// dispatchOne handles one message; raw is the server's bytes for it alone,
// so that offsets found in it are offsets into raw.
func (s *Session) dispatchOne(raw []byte, m transport.Message) {
	v := topMembers(raw)
	ev := Event{Raw: raw, Seq: m.Seq, T: m.T}
	if m.Dropped {
		// The trace did not keep this frame: neither does the event.
		ev.Raw = nil
	}
	if jv := v.jsonrpc; jv.Type != gjson.String || jv.Str != "2.0" {
		ev.Kind, ev.Note = "invalid", `"jsonrpc" is not "2.0"`
		s.event(ev)
	}
	method, id := v.method, v.id
	if e := v.err; e.Exists() && !method.Exists() && !s.quietReply(id) {
		s.sawCode(e, m.Seq)
	}
	switch {
	case method.Exists() && id.Exists():
		// Cloned: a gjson string is a window on the whole message, and
		// an event kept would keep all of it.
		ev.Kind, ev.Method = "request", strings.Clone(method.String())
		s.event(ev)
		s.answer(ev.Method, id, rawOf(raw, v.params))
	case method.Exists():
		ev.Kind, ev.Method = "notification", strings.Clone(method.String())
		s.event(ev)
	case id.Exists() && (v.result.Exists() || v.err.Exists()):
		key, ok := idKey(id)
		s.mu.Lock()
		pc, found := s.pending[key]
		if found {
			delete(s.pending, key)
		}
		late, wasLate := s.abandoned[key]
		wasDropped := s.dropped[key]
		delete(s.dropped, key)
		s.mu.Unlock()
		if ok && !found && wasDropped {
			return // the answer to a quiet request nobody waits for
		}
		if !ok || !found {
			ev.Kind = "unknown_id"
			ev.Note = "a response with id " + id.Raw + " that matches no request in flight"
			if wasLate {
				ev.Kind, ev.Method = "late_reply", late
				ev.Note = "the response to " + late + " arrived after the probe stopped waiting"
			}
			s.event(ev)
			return
		}
		r := Response{Raw: raw, Seq: m.Seq, T: m.T, Sent: time.Duration(pc.sent.Load()), Recovered: m.Recovered, Dropped: m.Dropped}
		if e := v.err; e.Exists() {
			r.Error = &RPCError{Code: e.Get("code").Int(), Message: strings.Clone(e.Get("message").String()), RawCode: rawCode(e)}
			if d := e.Get("data"); d.Exists() {
				r.Error.Data = []byte(d.Raw)
			}
		} else {
			// The server's own bytes, not a copy re-encoded by us.
			r.Result = rawOf(raw, v.result)
		}
		if pc.then != nil {
			var err error
			if r.Error != nil {
				err = r.Error
			}
			pc.then(r, err)
			return
		}
		pc.ch <- r
	default:
		ev.Kind, ev.Note = "invalid", "neither a request, a notification nor a response"
		s.event(ev)
	}
}

// quietReply reports whether id is that of a quiet request, waited for or
// dropped: its error code is the probe's business, not a finding.
func (s *Session) quietReply(id gjson.Result) bool {
	key, ok := idKey(id)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if pc, found := s.pending[key]; found {
		return pc.quiet
	}
	return s.dropped[key]
}

// SeenCode is one error code the server sent, as sent, with the first
// frame that carried it and how many did.
type SeenCode struct {
	Raw     string
	Message string
	Seq     int
	N       int
}

// maxCodes bounds the distinct codes a session keeps: a server decides
// how many it sends.
const maxCodes = 64

// rawCode is an error's code as sent, cut to 64 bytes: a server decides
// its size. A cut string or object stays no integer, and a cut number
// can only lose a fraction, so a code is never judged worse for the cut.
func rawCode(e gjson.Result) string {
	raw := e.Get("code").Raw
	if len(raw) > 64 {
		raw = raw[:64]
	}
	// Cloned: kept past the message, which it is a window on.
	return strings.Clone(raw)
}

func (s *Session) sawCode(e gjson.Result, seq int) {
	raw := rawCode(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.codes {
		if s.codes[i].Raw == raw {
			s.codes[i].N++
			return
		}
	}
	if len(s.codes) < maxCodes {
		s.codes = append(s.codes, SeenCode{Raw: raw, Message: strings.Clone(shorten(e.Get("message").String(), 80)), Seq: seq, N: 1})
	}
}

// ErrorCodes returns every distinct error code the server sent, in the
// order first seen: replies to requests and replies nobody asked for.
func (s *Session) ErrorCodes() []SeenCode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SeenCode(nil), s.codes...)
}

// answer replies to a request from the server. Without an answerer
// mcpprobe declares no client capabilities, so the only request it can
// honour is ping.
func (s *Session) answer(method string, id gjson.Result, params []byte) {
	s.mu.Lock()
	s.answered++
	over := s.answered > maxAnswers
	a := s.answerer
	s.mu.Unlock()
	if over {
		return // a flood: each answer is a write the server may not read
	}
	head := `{"jsonrpc":"2.0","id":` + id.Raw
	if a != nil {
		if res, ok := a(method, params); ok {
			s.mu.Lock()
			if s.byPolicy == nil {
				s.byPolicy = map[string]int{}
			}
			s.byPolicy[method]++
			s.mu.Unlock()
			s.reply([]byte(head + `,"result":` + string(res) + `}`))
			return
		}
	}
	var msg string
	switch method {
	case "ping":
		msg = head + `,"result":{}}`
	default:
		why := "mcpprobe does not implement " + method
		switch method {
		case "roots/list":
			why = "mcpprobe declared no roots capability"
		case "sampling/createMessage":
			why = "mcpprobe declared no sampling capability"
		case "elicitation/create":
			why = "mcpprobe declared no elicitation capability"
		}
		msg = head + `,"error":{"code":-32601,"message":` + jsonQuote(why) + `}}`
	}
	s.reply([]byte(msg))
}

// IsMethodNotFound reports whether err is a JSON-RPC -32601.
func IsMethodNotFound(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && re.Code == CodeMethodNotFound
}

// Exchange sends raw bytes as they are, which may be no valid request at
// all, and waits for a response with id (raw JSON, e.g. `"m3"`); an empty
// id waits for nothing. It is for malformed calls: the session does not
// build the frame.
func (s *Session) Exchange(ctx context.Context, raw []byte, id string, timeout time.Duration) (Response, error) {
	var pc *pendingCall
	var key idK
	if id != "" {
		k, ok := idKey(gjson.Parse(id))
		if !ok {
			return Response{}, fmt.Errorf("id %s is neither a number nor a string", id)
		}
		key = k
		pc = &pendingCall{ch: make(chan Response, 1), method: "(raw)"}
		s.mu.Lock()
		s.pending[key] = pc
		s.mu.Unlock()
	}
	if err := s.conn.Send(raw); err != nil {
		if pc != nil {
			s.forget(key, "")
		}
		if errors.Is(err, transport.ErrPeerGone) {
			return Response{}, &ClosedError{Method: "(raw)", Cause: err}
		}
		return Response{}, err
	}
	if pc == nil {
		return Response{}, nil
	}
	return s.await(ctx, pc, key, "(raw)", timeout)
}
