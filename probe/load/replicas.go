package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sort"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/canon"
	"github.com/tidwall/gjson"
)

// maxAnswers bounds the distinct answers kept per request and replica.
const maxAnswers = 8

// maxAnswerBytes bounds the bytes of one answer kept to show.
const maxAnswerBytes = 2048

// replicaRecorder keeps, for each request (method and arguments: every
// request of one method is identical) and replica, the distinct answers
// the replica gave, byte for byte and normalised.
type replicaRecorder struct {
	mu       sync.Mutex
	replicas []string
	seen     map[string][]*answers // method → per replica
}

// answers are one replica's distinct answers to one request.
type answers struct {
	raw, norm map[string]int // digest → count
	example   map[string][]byte
	n         int
	more      bool // more distinct answers than maxAnswers came
}

func newReplicaRecorder(replicas []string) *replicaRecorder {
	return &replicaRecorder{replicas: replicas, seen: map[string][]*answers{}}
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// normalise is the answer with what a replica may differ in by right
// taken out: key order and spacing (canonical JSON), and the result's
// _meta, which carries per-request data. It is derived, never shown as
// what the server sent.
func normalise(body []byte) []byte {
	if !gjson.ValidBytes(body) {
		return body
	}
	c := canon.JSON(body)
	if r := gjson.ParseBytes(c); r.IsObject() && r.Get("_meta").Exists() {
		var b bytes.Buffer
		b.WriteByte('{')
		first := true
		r.ForEach(func(k, v gjson.Result) bool {
			if k.String() == "_meta" {
				return true
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(k.Raw)
			b.WriteByte(':')
			b.WriteString(v.Raw)
			return true
		})
		b.WriteByte('}')
		return b.Bytes()
	}
	return c
}

func (rr *replicaRecorder) see(method string, replica int, body []byte) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	per := rr.seen[method]
	if per == nil {
		per = make([]*answers, len(rr.replicas))
		rr.seen[method] = per
	}
	a := per[replica]
	if a == nil {
		a = &answers{raw: map[string]int{}, norm: map[string]int{}, example: map[string][]byte{}}
		per[replica] = a
	}
	a.n++
	rd, nd := digest(body), digest(normalise(body))
	if _, ok := a.raw[rd]; !ok && len(a.raw) >= maxAnswers {
		a.more = true
		return
	}
	a.raw[rd]++
	a.norm[nd]++
	if _, ok := a.example[nd]; !ok {
		a.example[nd] = bytes.Clone(body[:min(len(body), maxAnswerBytes)])
	}
}

// ReplicaCheck says whether any answer depended on the replica that gave
// it: for each request, the set of answers each replica gave, compared
// byte for byte and after normalisation (derived: canonical JSON, the
// result's _meta left out).
type ReplicaCheck struct {
	Replicas []string `json:"replicas"`
	// Normalisation names what the normalised comparison leaves out.
	Normalisation string          `json:"normalisation"`
	Requests      []ReplicaAnswer `json:"requests"`
	// Dependent counts the requests whose normalised answers differ by
	// replica: the finding.
	Dependent int `json:"dependent"`
}

// ReplicaAnswer is one request's answers across the replicas.
type ReplicaAnswer struct {
	Method string `json:"method"`
	// Answered is how many answers each replica gave (index as Replicas).
	Answered []int `json:"answered"`
	// RawSame: every replica gave the same set of answers, byte for byte.
	RawSame bool `json:"raw_same"`
	// NormalisedSame: the same after normalisation.
	NormalisedSame bool `json:"normalised_same"`
	// Examples, when the normalised answers differ: one answer of each
	// replica as sent (raw, cut at 2048 bytes), index as Replicas.
	Examples []string `json:"examples"`
	// Bounded: a replica gave more distinct answers than were kept.
	Bounded bool `json:"bounded"`
}

const normalisation = "derived: canonical JSON (keys sorted, no spacing), the result's _meta left out"

func keys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (rr *replicaRecorder) check() *ReplicaCheck {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	rc := &ReplicaCheck{Replicas: rr.replicas, Normalisation: normalisation, Requests: []ReplicaAnswer{}}
	methods := make([]string, 0, len(rr.seen))
	for m := range rr.seen {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		per := rr.seen[m]
		ra := ReplicaAnswer{Method: m, RawSame: true, NormalisedSame: true, Examples: []string{}}
		var raw0, norm0 []string
		answered := 0
		for i, a := range per {
			if a == nil {
				ra.Answered = append(ra.Answered, 0)
				continue
			}
			ra.Answered = append(ra.Answered, a.n)
			ra.Bounded = ra.Bounded || a.more
			rk, nk := keys(a.raw), keys(a.norm)
			if answered == 0 {
				raw0, norm0 = rk, nk
			} else {
				ra.RawSame = ra.RawSame && slices.Equal(raw0, rk)
				ra.NormalisedSame = ra.NormalisedSame && slices.Equal(norm0, nk)
			}
			answered++
			_ = i
		}
		if answered < 2 {
			continue // nothing to compare
		}
		if !ra.NormalisedSame {
			rc.Dependent++
			for _, a := range per {
				ex := ""
				if a != nil {
					ex = string(a.example[keys(a.norm)[0]])
				}
				ra.Examples = append(ra.Examples, ex)
			}
		}
		rc.Requests = append(rc.Requests, ra)
	}
	return rc
}
