package transport

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// StdioOptions say how to frame and record a server's stdio.
type StdioOptions struct {
	MaxLine int           // bound on one stdout line (DefaultMaxLine if 0)
	WriteTO time.Duration // bound on one write to the server's stdin
	// KeepBytes bounds how much noise and stderr the trace keeps in memory;
	// past it lines are still drained and counted, not stored.
	KeepBytes int
	Trace     *Trace
	// MaxBytes bounds everything the server may write, stdout and stderr
	// together (0: no bound). Past it the stream ends with ErrTooMuch as a
	// problem, nothing more is read, and OnOverflow (the launcher's kill)
	// is called once.
	MaxBytes   int64
	OnOverflow func()
}

const (
	maxKeptWriteBuf  = 64 << 10
	defaultWriteTO   = 5 * time.Second
	defaultKeepBytes = 4 << 20
	stderrLineMax    = 64 << 10
	stderrTailLines  = 20
)

// Stdio speaks newline-delimited JSON-RPC over a server's stdin and
// stdout, and records its stderr. It neither starts nor stops the server:
// the launcher owns the process and hands Stdio its pipes.
type Stdio struct {
	opts  StdioOptions
	trace *Trace

	stdin          io.WriteCloser
	stdout, stderr io.ReadCloser
	writeMu        sync.Mutex
	stdinClosed    bool
	// wbuf is the line Send writes, reused under writeMu: a message and
	// its newline in one write, without a fresh slice per message.
	wbuf []byte
	// wdl is the write deadline last set on stdin (see Send).
	wdl time.Time

	msgs     chan Message
	problems chan error
	readErr  error
	drained  chan struct{}

	// dmu guards the switch to a Handler (see Direct): h once set, and
	// what is queued on msgs and problems at that moment. direct is the
	// stdout reader's own copy of h, read without the lock once seen;
	// attached is closed when h is set.
	// readAt is when the last read of stdout returned, and heardOwn that
	// one has returned bytes: the stdout reader's alone, without a lock.
	readAt   time.Time
	heardOwn bool

	dmu      sync.Mutex
	h        *Handler
	direct   *Handler
	attached chan struct{}

	mu          sync.Mutex
	firstByte   time.Duration // 0 until the first stdout byte
	heard       chan struct{} // closed with the first stdout byte
	heardOnce   bool
	stdoutEnded bool // the server closed its stdout
	peerGone    bool // a write failed: the server closed its stdin
	stderrTail  []string
	kept        int
	noiseLines  int
	stderrLines int
	dropped     int
	received    int64 // bytes read from stdout and stderr
	overflowed  bool
}

// NewStdio frames and records a server's stdio: in is the write end of
// its stdin, out and errOut the read ends of its stdout and stderr. It
// starts draining both at once, so a server never blocks on a full pipe.
// A write deadline bounds each Send when in supports one (an *os.File
// pipe does).
func NewStdio(in io.WriteCloser, out, errOut io.ReadCloser, o StdioOptions) *Stdio {
	if o.Trace == nil {
		o.Trace = NewTrace(time.Now())
	}
	if o.WriteTO <= 0 {
		o.WriteTO = defaultWriteTO
	}
	if o.KeepBytes <= 0 {
		o.KeepBytes = defaultKeepBytes
	}
	s := &Stdio{
		opts: o, trace: o.Trace,
		stdin: in, stdout: out, stderr: errOut,
		msgs:     make(chan Message, 64),
		problems: make(chan error, 16),
		drained:  make(chan struct{}),
		attached: make(chan struct{}),
		heard:    make(chan struct{}),
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); s.readStdout() }()
	go func() { defer readers.Done(); s.readStderr() }()
	go func() { readers.Wait(); close(s.drained) }()
	return s
}

func (s *Stdio) Trace() *Trace            { return s.trace }
func (s *Stdio) Messages() <-chan Message { return s.msgs }
func (s *Stdio) Problems() <-chan error   { return s.problems }

