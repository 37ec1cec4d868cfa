package findings

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

func TestFold(t *testing.T) {
	var fs []Finding
	for i := 0; i < 25; i++ {
		fs = append(fs, New(InvalidMessage, "frame %d: not JSON-RPC", i))
		if i%10 == 0 {
			fs = append(fs, New(UnknownID, "id %d", i))
		}
	}
	fs = append(fs, New(InvalidMessage, "frame x").About("t")) // another kind: its tool
	got := Fold(fs)
	if len(got) != 5 {
		t.Fatalf("%d rows, want 5 (one folded, three unknown-id, one about t): %+v", len(got), got)
	}
	f := got[0]
	if f.Code != InvalidMessage || f.Count != 25 || f.Message != "frame 0: not JSON-RPC" ||
		!reflect.DeepEqual(f.Examples(), []string{"frame 1: not JSON-RPC", "frame 2: not JSON-RPC", "frame 3: not JSON-RPC"}) {
		t.Errorf("folded row = %+v", f)
	}
	if got[1].Code != UnknownID || got[4].Tool != "t" || got[4].Count != 0 {
		t.Errorf("order or the other kinds changed: %+v", got)
	}
	if Total(got) != Total(fs) || Total(got) != 29 {
		t.Errorf("Total %d, %d", Total(got), Total(fs))
	}
	if again := Fold(got); !reflect.DeepEqual(again, got) {
		t.Errorf("folding twice changed it")
	}
	// FoldAt of a kind stay one by one.
	few := fs[:FoldAt+1] // ten invalid, one unknown-id
	if got := Fold(few); !reflect.DeepEqual(got, few) {
		t.Errorf("%d findings of a kind were folded", FoldAt)
	}
}

// Add, one finding at a time, gives what Fold gives of the whole list,
// and never holds more than FoldAt rows of a kind.
func TestAddIsFold(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	codes := []Code{InvalidMessage, UnknownID, LateReply}
	tools := []string{"", "", "a"}
	for trial := 0; trial < 200; trial++ {
		var all, added []Finding
		for i := 0; i < r.Intn(60); i++ {
			f := New(codes[r.Intn(len(codes))], "m%d", i).About(tools[r.Intn(len(tools))])
			all = append(all, f)
			added = Add(added, f)
			rows := map[kind]int{}
			for _, g := range added {
				rows[kindOf(g)]++
				if rows[kindOf(g)] > FoldAt {
					t.Fatalf("trial %d: more than %d rows of %v", trial, FoldAt, kindOf(g))
				}
			}
		}
		if want := Fold(all); !reflect.DeepEqual(added, want) && !(len(added) == 0 && len(want) == 0) {
			t.Fatalf("trial %d:\nAdd  %+v\nFold %+v", trial, added, want)
		}
	}
}

// A flood costs one row and constant time per finding.
func TestAddFlood(t *testing.T) {
	var fs []Finding
	for i := 0; i < 100000; i++ {
		fs = Add(fs, New(InvalidMessage, "frame %d", i))
	}
	if len(fs) != 1 || fs[0].Count != 100000 || len(fs[0].Examples()) != MaxExamples {
		t.Fatalf("%d rows, %+v", len(fs), fs[0])
	}
}

func TestTripCountsFolded(t *testing.T) {
	var fs []Finding
	for i := 0; i < 50; i++ {
		fs = Add(fs, New(InvalidMessage, "m%d", i))
	}
	tr := Trip([]string{"error"}, fs, nil)
	if len(tr) != 1 || tr[0].Count != 50 {
		t.Errorf("%v", tr)
	}
	_ = fmt.Sprint(tr)
}
