package faults

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func TestLineSplitter(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		max   int
		lines []string // whole lines as next returns them; a long one as "head|rest"
	}{
		{"short lines", "ab\ncd\n", 4, []string{"ab\n", "cd\n"}},
		{"a last line without newline", "ab\ncd", 4, []string{"ab\n", "cd"}},
		{"exactly max", "abcd\n", 4, []string{"abcd\n"}},
		{"one over", "abcde\nf\n", 4, []string{"abcd|e\n", "f\n"}},
		{"long, no newline", "abcdefgh", 3, []string{"abc|defgh"}},
		// Past bufio's buffer: the rest spans several reads.
		{"long past the buffer", strings.Repeat("x", 200<<10) + "\nz\n", 10,
			[]string{strings.Repeat("x", 10) + "|" + strings.Repeat("x", 200<<10-10) + "\n", "z\n"}},
		{"whole past the buffer", strings.Repeat("y", 100<<10) + "\n", 1 << 20, []string{strings.Repeat("y", 100<<10) + "\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ls := newLineSplitter(strings.NewReader(tc.in), tc.max)
			var got []string
			for {
				line, long, err := ls.next()
				if long {
					var rest bytes.Buffer
					n, newline, rerr := ls.rest(func(b []byte) error { rest.Write(b); return nil })
					if rerr != nil {
						t.Fatal(rerr)
					}
					whole := string(line) + rest.String()
					if want := len(strings.TrimSuffix(whole, "\n")); n != want || newline != strings.HasSuffix(whole, "\n") {
						t.Errorf("rest: n %d newline %v, want %d %v", n, newline, want, !newline)
					}
					got = append(got, string(line)+"|"+rest.String())
				} else if len(line) > 0 {
					got = append(got, string(line))
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if strings.Join(got, "\x00") != strings.Join(tc.lines, "\x00") {
				t.Errorf("got %.80q, want %.80q", got, tc.lines)
			}
		})
	}
}

// With faults in the plan, a line longer than --max-line is passed on
// whole, in order, past the faults, and said so on stderr; shorter lines
// still meet the faults.
func TestProxyLongLineWithFaults(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("m", 2000) + `"}`
	input := long + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	var out, errb bytes.Buffer
	o := echoOptions(mustPlan(t, Values{"drop-at": "9"}))
	o.MaxLine = 100
	if _, err := Proxy(context.Background(), strings.NewReader(input), &out, &errb, o); err != nil {
		t.Fatal(err)
	}
	// The echo server answers each request with its method: the long one
	// reached it whole, and before the second.
	i, j := strings.Index(out.String(), strings.Repeat("m", 2000)), strings.Index(out.String(), "tools/list")
	if i < 0 || j < i {
		t.Errorf("the long request did not reach the server whole and first: %.300q", out.String())
	}
	// The reply, as long, came back whole the same way.
	if !strings.Contains(errb.String(), "a host-to-server line of 2036 bytes is longer than --max-line (100): passed on as it came, without faults") ||
		!strings.Contains(errb.String(), "a server-to-host line of") {
		t.Errorf("stderr: %.400q", errb.String())
	}
}