// Err says why the message stream ended: nil for a clean EOF.
func (s *Stdio) Err() error { return s.readErr }

// Drained is closed once the server's stdout and stderr have both ended
// (or been closed by CloseOutput).
func (s *Stdio) Drained() <-chan struct{} { return s.drained }

// OutputEnded reports whether the server has closed its stdout.
func (s *Stdio) OutputEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stdoutEnded
}

// PeerGone is true once a write found the server's stdin closed: the
// server is gone or going, even if its stdout has not ended yet.
func (s *Stdio) PeerGone() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peerGone
}

// FirstByte is when the first byte arrived on stdout, 0 if none yet.
func (s *Stdio) FirstByte() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.firstByte
}

// HeardFrom is closed when the first byte arrives on stdout. stderr does
// not count: a wrapper such as npx or docker writes there long before the
// server it starts is reading its input.
func (s *Stdio) HeardFrom() <-chan struct{} { return s.heard }

// StderrTail returns the last lines the server wrote on stderr.
func (s *Stdio) StderrTail() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.stderrTail...)
}

// Counts returns how many noise and stderr lines were seen, and how many of
// them were past the keep budget and so not stored.
func (s *Stdio) Counts() (noise, stderr, dropped int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.noiseLines, s.stderrLines, s.dropped
}

// Received is how many bytes the server wrote, stdout and stderr.
func (s *Stdio) Received() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.received
}

// Overflowed reports whether the server went past MaxBytes.
func (s *Stdio) Overflowed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overflowed
}

// count adds n bytes read from the server, and reports false once the
// server is past MaxBytes: the reader then stops.
func (s *Stdio) count(n int) bool {
	s.mu.Lock()
	s.received += int64(n)
	over := s.opts.MaxBytes > 0 && s.received > s.opts.MaxBytes
	first := over && !s.overflowed
	if over {
		s.overflowed = true
	}
	s.mu.Unlock()
	if first {
		s.problem(fmt.Errorf("%w: it wrote more than %d bytes on stdout and stderr; mcpprobe stopped it and kept what came before", ErrTooMuch, s.opts.MaxBytes))
		if s.opts.OnOverflow != nil {
			s.opts.OnOverflow()
		}
	}
	return !over
}

// errOverflow ends a reader of a server past MaxBytes.
var errOverflow = fmt.Errorf("%w; mcpprobe stopped reading it", ErrTooMuch)

// Send writes one message and its newline.
func (s *Stdio) Send(raw []byte) error { return s.SendStamped(raw, nil) }

// SendStamped implements Stamped: the frame is recorded after the line
// is built, just before it is written.
func (s *Stdio) SendStamped(raw []byte, sent *atomic.Int64) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.stdinClosed {
		return errors.New("stdin already closed")
	}
	buf := append(append(s.wbuf[:0], raw...), '\n')
	if cap(buf) <= maxKeptWriteBuf {
		s.wbuf = buf // a large message's buffer is let go with it
	}
	f := s.trace.Add(DirSend, raw)
	if sent != nil {
		sent.Store(int64(f.T))
	}
	start := time.Now()
	if d, ok := s.stdin.(interface{ SetWriteDeadline(time.Time) error }); ok && s.wdl.Sub(start) < s.opts.WriteTO-s.opts.WriteTO/8 {
		// Set again only once an eighth of it is used up: every write is
		// bounded by 7/8 to all of WriteTO, and a closed loop of short
		// calls does not move the pipe's deadline timer on every write
		// (setting it cost more than the write it bounds: 450 ns of
		// 1 µs measured).
		s.wdl = start.Add(s.opts.WriteTO)
		_ = d.SetWriteDeadline(s.wdl)
	}
	if _, err := s.stdin.Write(buf); err != nil {
		if errors.Is(err, syscall.EPIPE) {
			s.mu.Lock()
			s.peerGone = true
			s.mu.Unlock()
			return fmt.Errorf("%w: the server closed its stdin", ErrPeerGone)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("writing to the server's stdin blocked for %v: it is not reading its input", time.Since(start).Round(time.Millisecond))
		}
		return fmt.Errorf("writing to the server's stdin: %w", err)
	}
	return nil
}

