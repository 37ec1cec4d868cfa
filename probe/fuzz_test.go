package probe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/tidwall/gjson"
)

// FuzzSessionDispatch: whatever valid JSON-RPC-looking message a server
// sends (odd ids, batches, nesting, wrong types), the session neither
// panics nor loses the reply to a request in flight that does match.
func FuzzSessionDispatch(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":"x","method":"ping"},{"jsonrpc":"2.0","method":"n"}]`))
	f.Add([]byte(`{"jsonrpc":1,"id":{"a":1},"error":{"code":"x","message":2,"data":[1]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"result":null}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		if !transport.IsJSONRPC(msg) || claimsID1(msg) {
			return // a reply to request 1 would rightly be taken as ours
		}
		c := newFakeConn()
		s := NewSession(c)
		listSent := make(chan struct{})
		go func() {
			for raw := range c.sent {
				if strings.Contains(string(raw), `"tools/list"`) {
					close(listSent)
				}
			}
		}()
		// The odd message first: a reply to nobody, a request, whatever.
		c.reply(string(msg))
		time.Sleep(time.Millisecond)
		done := make(chan struct{})
		go func() {
			defer close(done)
			r, err := s.Call(context.Background(), "tools/list", nil, 2*time.Second)
			if err != nil || string(r.Raw) != `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}` {
				t.Errorf("the matching reply was lost after %q: %v", msg, err)
			}
		}()
		<-listSent // reply only once the request is in flight
		c.reply(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
		<-done
		_ = s.Events()
	})
}

func claimsID1(msg []byte) bool {
	v := gjson.ParseBytes(msg)
	hit := func(e gjson.Result) bool { k, ok := idKey(e.Get("id")); return ok && k == intKey(1) }
	if v.IsArray() {
		found := false
		v.ForEach(func(_, e gjson.Result) bool { found = found || hit(e); return true })
		return found
	}
	return hit(v)
}
