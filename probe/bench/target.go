package bench

import (
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

// StdioTarget spawns a fresh process per Start.
type StdioTarget struct {
	Options transport.StdioOptions
	Grace   time.Duration
	Label   string
}

func (t StdioTarget) Name() string { return t.Label }

func (t StdioTarget) Start() (transport.Conn, func() (time.Duration, bool), error) {
	o := t.Options
	o.Trace = transport.NewTrace(time.Now())
	srv, err := transport.StartStdio(o)
	if err != nil {
		return nil, nil, err
	}
	return srv, func() (time.Duration, bool) {
		r := srv.Close(t.Grace)
		return r.After, !r.AlreadyExited
	}, nil
}

func (t StdioTarget) FirstByte(c transport.Conn) time.Duration {
	if s, ok := c.(*transport.Stdio); ok {
		return s.FirstByte()
	}
	return 0
}

// HTTPTarget opens a fresh HTTP session per Start.
type HTTPTarget struct {
	Options transport.HTTPOptions
	Label   string
}

func (t HTTPTarget) Name() string { return t.Label }

func (t HTTPTarget) Start() (transport.Conn, func() (time.Duration, bool), error) {
	o := t.Options
	o.Trace = transport.NewTrace(time.Now())
	c, err := transport.NewHTTP(o)
	if err != nil {
		return nil, nil, err
	}
	return c, func() (time.Duration, bool) { c.Close(); return 0, false }, nil
}

func (t HTTPTarget) FirstByte(c transport.Conn) time.Duration {
	if h, ok := c.(*transport.HTTP); ok {
		return h.FirstByte()
	}
	return 0
}
