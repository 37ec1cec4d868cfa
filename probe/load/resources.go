package load

// Resources is what the server processes mcpprobe started used, read
// from /proc before they were let go: CPU time (user and system, with
// their waited-for children) and peak resident memory (VmHWM), over every
// process of each session's process group. A URL target has none.
type Resources struct {
	Source    string `json:"source"`
	Processes int    `json:"processes"`
	// CPUNs is the CPU time of all of them together.
	CPUNs int64 `json:"cpu_ns"`
	// RSSPeakBytes is the largest peak of one process; RSSPeakSumBytes
	// their peaks added (an upper bound of what they held at once).
	RSSPeakBytes    int64 `json:"rss_peak_bytes"`
	RSSPeakSumBytes int64 `json:"rss_peak_sum_bytes"`
}

func resourcesOf(ws []*worker) *Resources {
	var pgids []int
	for _, w := range ws {
		for _, ss := range w.sessions {
			if ss == nil {
				continue
			}
			if p := ss.Server().Process(); p != nil {
				pgids = append(pgids, p.Pid())
			}
		}
	}
	if len(pgids) == 0 {
		return nil
	}
	return readResources(pgids)
}

// Generator is mcpprobe's own CPU time (user and system of its process)
// over the steps, and the requests it sent in them: beside the server's
// Resources, it tells the cost of the load from the cost of serving it.
type Generator struct {
	CPUNs int64 `json:"cpu_ns"`
	// Requests are the requests sent (answered, failed or timed out).
	Requests int `json:"requests"`
}

// PerRequestNs is the CPU per request sent, or 0 for none sent.
func (g *Generator) PerRequestNs() float64 {
	if g == nil || g.Requests == 0 {
		return 0
	}
	return float64(g.CPUNs) / float64(g.Requests)
}
