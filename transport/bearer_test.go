package transport

import (
	"testing"
	"time"
)

func TestTraceRestart(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	tr := NewTrace(old)
	if !tr.Restart(time.Now()) || tr.Since() > time.Minute {
		t.Errorf("an empty trace did not move its start: since %v", tr.Since())
	}
	tr.Add(DirSend, []byte("x"))
	if tr.Restart(old) || tr.Since() > time.Minute {
		t.Errorf("a trace with a frame moved its start")
	}
}
