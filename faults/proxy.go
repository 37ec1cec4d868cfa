package faults

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/transport"
)

// ProxyOptions say which server the proxy runs and what it does to it.
type ProxyOptions struct {
	Command string
	Args    []string
	Env     []string
	Dir     string
	Plan    Plan
	Trace   *transport.Trace // nil: no trace
	// MaxLine bounds what of one line the proxy holds, either way
	// (transport.DefaultMaxLine if 0): a longer line is passed on as it
	// comes, past the faults, and the trace keeps its first MaxLine bytes.
	MaxLine int
	Grace   time.Duration
}

// Proxy stands in for a stdio server: a host launches it, it launches the
// server, and it passes every byte both ways, injecting the plan's faults.
// With an empty plan it is transparent: what the host reads is what the
// server wrote, byte for byte, streamed as it comes, never held. It
// returns the server's exit code (128 + the signal for a server a
// signal ended, as a shell reports it).
//
// Nothing is buffered beyond what a fault needs: each write to the host
// blocks until the host takes it, so a host that reads slowly slows the
// server's writes (back-pressure), and memory does not grow with what
// passes. Everything the server wrote before it exited reaches the host,
// however slowly the host reads, as long as it reads at all.
func Proxy(ctx context.Context, hostIn io.Reader, hostOut, hostErr io.Writer, o ProxyOptions) (int, error) {
	if o.Trace == nil {
		// Held nowhere: with no --trace, a relay records nothing.
		o.Trace = transport.NewTrace(time.Now())
		o.Trace.Forget()
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	hostErr = &lockedWriter{w: hostErr}
	// The engine is built before the server starts, so that a plan the
	// proxy cannot act is refused before anything runs.
	p := &proxy{o: o, progress: new(atomic.Int64), hostErr: hostErr}
	p.out = &progressWriter{w: hostOut, n: p.progress}
	eng, err := NewEngine(o.Plan, Frontend{Where: InProxy, Stderr: hostErr, Clock: o.Trace.Since,
		Kill: func() { p.kill() }, ToServer: p.toServer, ToClient: p.write})
	if err != nil {
		return 2, err
	}
	p.eng = eng
	proc, err := launch.StartProcess(launch.Target{Kind: "stdio", Command: o.Command, Args: o.Args, Env: o.Env, Dir: o.Dir, InheritEnv: true})
	if err != nil {
		return 127, err
	}
	srvOut, srvErr := proc.Stdout, proc.Stderr
	p.srvIn, p.kill = proc.Stdin, proc.Kill
	_ = p.eng.Open()
	var copies sync.WaitGroup
	copies.Add(2)
	go func() {
		defer copies.Done()
		if o.Plan.Empty() {
			p.streamToHost(srvOut)
		} else {
			p.serverToHost(srvOut)
		}
	}()
	go func() { defer copies.Done(); p.stderr(srvErr, &progressWriter{w: hostErr, n: p.progress}) }()
	hostDone := make(chan struct{})
	go func() {
		p.hostToServer(hostIn)
		close(hostDone)
	}()
	var exit launch.ExitReport
	select {
	case <-proc.Exited():
		// Whatever of its group or its descendants is left goes now:
		// nothing it started outlives it. What it wrote stays in the
		// pipes for the host.
		exit = proc.Stop(o.Grace)
	case <-hostDone:
		// The host closed our stdin: close the server's and give it the
		// time a host gives, then SIGTERM, then SIGKILL.
		exit = proc.Stop(o.Grace)
	case <-ctx.Done():
		proc.KillFor("because the proxy was interrupted")
		proc.Wait(launch.KillWait)
		exit = proc.Stop(o.Grace)
	}
	if exit.Leftover {
		fmt.Fprintf(hostErr, "mcpprobe proxy: the server exited but left processes of its group running; they were killed\n")
	}
	if len(exit.Escaped) > 0 {
		fmt.Fprintf(hostErr, "mcpprobe proxy: the server started %s, which left its process group and outlived it; killed\n", strings.Join(exit.Escaped, ", "))
	}
	// Let what the server wrote reach the host: as long as the host
	// keeps taking it, however slowly; a host that stops reading for a
	// whole stall bound (or a pipe some stray process holds open) is
	// given up on.
	drained := make(chan struct{})
	go func() { copies.Wait(); p.tracing.Wait(); p.eng.Settle(o.Grace); close(drained) }()
	stall := max(o.Grace, minStall)
	if ctx.Err() != nil {
		stall = o.Grace / 4 // interrupted: the user wants out
	}
	for last := p.progress.Load(); ; {
		if transport.WaitFor(drained, stall) {
			break
		}
		now := p.progress.Load()
		if now == last || ctx.Err() != nil {
			srvOut.Close()
			srvErr.Close()
			break
		}
		last = now
	}
	p.eng.Close()
	return exitCode(proc), nil
}

// minStall is how long the proxy waits, once the server is gone, for a
// host that has stopped taking its output before it gives up on it.
const minStall = 5 * time.Second

// exitCode mirrors the server's exit: its code, or 128 + the signal that
// ended it.
func exitCode(p *launch.Process) int {
	if c := p.ExitCode(); c >= 0 {
		return c
	}
	if sig := p.ExitSignal(); sig > 0 {
		return 128 + sig
	}
	return -1
}

type proxy struct {
	o        ProxyOptions
	eng      *Engine
	srvIn    io.Writer
	kill     func() // the server's process group
	out      io.Writer
	hostErr  io.Writer      // the host's stderr, for the proxy's own notes
	outMu    sync.Mutex     // one write to the host at a time: held replies come out concurrently
	tracing  sync.WaitGroup // the stderr and stdout tracers
	progress *atomic.Int64  // bytes passed on to the host, stdout and stderr
	hostGone bool           // a write to the host failed: the rest is discarded
	// longSeen: a line longer than --max-line has passed that way, and
	// the host's stderr was told (once a direction).
	longSeen [2]atomic.Bool
}

// maxLine is --max-line: the most of one line the proxy holds, in
// either direction.
func (p *proxy) maxLine() int {
	if p.o.MaxLine > 0 {
		return p.o.MaxLine
	}
	return transport.DefaultMaxLine
}

// lockedWriter serializes the writes to the host's stderr, which the
// server's stderr relay, the proxy's own notes and the engine's fault
// notes share from their own goroutines: a note is never cut into by a
// chunk of the server's, whatever writer the host's stderr is.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// progressWriter counts what reaches the host.
type progressWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n.Add(int64(n))
	return n, err
}

