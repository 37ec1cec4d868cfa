package faults

import (
	"context"
	"io"
	"sync"
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
// server wrote, byte for byte. It returns the server's exit code.
func Proxy(ctx context.Context, hostIn io.Reader, hostOut, hostErr io.Writer, o ProxyOptions) (int, error) {
	if o.Trace == nil {
		o.Trace = transport.NewTrace(time.Now())
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	// The engine is built before the server starts, so that a plan the
	// proxy cannot act is refused before anything runs.
	p := &proxy{o: o, out: hostOut}
	eng, err := NewEngine(o.Plan, Frontend{Where: InProxy, Stderr: hostErr, Clock: o.Trace.Since,
		Kill: func() { p.kill() }, ToServer: p.toServer, ToClient: p.write})
	if err != nil {
		return 2, err
	}
	p.eng = eng
	proc, err := launch.StartProcess(launch.Target{Kind: "stdio", Command: o.Command, Args: o.Args, Env: o.Env, Dir: o.Dir})
	if err != nil {
		return 127, err
	}
	srvOut, srvErr := proc.Stdout, proc.Stderr
	kill := proc.Kill
	p.srvIn, p.kill = proc.Stdin, kill
	_ = p.eng.Open()
	exited := proc.Exited()
	var copies sync.WaitGroup
	copies.Add(2)
	go func() { defer copies.Done(); p.serverToHost(srvOut) }()
	go func() { defer copies.Done(); p.stderr(srvErr, hostErr) }()
	hostDone := make(chan struct{})
	go func() {
		p.hostToServer(hostIn)
		close(hostDone)
	}()
	select {
	case <-exited:
	case <-hostDone:
		// The host closed our stdin: close the server's and give it the
		// time a host gives, then SIGTERM, then SIGKILL.
		proc.Stop(o.Grace)
	case <-ctx.Done():
		kill()
		proc.Wait(launch.KillWait)
	}
	// Let what the server wrote reach the host, for a bounded time.
	drained := make(chan struct{})
	go func() { copies.Wait(); p.tracing.Wait(); p.eng.Settle(o.Grace); close(drained) }()
	if !transport.WaitFor(drained, o.Grace) {
		srvOut.Close()
		srvErr.Close()
	}
	p.eng.Close()
	return proc.ExitCode(), nil
}

// proxyMaxLine bounds one line held by the proxy.
const proxyMaxLine = 1 << 30

type proxy struct {
	o       ProxyOptions
	eng     *Engine
	srvIn   io.Writer
	kill    func() // the server's process group
	out     io.Writer
	outMu   sync.Mutex     // one write to the host at a time: held replies come out concurrently
	tracing sync.WaitGroup // the stderr tracer
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

func (p *proxy) serverToHost(srv io.Reader) {
	// The proxy must pass lines whole, whatever their size: its bound is
	// far above the probe's, there only to keep memory finite.
	lr := transport.NewLineReader(srv, max(p.o.MaxLine, proxyMaxLine))
	for {
		l, err := lr.Next()
		if l.Len > 0 || (err == nil && !l.EOF) {
			dir := transport.DirNoise
			if transport.IsJSONRPC(l.Bytes) {
				dir = transport.DirRecv
			}
			f := p.o.Trace.AddFrame(transport.Frame{Dir: dir, Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF})
			frame := append([]byte(nil), l.Bytes...)
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

// write is the engine's sink towards the host.
func (p *proxy) write(pc Piece) error {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	_, err := p.out.Write(pc.Raw)
	return err
}

// stderr passes the server's stderr on as it comes, byte for byte, and
// traces it line by line on the side.
func (p *proxy) stderr(srv io.Reader, host io.Writer) {
	pr, pw := io.Pipe()
	p.tracing.Add(1)
	go func() {
		defer p.tracing.Done()
		lr := transport.NewLineReader(pr, 64<<10)
		for {
			l, err := lr.Next()
			if l.Len > 0 || (err == nil && !l.EOF) {
				p.o.Trace.AddFrame(transport.Frame{Dir: transport.DirStderr, Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF})
			}
			if err != nil || l.EOF {
				_, _ = io.Copy(io.Discard, pr)
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := srv.Read(buf)
		if n > 0 {
			_, _ = host.Write(buf[:n])
			_, _ = pw.Write(buf[:n])
		}
		if err != nil {
			pw.Close()
			return
		}
	}
}
