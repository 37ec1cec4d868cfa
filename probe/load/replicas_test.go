package load

import "testing"

func TestReplicaCheck(t *testing.T) {
	type ans struct {
		replica int
		body    string
	}
	for _, tc := range []struct {
		name              string
		answers           []ans
		rawSame, normSame bool
	}{
		{"the same bytes", []ans{{0, `{"a":1}`}, {1, `{"a":1}`}, {0, `{"a":1}`}}, true, true},
		{"key order and spacing only", []ans{{0, `{"a":1,"b":2}`}, {1, `{ "b":2, "a":1 }`}}, false, true},
		{"_meta only", []ans{{0, `{"a":1,"_meta":{"served":"x"}}`}, {1, `{"a":1,"_meta":{"served":"y"}}`}}, false, true},
		{"a value", []ans{{0, `{"a":1}`}, {1, `{"a":2}`}}, false, false},
		{"one replica varies, the other does not", []ans{{0, `{"a":1}`}, {0, `{"a":2}`}, {1, `{"a":1}`}}, false, false},
		{"both vary alike", []ans{{0, `{"a":1}`}, {0, `{"a":2}`}, {1, `{"a":2}`}, {1, `{"a":1}`}}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rr := newReplicaRecorder([]string{"r0", "r1"})
			for _, a := range tc.answers {
				rr.see("tools/call x", a.replica, []byte(a.body))
			}
			rc := rr.check()
			if len(rc.Requests) != 1 {
				t.Fatalf("%d requests", len(rc.Requests))
			}
			ra := rc.Requests[0]
			if ra.RawSame != tc.rawSame || ra.NormalisedSame != tc.normSame {
				t.Fatalf("raw %v normalised %v, want %v %v", ra.RawSame, ra.NormalisedSame, tc.rawSame, tc.normSame)
			}
			if want := map[bool]int{true: 0, false: 1}[tc.normSame]; rc.Dependent != want || len(ra.Examples) != 2*want {
				t.Errorf("dependent %d examples %d", rc.Dependent, len(ra.Examples))
			}
		})
	}
}

func TestReplicaCheckOneReplicaAnswered(t *testing.T) {
	// Nothing to compare: one replica alone answered.
	rr := newReplicaRecorder([]string{"r0", "r1"})
	rr.see("m", 0, []byte(`{}`))
	if rc := rr.check(); len(rc.Requests) != 0 || rc.Dependent != 0 {
		t.Fatalf("%+v", rc)
	}
}

func TestReplicaAnswersBounded(t *testing.T) {
	rr := newReplicaRecorder([]string{"r0", "r1"})
	for i := 0; i < 100; i++ {
		rr.see("m", 0, []byte(`{"n":`+string(rune('0'+i%10))+`}`+string(make([]byte, i/10))))
	}
	rr.see("m", 1, []byte(`{"n":0}`))
	rc := rr.check()
	if !rc.Requests[0].Bounded || len(rr.seen["m"][0].raw) != maxAnswers {
		t.Fatalf("bounded %v, kept %d", rc.Requests[0].Bounded, len(rr.seen["m"][0].raw))
	}
}
