package load

import (
	"slices"
	"time"

	"github.com/mcpprobe/mcpprobe/probe/bench"
)

// Series is one figure with every sample it rests on: the latencies (from
// each request's due time, ns), the service times (from its send) and the
// counts of how requests ended. Its statistics are computed from the
// samples (bench.Summarize), so shards merged by concatenating their
// samples give exactly the percentiles of one run over their union.
type Series struct {
	Name string `json:"name"`
	// Requests is how many requests the series scheduled (or sessions it
	// opened, for a phase).
	Requests   int    `json:"requests"`
	OK         int    `json:"ok"`
	Errors     int    `json:"errors"`
	Timeouts   int    `json:"timeouts"`
	Unsent     int    `json:"unsent"`
	FirstError string `json:"first_error"`
	Figures
	// SamplesNs are the latencies of the answered requests (OK and
	// errors: an error is timed; a timeout or an unsent request is not),
	// in schedule order.
	SamplesNs []int64 `json:"samples_ns"`
	// ServiceNs are the same requests' times from their send.
	ServiceNs []int64 `json:"service_ns"`
}

// Figures are a series' statistics, from its samples.
type Figures struct {
	N          int     `json:"n"`
	MinNs      float64 `json:"min_ns"`
	MeanNs     float64 `json:"mean_ns"`
	P50Ns      float64 `json:"p50_ns"`
	P90Ns      float64 `json:"p90_ns"`
	P95Ns      float64 `json:"p95_ns"`
	P99Ns      float64 `json:"p99_ns"`
	P999Ns     float64 `json:"p999_ns"`
	MaxNs      float64 `json:"max_ns"`
	ServiceP50 float64 `json:"service_p50_ns"`
	ServiceP99 float64 `json:"service_p99_ns"`
}

// ErrorRatio is the share of the scheduled requests that did not end in a
// result: errors, timeouts and unsent requests. 0 for no request.
func (s *Series) ErrorRatio() float64 {
	if s.Requests == 0 {
		return 0
	}
	return float64(s.Errors+s.Timeouts+s.Unsent) / float64(s.Requests)
}

// add counts one sample into the series.
func (s *Series) add(x Sample) {
	if x.Outcome == Abandoned {
		return
	}
	s.Requests++
	switch x.Outcome {
	case OK:
		s.OK++
	case Failed:
		s.Errors++
		if s.FirstError == "" {
			s.FirstError = x.Err
		}
	case Timeout:
		s.Timeouts++
	case Unsent:
		s.Unsent++
	}
	if x.Outcome == OK || x.Outcome == Failed {
		s.SamplesNs = append(s.SamplesNs, int64(x.Latency()))
		s.ServiceNs = append(s.ServiceNs, int64(x.Service()))
	}
}

// addDuration counts one timed phase (a handshake, a first list).
func (s *Series) addDuration(d time.Duration, oc Outcome, msg string) {
	s.add(Sample{Done: d, Outcome: oc, Err: msg})
}

// Summarize computes the figures from the samples.
func (s *Series) Summarize() {
	if s.SamplesNs == nil {
		s.SamplesNs = []int64{}
	}
	if s.ServiceNs == nil {
		s.ServiceNs = []int64{}
	}
	st := bench.Summarize(s.SamplesNs)
	s.Figures = Figures{N: st.N, MinNs: st.Min, MeanNs: st.Mean, P50Ns: st.P50, P90Ns: st.P90,
		P95Ns: st.P95, P99Ns: st.P99, P999Ns: st.P999, MaxNs: st.Max}
	sv := bench.Summarize(s.ServiceNs)
	s.ServiceP50, s.ServiceP99 = sv.P50, sv.P99
}

// mergeSeries is the series of the union of parts' samples: counts added,
// samples concatenated in the parts' order, figures computed again (never
// an average of percentiles).
func mergeSeries(name string, parts []*Series) *Series {
	m := &Series{Name: name}
	for _, p := range parts {
		if p == nil {
			continue
		}
		m.Requests += p.Requests
		m.OK += p.OK
		m.Errors += p.Errors
		m.Timeouts += p.Timeouts
		m.Unsent += p.Unsent
		if m.FirstError == "" {
			m.FirstError = p.FirstError
		}
		m.SamplesNs = append(m.SamplesNs, p.SamplesNs...)
		m.ServiceNs = append(m.ServiceNs, p.ServiceNs...)
	}
	m.Summarize()
	return m
}

// Percentile is bench's percentile (R-7, linear between closest ranks) of
// unsorted samples: what every figure here is, for a test to compute from
// the samples it holds.
func Percentile(samples []int64, p float64) float64 {
	xs := make([]float64, len(samples))
	for i, v := range samples {
		xs[i] = float64(v)
	}
	slices.Sort(xs)
	return bench.Percentile(xs, p)
}
