package main

import (
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/survey"
)

func TestSurveyProgress(t *testing.T) {
	for _, tc := range []struct {
		c       survey.Tally
		elapsed time.Duration
		want    string
	}{
		{survey.Tally{Total: 9}, time.Second, "0/9 · 0 failed · 0 in flight"},
		{survey.Tally{Total: 9, Done: 6, Failed: 1, InFlight: 3}, 500 * time.Millisecond, "6/9 · 1 failed · 3 in flight · 12.0/s · ETA 1s"},
		{survey.Tally{Total: 10, Done: 5, InFlight: 5}, 10 * time.Second, "5/10 · 0 failed · 5 in flight · 0.5/s · ETA 10s"},
		{survey.Tally{Total: 9, Done: 9, Failed: 3}, 3 * time.Second, "9/9 · 3 failed · 0 in flight · 3.0/s"},
		{survey.Tally{Done: 4, InFlight: 2}, 2 * time.Second, "4 done · 0 failed · 2 in flight · 2.0/s"},
	} {
		if got := surveyProgress(tc.c, tc.elapsed); got != tc.want {
			t.Errorf("%+v after %v: %q, want %q", tc.c, tc.elapsed, got, tc.want)
		}
	}
}