func (s *Stdio) keep(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept+n > s.opts.KeepBytes {
		s.dropped++
		return false
	}
	s.kept += n
	return true
}

// SendsInline implements Inline: Send writes the pipe under its own lock
// and deadline, never waiting on the stdout reader.
func (s *Stdio) SendsInline() {}

// Direct implements transport.Direct: from now on the stdout reader calls
// h itself. Messages and problems queued before are handed over first, in
// order, and if the stream has already ended, so is its end.
func (s *Stdio) Direct(h Handler) bool {
	s.dmu.Lock()
	if s.h != nil {
		s.dmu.Unlock()
		return false
	}
	s.h = &h
	ended := s.drainTo(&h)
	for done := false; !done; {
		select {
		case p := <-s.problems:
			h.Problem(p)
		default:
			done = true
		}
	}
	close(s.attached)
	s.dmu.Unlock()
	if ended {
		h.End()
	}
	return true
}

// drainTo hands what msgs holds to h, under dmu, and reports whether msgs
// is closed.
func (s *Stdio) drainTo(h *Handler) bool {
	for {
		select {
		case m, ok := <-s.msgs:
			if !ok {
				return true
			}
			h.Message(m)
		default:
			return false
		}
	}
}

// deliver passes one message on: to the Handler once there is one, else
// through msgs, as a Conn without Direct does.
func (s *Stdio) deliver(m Message) {
	for {
		if s.direct != nil {
			s.direct.Message(m)
			return
		}
		s.dmu.Lock()
		s.direct = s.h
		if s.direct == nil {
			select {
			case s.msgs <- m:
				s.dmu.Unlock()
				return
			default:
			}
		}
		s.dmu.Unlock()
		if s.direct != nil {
			continue
		}
		// msgs is full and nobody has asked for a Handler yet: wait for
		// room, or for one to arrive.
		select {
		case s.msgs <- m:
			// A Handler set while this send waited found msgs drained
			// before m went in: m must not stay there.
			s.dmu.Lock()
			if s.h != nil {
				s.drainTo(s.h)
			}
			s.dmu.Unlock()
			return
		case <-s.attached:
		}
	}
}

// end ends the stream for its consumer: the Handler's End, or msgs closed
// (a Handler set later finds it closed and ends itself).
func (s *Stdio) end() {
	s.dmu.Lock()
	h := s.h
	if h == nil {
		close(s.msgs)
	}
	s.dmu.Unlock()
	if h != nil {
		h.End()
	}
}

func (s *Stdio) readStdout() {
	defer s.end()
	defer func() {
		s.mu.Lock()
		s.stdoutEnded = true
		s.mu.Unlock()
	}()
	lr := NewLineReader(firstByteReader{s}, s.opts.MaxLine)
	lr.OnCut = func(_ []byte, soFar int) {
		// Whatever was waiting may be in this line: say so now, not
		// when (if ever) it ends.
		s.problem(fmt.Errorf("%w: a stdout line passed the limit of %d bytes (%d read, no newline yet); raise it with --max-line", ErrLineTooLong, s.limit(), soFar))
	}
	for {
		l, err := lr.Next()
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
			s.readErr = err
		}
		if l.Len > 0 || l.Cut || (err == nil && !l.EOF) {
			s.handleLine(l)
		}
		if err != nil || l.EOF {
			return
		}
	}
}

