package faults

import (
	"context"
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
	// The engine is built before the server starts, so that a plan the
	// proxy cannot act is refused before anything runs.
	p := &proxy{o: o, progress: new(atomic.Int64)}
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

// proxyMaxLine bounds one line held by the proxy when a fault needs whole
// frames.
const proxyMaxLine = 1 << 30

type proxy struct {
	o        ProxyOptions
	eng      *Engine
	srvIn    io.Writer
	kill     func() // the server's process group
	out      io.Writer
	outMu    sync.Mutex     // one write to the host at a time: held replies come out concurrently
	tracing  sync.WaitGroup // the stderr and stdout tracers
	progress *atomic.Int64  // bytes passed on to the host, stdout and stderr
	hostGone bool           // a write to the host failed: the rest is discarded
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

func (p *proxy) hostToServer(in io.Reader) {
	lr := transport.NewLineReader(in, max(p.o.MaxLine, proxyMaxLine))
	for {
		l, err := lr.Next()
		if l.Len > 0 || (err == nil && !l.EOF) {
			p.o.Trace.AddFrame(transport.Frame{Dir: transport.DirSend, Raw: l.Bytes, Len: l.Len, Cut: l.Cut})
			buf := append(append([]byte(nil), l.Bytes...), '\n')
			if l.EOF {
				buf = buf[:len(buf)-1]
			}
			if p.eng.FromClient(buf) != nil {
				return
			}
		}
		if err != nil || l.EOF {
			return
		}
	}
}

// streamToHost passes the server's stdout on as it comes, chunk by chunk,
// when no fault needs whole frames: nothing is held but the chunk in
// hand, and the trace frames it line by line on the side (each line up to
// --max-line, cut past it, as the probe's trace is).
func (p *proxy) streamToHost(srv io.Reader) {
	tr := p.tracer(transport.DirRecv, p.o.MaxLine)
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
func (p *proxy) tracer(dir transport.Dir, maxLine int) io.WriteCloser {
	pr, pw := io.Pipe()
	p.tracing.Add(1)
	go func() {
		defer p.tracing.Done()
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
	// A fault acts on whole frames, so lines are held whole, whatever
	// their size: the bound is far above the probe's, there only to keep
	// memory finite.
	lr := transport.NewLineReader(srv, max(p.o.MaxLine, proxyMaxLine))
	for {
		l, err := lr.Next()
		if l.Len > 0 || (err == nil && !l.EOF) {
			dir := transport.DirNoise
			if transport.IsJSONRPC(l.Bytes) {
				dir = transport.DirRecv
			}
			f := p.o.Trace.AddFrame(transport.Frame{Dir: dir, Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF})
			frame := l.Bytes
			if !l.EOF {
				frame = append(frame, '\n')
			}
			_ = p.eng.FromServer(transport.Message{Raw: frame, Seq: f.Seq, T: f.T})
		}
		if err != nil || l.EOF {
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
	tr := p.tracer(transport.DirStderr, 64<<10)
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
