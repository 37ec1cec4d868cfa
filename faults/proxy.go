package faults

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
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
	proc, err := launch.StartProcess(launch.Target{Kind: "stdio", Command: o.Command, Args: o.Args, Env: o.Env, Dir: o.Dir})
	if err != nil {
		return 127, err
	}
	srvIn, srvOut, srvErr := proc.Stdin, proc.Stdout, proc.Stderr
	kill := proc.Kill
	p := &proxy{o: o, out: hostOut, marks: map[string]mark{}, kill: kill,
		rng:   rand.New(rand.NewPCG(o.Plan.Seed, o.Plan.Seed^0x9e3779b97f4a7c15)),
		split: rand.New(rand.NewPCG(o.Plan.Seed+1, o.Plan.Seed))}
	if o.Plan.ExitAtStartup {
		kill()
	}
	for i := 0; i < o.Plan.StderrFlood; i++ {
		fmt.Fprintf(hostErr, "[mcpprobe proxy] stderr flood line %d of %d\n", i+1, o.Plan.StderrFlood)
	}
	exited := proc.Exited()
	var copies sync.WaitGroup
	copies.Add(2)
	go func() { defer copies.Done(); p.serverToHost(srvOut) }()
	go func() { defer copies.Done(); p.stderr(srvErr, hostErr) }()
	hostDone := make(chan struct{})
	go func() {
		p.hostToServer(hostIn, srvIn)
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
	go func() { copies.Wait(); p.wg.Wait(); close(drained) }()
	if !transport.WaitFor(drained, o.Grace) {
		srvOut.Close()
		srvErr.Close()
	}
	return proc.ExitCode(), nil
}

// proxyMaxLine bounds one line held by the proxy.
const proxyMaxLine = 1 << 30

type proxy struct {
	o     ProxyOptions
	out   io.Writer
	outMu sync.Mutex
	kill  func()
	rng   *rand.Rand // under mu
	split *rand.Rand // under outMu
	wg    sync.WaitGroup

	mu    sync.Mutex
	calls int
	marks map[string]mark
}

func (p *proxy) hostToServer(in io.Reader, srv io.WriteCloser) {
	lr := transport.NewLineReader(in, max(p.o.MaxLine, proxyMaxLine))
	for {
		l, err := lr.Next()
		if l.Len > 0 || (err == nil && !l.EOF) {
			p.o.Trace.AddFrame(transport.Frame{Dir: transport.DirSend, Raw: l.Bytes, Len: l.Len, Cut: l.Cut})
			crash := p.decide(l.Bytes)
			buf := append(append([]byte(nil), l.Bytes...), '\n')
			if l.EOF {
				buf = buf[:len(buf)-1]
			}
			if _, werr := srv.Write(buf); werr != nil {
				return
			}
			if crash {
				p.kill()
			}
		}
		if err != nil || l.EOF {
			return
		}
	}
}

// decide applies the plan to one message from the host; it reports
// whether to crash the server once the message is delivered.
func (p *proxy) decide(raw []byte) bool {
	v := gjson.ParseBytes(raw)
	if v.Get("method").String() != "tools/call" || !v.Get("id").Exists() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	n, tool := p.calls, v.Get("params.name").String()
	pl := p.o.Plan
	m := mark{call: n}
	m.slow = pl.Slow != nil && pl.Slow.Match(n, tool, p.rng)
	m.drop = pl.Drop != nil && pl.Drop.Match(n, tool, p.rng)
	m.garble = pl.Garble != nil && pl.Garble.Match(n, tool, p.rng)
	m.pollute = pl.Pollute != nil && pl.Pollute.Match(n, tool, p.rng)
	crash := pl.Crash != nil && pl.Crash.Match(n, tool, p.rng)
	m.drop = m.drop || crash // the server died handling it: no reply escapes
	if m.slow || m.drop || m.garble || m.pollute {
		p.marks[v.Get("id").Raw] = m
	}
	return crash
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
			p.o.Trace.AddFrame(transport.Frame{Dir: dir, Raw: l.Bytes, Len: l.Len, Cut: l.Cut, NoNewline: l.EOF})
			frame := append([]byte(nil), l.Bytes...)
			if !l.EOF {
				frame = append(frame, '\n')
			}
			p.forward(frame)
		}
		if err != nil || l.EOF {
			return
		}
	}
}

// forward writes one frame to the host, with its reply's faults.
func (p *proxy) forward(frame []byte) {
	v := gjson.ParseBytes(frame)
	var mk mark
	marked := false
	if id := v.Get("id"); id.Exists() && !v.Get("method").Exists() {
		p.mu.Lock()
		mk, marked = p.marks[id.Raw]
		delete(p.marks, id.Raw)
		p.mu.Unlock()
	}
	if !marked {
		p.write(frame)
		return
	}
	if mk.drop {
		return
	}
	if mk.pollute {
		if p.o.Plan.PolluteKind == "partial" {
			p.write([]byte(pollutionPartial))
		} else {
			p.write([]byte(pollutionLine + "\n"))
		}
	}
	if mk.garble {
		frame = garble(frame)
	}
	if mk.slow {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			time.Sleep(p.o.Plan.Delay)
			p.write(frame)
		}()
		return
	}
	p.write(frame)
}

// write sends bytes to the host, split into small seeded chunks when the
// plan says so.
func (p *proxy) write(b []byte) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	if !p.o.Plan.Split {
		_, _ = p.out.Write(b)
		return
	}
	for len(b) > 0 {
		n := 1 + p.split.IntN(16)
		n = min(n, len(b))
		_, _ = p.out.Write(b[:n])
		b = b[n:]
		time.Sleep(50 * time.Microsecond)
	}
}

// stderr passes the server's stderr on as it comes, byte for byte, and
// traces it line by line on the side.
func (p *proxy) stderr(srv io.Reader, host io.Writer) {
	pr, pw := io.Pipe()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
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