// handleLine records a stdout line at the time the read that completed
// it returned: a line's last byte comes in the last read made before it
// is framed, since a line whole in the buffer is framed without reading.
func (s *Stdio) handleLine(l Line) {
	f := Frame{Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF}
	switch {
	case l.Cut:
		f.Dir = DirNoise
		f = s.trace.AddFrameAt(f, s.readAt)
		s.countNoise()
		if !l.Early {
			s.problem(fmt.Errorf("%w: a stdout line of %d bytes exceeded the limit of %d bytes (frame %d); raise it with --max-line", ErrLineTooLong, l.Len, s.limit(), f.Seq))
		}
	case IsJSONRPC(l.Bytes):
		f.Dir = DirRecv
		f = s.trace.AddFrameAt(f, s.readAt)
		s.deliver(Message{Raw: f.Raw, Seq: f.Seq, T: f.T, Dropped: f.Dropped})
	default:
		s.countNoise()
		glued := GluedMessage(l.Bytes)
		if glued < 0 && !s.keep(len(l.Bytes)) {
			return
		}
		f.Dir = DirNoise
		f = s.trace.AddFrameAt(f, s.readAt)
		if glued >= 0 {
			s.deliver(Message{Raw: f.Raw[glued:], Seq: f.Seq, T: f.T, Recovered: true, Dropped: f.Dropped})
		}
	}
}

func (s *Stdio) limit() int {
	if s.opts.MaxLine > 0 {
		return s.opts.MaxLine
	}
	return DefaultMaxLine
}

func (s *Stdio) countNoise() {
	s.mu.Lock()
	s.noiseLines++
	s.mu.Unlock()
}

func (s *Stdio) problem(err error) {
	s.dmu.Lock()
	h := s.h
	if h == nil {
		select {
		case s.problems <- err:
		default: // the session has enough to go on; never block the reader
		}
	}
	s.dmu.Unlock()
	if h != nil {
		h.Problem(err)
	}
}

func (s *Stdio) readStderr() {
	lr := NewLineReader(countingReader{s, s.stderr}, stderrLineMax)
	for {
		l, err := lr.Next()
		if l.Len > 0 || (err == nil && !l.EOF) {
			s.mu.Lock()
			s.stderrLines++
			s.stderrTail = append(s.stderrTail, string(l.Bytes))
			if len(s.stderrTail) > stderrTailLines {
				s.stderrTail = s.stderrTail[1:]
			}
			s.mu.Unlock()
			if s.keep(len(l.Bytes)) {
				s.trace.AddFrame(Frame{Dir: DirStderr, Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF})
			}
		}
		if err != nil || l.EOF {
			return
		}
	}
}

type firstByteReader struct{ s *Stdio }

func (r firstByteReader) Read(p []byte) (int, error) {
	n, err := countingReader{r.s, r.s.stdout}.Read(p)
	if n > 0 {
		r.s.readAt = time.Now()
	}
	if n > 0 && !r.s.heardOwn {
		r.s.heardOwn = true
		r.s.mu.Lock()
		if !r.s.heardOnce {
			r.s.heardOnce = true
			// The time the first line is stamped with, or earlier.
			r.s.firstByte = r.s.trace.At(r.s.readAt)
			close(r.s.heard)
		}
		r.s.mu.Unlock()
	}
	return n, err
}

// countingReader counts what the server writes against MaxBytes, and ends
// the stream past it.
type countingReader struct {
	s *Stdio
	r io.Reader
}

func (c countingReader) Read(p []byte) (int, error) {
	if c.s.Overflowed() {
		return 0, errOverflow
	}
	n, err := c.r.Read(p)
	if n > 0 && !c.s.count(n) && err == nil {
		err = errOverflow
	}
	return n, err
}

// CloseInput closes the server's stdin, which is how a host first asks
// it to exit. Later sends fail.
func (s *Stdio) CloseInput() {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if !s.stdinClosed {
		s.stdinClosed = true
		_ = s.stdin.Close()
	}
}

// CloseOutput waits up to wait for the server's stdout and stderr to end,
// then closes our read ends. A process outside the server's group may
// still hold the pipes open: closing them unblocks the readers whatever
// it does.
func (s *Stdio) CloseOutput(wait time.Duration) {
	WaitFor(s.drained, wait)
	_ = s.stdout.Close()
	_ = s.stderr.Close()
	<-s.drained
}

// WaitFor waits at most d for ch to close, and reports whether it did.
func WaitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
