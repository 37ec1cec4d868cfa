package survey

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Line is a survey record as a results file holds it, one JSON line: the
// envelope every --json shares (jsonout.Envelope writes it; a survey
// reads the two members below of it), and the survey's section under
// "survey". Its json tags, and those of the types it holds, are the one
// place a survey key is spelled: reports writes a Section field by field
// by them (Object.Fields), and --resume, merge and summary decode a line
// with encoding/json by them.
type Line struct {
	Command         string   `json:"command"`
	ProtocolVersion *string  `json:"protocol_version"`
	Survey          *Section `json:"survey"`
}

// Command is the envelope's command of a survey record: the envelope
// holds a command's section under the command's name.
var Command = keyOf[Line]("Survey")

// Section is a record's "survey" member, in the order it is written.
type Section struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Digest string `json:"input_digest"`
	Shard  *Shard `json:"shard"` // nil (null) for a run of the whole input
	// Status is StatusOK or StatusFailed, as Failure is nil or not.
	Status        string         `json:"status"`
	Failure       *Failure       `json:"failure"`
	FindingCounts map[string]int `json:"finding_counts"`
	Timings       Timings        `json:"timings"`
	Wire          *WireSummary   `json:"wire"`
	Budget        *BudgetSummary `json:"budget"`
	// The --with sections, as reports renders them for --json; absent
	// when not asked.
	Bench      json.RawMessage   `json:"bench,omitempty"`
	Faults     json.RawMessage   `json:"faults,omitempty"`
	Malformed  json.RawMessage   `json:"malformed,omitempty"`
	WithErrors map[string]string `json:"with_errors,omitempty"`
}

// A record's status.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Timings is everything in a record that varies from run to run (but
// the shard), so that a test can blank it.
type Timings struct {
	StartedAt string `json:"started_at"` // RFC 3339, nanoseconds, UTC
	ElapsedNs int64  `json:"elapsed_ns"`
	// The capture's, when the wire ran: nil leaves them out.
	*WireTimings
}

// WireTimings are a capture's timings in nanoseconds, each nil (null)
// when it was not seen.
type WireTimings struct {
	FirstByteNs  *int64 `json:"first_byte_ns"`
	InitializeNs *int64 `json:"initialize_ns"`
	LastPageNs   *int64 `json:"last_page_ns"`
	ExitNs       *int64 `json:"exit_ns"`
}

// Section is what the record's line holds under "survey", but for the
// --with sections, which reports renders.
func (r *Record) Section() *Section {
	s := &Section{ID: r.ID, Source: r.Source, Digest: r.Digest, Shard: r.Shard, Status: StatusOK, Failure: r.Failure,
		FindingCounts: r.FindingCounts, Wire: r.Wire, Budget: r.Budget, WithErrors: r.WithErrors}
	if r.Failure != nil {
		s.Status = StatusFailed
	}
	if s.FindingCounts == nil {
		s.FindingCounts = map[string]int{}
	}
	s.Timings = Timings{StartedAt: r.Started.UTC().Format(time.RFC3339Nano), ElapsedNs: int64(r.Elapsed)}
	if w := r.Wire; w != nil {
		ns := func(d time.Duration, ok bool) *int64 {
			if !ok {
				return nil
			}
			n := int64(d)
			return &n
		}
		t := w.Timings
		s.Timings.WireTimings = &WireTimings{
			FirstByteNs: ns(t.FirstByte, t.FirstByte > 0), InitializeNs: ns(t.Handshake, t.Handshake > 0),
			LastPageNs: ns(t.LastPage, t.LastPage > 0), ExitNs: ns(t.ExitAfter, t.ExitKnown),
		}
	}
	return s
}

// ParseLine reads one line of a results file. A line that is not a
// survey record, or whose members are not of the record's types, is an
// error: a results file may come from anywhere, and what merge, summary
// and --resume take in is only ever what this type can hold.
func ParseLine(line []byte) (*Line, error) {
	var l Line
	err := json.Unmarshal(line, &l)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Unmarshal checks the whole line before it decodes any of it.
		return nil, errors.New("not JSON: not a survey record")
	}
	if l.Command != Command {
		return nil, errors.New("not a survey record (no \"command\": \"survey\")")
	}
	if err != nil {
		return nil, fmt.Errorf("not a survey record: %s", typeError(err))
	}
	if l.Survey == nil || l.Survey.ID == "" {
		return nil, errors.New("a survey record without an id")
	}
	return &l, nil
}

// typeError says where a member of the wrong type is, by its key path.
func typeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("%s: want %s, got a JSON %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}

// keyOf is the JSON key of the named field of T, from its tag.
func keyOf[T any](field string) string {
	f, ok := reflect.TypeFor[T]().FieldByName(field)
	if !ok {
		panic("survey: no field " + field)
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
