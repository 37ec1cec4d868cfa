package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestClassifyIP(t *testing.T) {
	for _, c := range []struct {
		ip   string
		want Class
	}{
		{"169.254.169.254", Metadata},
		{"169.254.170.2", Metadata},
		{"fd00:ec2::254", Metadata},
		{"100.100.100.200", Metadata},
		{"::ffff:169.254.169.254", Metadata}, // IPv4-mapped
		{"64:ff9b::a9fe:a9fe", Metadata},     // NAT64 of 169.254.169.254
		{"169.254.1.1", LinkLocal},
		{"fe80::1", LinkLocal},
		{"fe80::1%eth0", LinkLocal},
		{"127.0.0.1", Loopback},
		{"127.8.9.10", Loopback},
		{"::1", Loopback},
		{"::ffff:127.0.0.1", Loopback},
		{"10.0.0.1", Private},
		{"172.16.5.4", Private},
		{"172.31.255.255", Private},
		{"192.168.1.1", Private},
		{"100.64.0.1", Private},
		{"fc00::1", Private},
		{"fd12:3456::1", Private},
		{"0.0.0.0", Private},
		{"::", Private},
		{"8.8.8.8", Public},
		{"172.32.0.1", Public},
		{"100.128.0.1", Public},
		{"2606:4700:4700::1111", Public},
		{"93.184.216.34", Public},
	} {
		if got := ClassifyIP(netip.MustParseAddr(c.ip)); got != c.want {
			t.Errorf("%s: %s, want %s", c.ip, got, c.want)
		}
	}
}

func TestMetadataName(t *testing.T) {
	for h, want := range map[string]bool{
		"metadata.google.internal": true, "METADATA.google.internal.": true, "metadata": true,
		"instance-data.ec2.internal": true, "example.com": false, "metadata.example.com": false,
	} {
		if MetadataName(h) != want {
			t.Errorf("%s: %v", h, !want)
		}
	}
}

// TestAllow is the rule: metadata and link-local never; private and
// loopback only for an internal target.
func TestAllow(t *testing.T) {
	for _, c := range []struct {
		target, fetch string
		ok            bool
	}{
		{"https://93.184.216.34/mcp", "8.8.8.8:443", true},
		{"https://93.184.216.34/mcp", "169.254.169.254:80", false},
		{"https://93.184.216.34/mcp", "127.0.0.1:80", false},
		{"https://93.184.216.34/mcp", "10.1.2.3:443", false},
		{"https://93.184.216.34/mcp", "[fe80::1]:80", false},
		{"http://127.0.0.1:9/mcp", "127.0.0.1:80", true},
		{"http://127.0.0.1:9/mcp", "10.0.0.1:80", true},
		{"http://127.0.0.1:9/mcp", "169.254.169.254:80", false},
		{"http://localhost:9/mcp", "[::1]:80", true},
		{"http://10.0.0.5/mcp", "192.168.0.1:80", true},
		{"http://10.0.0.5/mcp", "[fd00:ec2::254]:80", false},
	} {
		g := &Guard{Target: c.target}
		err := g.AllowAddr(netip.MustParseAddrPort(c.fetch))
		if (err == nil) != c.ok {
			t.Errorf("target %s, fetch %s: %v, want allowed %v", c.target, c.fetch, err, c.ok)
		}
	}
}

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if ips, ok := f[host]; ok {
		return ips, nil
	}
	return nil, errors.New("no such host")
}

// TestTargetByName: a target name is classed by what it resolves to; an
// unresolvable one is public (the strict choice).
func TestTargetByName(t *testing.T) {
	r := fakeResolver{"intranet.corp": {netip.MustParseAddr("10.0.0.7")}, "mixed.example": {netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("192.168.0.1")}, "pub.example": {netip.MustParseAddr("8.8.4.4")}}
	for host, want := range map[string]Class{"intranet.corp": Private, "mixed.example": Private, "pub.example": Public, "nowhere.invalid": Public} {
		g := &Guard{Target: "https://" + host + "/mcp", Resolver: r}
		if got := g.TargetClass(); got != want {
			t.Errorf("%s: %s, want %s", host, got, want)
		}
	}
}

// TestTransportRefusesAtDial: the decision is on the address dialled,
// after resolution: a name (localhost here) that resolves to an
// internal address is refused for a public target, and nothing reaches
// the server.
func TestTransportRefusesAtDial(t *testing.T) {
	hit := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit = true
		_, _ = w.Write([]byte(`{"SecretAccessKey":"x"}`))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	inner := netip.MustParseAddrPort("127.0.0.1:" + port)
	g := &Guard{Target: "https://public.example/mcp", Resolver: fakeResolver{"public.example": {netip.MustParseAddr("8.8.8.8")}},
		Classify: func(ap netip.AddrPort) Class {
			if ap == inner {
				return Metadata
			}
			return ClassifyIP(ap.Addr())
		}}
	c := &http.Client{Transport: g.RoundTripper(g.Transport(0))}
	_, err := c.Get("http://localhost:" + port + "/latest/meta-data/")
	if err == nil || !strings.Contains(err.Error(), "does not fetch") {
		t.Fatalf("fetched: %v", err)
	}
	if _, ok := IsRefused(err); !ok {
		t.Errorf("not a Refused: %T %v", err, err)
	}
	if hit {
		t.Error("the request reached the server")
	}
	// The metadata name is refused before any lookup.
	if _, err := c.Get("http://metadata.google.internal/computeMetadata/v1/"); err == nil {
		t.Error("metadata.google.internal fetched")
	} else if r, ok := IsRefused(err); !ok || r.Class != Metadata {
		t.Errorf("metadata name: %v", err)
	}
}
