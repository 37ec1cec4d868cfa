package faults

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestSlow(t *testing.T) {
	script := []string{"> " + call(1, "a"), "< " + reply(1), "> " + call(2, "b"), "< " + reply(2)}
	tests := []struct {
		name  string
		v     Values
		want  []string
		notes []string
	}{
		{"reply 1 comes out after reply 2", Values{"slow-at": "1", "delay": "30ms"},
			[]string{sent("S", call(1, "a")), sent("S", call(2, "b")), sent("C", reply(2)), sent("C", reply(1))},
			[]string{"1: reply 1 held 30ms"}},
		{"the faults after it act when the reply comes out", Values{"slow-at": "1", "delay": "30ms", "pollute": "line"},
			[]string{sent("S", call(1, "a")), sent("S", call(2, "b")), sent("C", reply(2)), "C [debug] cache warmed in 12ms\n", sent("C", reply(1))},
			[]string{"1: reply 1 held 30ms", "1: a stray stdout line before reply 1"}},
		{"held, then dropped", Values{"slow-at": "2", "delay": "10ms", "drop-at": "2"},
			[]string{sent("S", call(1, "a")), sent("C", reply(1)), sent("S", call(2, "b"))},
			[]string{"2: reply 2 held 10ms", "2: reply dropped (call 2)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, Anywhere, tc.v, 1)
			diffLog(t, r.play(script...), tc.want)
			diffLog(t, r.notes(), tc.notes)
			if !r.e.Holding() {
				t.Error("Holding() is false after a hold")
			}
		})
	}
	// In a synctest bubble the clock moves only when every goroutine waits,
	// so a Close that waited for the hour-long hold would show an hour
	// gone, on any machine, at any load.
	t.Run("a closed connection drops what it holds", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := newRig(t, Anywhere, Values{"slow-at": "1", "delay": "1h"}, 1)
			_ = r.e.FromClient([]byte(call(1, "a") + "\n"))
			t0 := time.Now()
			if r.e.Settle(20 * time.Millisecond) {
				t.Error("Settle says an hour-long hold is over")
			}
			settled := time.Since(t0)
			r.e.Close()
			if waited := time.Since(t0) - settled; waited != 0 {
				t.Errorf("Close waited %v for the hold", waited)
			}
			diffLog(t, r.play(), []string{sent("S", call(1, "a"))})
		})
	})
}