// hostToServer passes the host's stdin on. With no fault it streams,
// chunk by chunk, as streamToHost does the other way: nothing is held
// but the chunk in hand and, for the trace, at most --max-line of a line.
// With faults, lines go through the engine whole, up to --max-line; a
// longer one is not held either (see passLong).
func (p *proxy) hostToServer(in io.Reader) {
	if p.o.Plan.Empty() {
		// Not counted in p.tracing: a host may keep its stdin open long
		// after the server is gone, and the drain must not wait for it.
		tr := p.tracer(transport.DirSend, p.maxLine(), nil)
		defer tr.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				if _, werr := p.srvIn.Write(buf[:n]); werr != nil {
					return
				}
				_, _ = tr.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}
	ls := newLineSplitter(in, p.maxLine())
	for {
		line, long, err := ls.next()
		switch {
		case long:
			if p.passLong(ToServer, ls, line) != nil {
				return
			}
		case len(line) > 0:
			body := bytes.TrimSuffix(line, []byte{'\n'})
			p.o.Trace.AddFrame(transport.Frame{Dir: transport.DirSend, Raw: body, Len: len(body)})
			if p.eng.FromClient(line) != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// passLong passes on a line longer than --max-line, whose first
// --max-line bytes are head, as it comes: it is never held whole, and so
// no fault (they act on whole messages) touches it, nor is it counted as
// a call. The trace keeps its head, marked cut; the host's stderr is told
// the first time. Nothing else is written that way meanwhile.
func (p *proxy) passLong(dir Dir, ls *lineSplitter, head []byte) error {
	var n int
	var newline bool
	var err error
	p.eng.Aside(dir, func() {
		write := func(b []byte) error {
			_, err := p.srvIn.Write(b)
			return err
		}
		if dir == ToClient {
			p.outMu.Lock()
			defer p.outMu.Unlock()
			write = func(b []byte) error {
				if p.hostGone {
					return nil // keep reading, so that the server never blocks
				}
				if _, err := p.out.Write(b); err != nil {
					p.hostGone = true
				}
				return nil
			}
		}
		if err = write(head); err == nil {
			n, newline, err = ls.rest(write)
		}
	})
	td := transport.DirSend
	if dir == ToClient {
		td = transport.DirNoise
		if transport.IsJSONRPC(head) {
			td = transport.DirRecv
		}
	}
	p.o.Trace.AddFrame(transport.Frame{Dir: td, Raw: head, Len: n, Cut: true, NoNewline: !newline})
	if !p.longSeen[dir].Swap(true) {
		who, uncounted := "host-to-server", "not counted as a call"
		if dir == ToClient {
			who, uncounted = "server-to-host", "no fault of its call applied"
		}
		fmt.Fprintf(p.hostErr, "mcpprobe proxy: a %s line of %d bytes is longer than --max-line (%d): passed on as it came, without faults (%s); the trace keeps its first %d bytes (reported once)\n",
			who, n, p.maxLine(), uncounted, len(head))
	}
	return err
}

// streamToHost passes the server's stdout on as it comes, chunk by chunk,
// when no fault needs whole frames: nothing is held but the chunk in
// hand, and the trace frames it line by line on the side (each line up to
// --max-line, cut past it, as the probe's trace is).
func (p *proxy) streamToHost(srv io.Reader) {
	tr := p.tracer(transport.DirRecv, p.maxLine(), &p.tracing)
	defer tr.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := srv.Read(buf)
		if n > 0 {
			_ = p.write(Piece{Raw: buf[:n]})
			_, _ = tr.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// tracer frames what is written to it as lines into the trace, in a
// goroutine of its own; stdout lines are recv or noise as the probe would
// class them. Writes block while it frames: it holds one line at most.
func (p *proxy) tracer(dir transport.Dir, maxLine int, wg *sync.WaitGroup) io.WriteCloser {
	pr, pw := io.Pipe()
	if wg != nil {
		wg.Add(1)
	}
	go func() {
		if wg != nil {
			defer wg.Done()
		}
		lr := transport.NewLineReader(pr, maxLine)
		for {
			l, err := lr.Next()
			if l.Len > 0 || (err == nil && !l.EOF) {
				d := dir
				if d == transport.DirRecv && !transport.IsJSONRPC(l.Bytes) {
					d = transport.DirNoise
				}
				p.o.Trace.AddFrame(transport.Frame{Dir: d, Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF})
			}
			if err != nil || l.EOF {
				_, _ = io.Copy(io.Discard, pr)
				return
			}
		}
	}()
	return pw
}

func (p *proxy) serverToHost(srv io.Reader) {
	// A fault acts on whole frames, so lines are held whole up to
	// --max-line; a longer one is passed on as it comes (passLong).
	ls := newLineSplitter(srv, p.maxLine())
	for {
		line, long, err := ls.next()
		switch {
		case long:
			_ = p.passLong(ToClient, ls, line)
		case len(line) > 0:
			body := bytes.TrimSuffix(line, []byte{'\n'})
			dir := transport.DirNoise
			if transport.IsJSONRPC(body) {
				dir = transport.DirRecv
			}
			f := p.o.Trace.AddFrame(transport.Frame{Dir: dir, Raw: body, Len: len(body), NoNewline: len(body) == len(line)})
			_ = p.eng.FromServer(transport.Message{Raw: line, Seq: f.Seq, T: f.T})
		}
		if err != nil {
			return
		}
	}
}

// toServer is the engine's sink towards the server.
func (p *proxy) toServer(pc Piece) error {
	_, err := p.srvIn.Write(pc.Raw)
	return err
}

// write is the engine's sink towards the host. Once the host is gone the
// rest is discarded, so that the server never blocks on a pipe nobody
// reads.
func (p *proxy) write(pc Piece) error {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	if p.hostGone {
		return nil
	}
	_, err := p.out.Write(pc.Raw)
	if err != nil {
		p.hostGone = true
	}
	return err
}

// stderr passes the server's stderr on as it comes, byte for byte, and
// traces it line by line on the side.
func (p *proxy) stderr(srv io.Reader, host io.Writer) {
	tr := p.tracer(transport.DirStderr, 64<<10, &p.tracing)
	defer tr.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := srv.Read(buf)
		if n > 0 {
			_, _ = host.Write(buf[:n])
			_, _ = tr.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// lineSplitter reads lines of at most max bytes whole, and longer ones in
// two steps, holding at most max bytes of them: next returns their head,
// rest passes the remainder on as it is read.
type lineSplitter struct {
	r   *bufio.Reader
	max int
	// What next read past a long line's head, not yet passed on: a slice
	// of r's buffer, valid until the next read.
	pending    []byte
	pendingErr error
}

func newLineSplitter(r io.Reader, max int) *lineSplitter {
	return &lineSplitter{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line whole, its newline included (none on a last
// line without one), when it has at most max bytes before the newline.
// A longer line comes back as its first max bytes with long set, its rest
// left for rest, which must be called before next is again. With the line
// it may return the error that ended the stream (io.EOF), or that error
// alone once the stream has ended.
func (s *lineSplitter) next() (line []byte, long bool, err error) {
	// The pieces are kept apart and joined once, as transport's
	// LineReader does: grown by append, a 16 MiB line left five times
	// its size in garbage.
	var parts [][]byte
	held := 0
	join := func() []byte {
		b := make([]byte, 0, held)
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	for {
		chunk, err := s.r.ReadSlice('\n')
		body := len(chunk)
		if err == nil {
			body-- // the newline is not the line's
		}
		if held+body > s.max {
			take := s.max - held
			parts = append(parts, chunk[:take])
			held += take
			s.pending, s.pendingErr = chunk[take:], err
			return join(), true, nil
		}
		if len(chunk) > 0 {
			parts = append(parts, bytes.Clone(chunk))
			held += len(chunk)
		}
		switch {
		case err == nil:
			return join(), false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return join(), false, err
	}
}

// rest passes the rest of the long line next returned to w, chunk by
// chunk as it is read, its newline included, and returns the line's
// length (newline not counted) and whether it ended in a newline. It
// stops at w's first error, or the stream's.
func (s *lineSplitter) rest(w func([]byte) error) (n int, newline bool, err error) {
	n = s.max
	chunk, rerr := s.pending, s.pendingErr
	s.pending, s.pendingErr = nil, nil
	for {
		if len(chunk) > 0 {
			if err := w(chunk); err != nil {
				return n + len(chunk), false, err
			}
		}
		if rerr == nil {
			return n + len(chunk) - 1, true, nil
		}
		n += len(chunk)
		if !errors.Is(rerr, bufio.ErrBufferFull) {
			if errors.Is(rerr, io.EOF) {
				rerr = nil // the next call to next says so
			}
			return n, false, rerr
		}
		chunk, rerr = s.r.ReadSlice('\n')
	}
}
