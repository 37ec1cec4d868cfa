package load

import (
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe/findings"
)

// Findings are what the run found: a step with failed requests, and an
// answer that depended on the replica. The figures themselves never fail
// a run; --fail-on knee gates on the bound.
func (r *Result) Findings() []findings.Finding {
	var out []findings.Finding
	for _, st := range r.Steps {
		if a := st.All; a.Errors+a.Timeouts+a.Unsent > 0 {
			msg := fmt.Sprintf("at %g/s, %d of %d requests did not end in a result: %d errors, %d timeouts, %d not sent on time",
				st.Rate, a.Errors+a.Timeouts+a.Unsent, a.Requests, a.Errors, a.Timeouts, a.Unsent)
			if a.FirstError != "" {
				msg += "; the first error: " + a.FirstError
			}
			out = append(out, findings.New(findings.LoadErrors, "%s", msg))
		}
	}
	if rc := r.ReplicaCheck; rc != nil {
		for _, ra := range rc.Requests {
			if !ra.NormalisedSame {
				out = append(out, findings.New(findings.ReplicaDependent, "%s",
					fmt.Sprintf("%s: the answer depends on the replica that served it (%d replicas; %s)", ra.Method, len(rc.Replicas), rc.Normalisation)))
			}
		}
	}
	return out
}

// Counts are the counted gates: knee, 1 when a step broke the bound.
func (r *Result) Counts() map[string]int {
	if r.Knee.KneeRate != nil {
		return map[string]int{"knee": 1}
	}
	return nil
}
