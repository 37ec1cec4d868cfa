// Package netguard decides which addresses the OAuth client and the auth
// audit may fetch a document from. A server names the URLs they fetch (a
// 401's resource_metadata, its metadata's authorization_servers, the
// endpoints in those), so a server could point them at what only the
// machine running mcpprobe can reach: a cloud metadata service, which
// hands out the machine's credentials, or a private service of its
// network. A host fetches no such thing for a public server; neither does
// mcpprobe.
//
// The rule is decided on the address actually dialled (a net.Dialer
// Control func), after name resolution, so a name that resolves to a
// public address when checked and to an internal one when dialled (DNS
// rebinding) gains nothing. Names a cloud resolves to its metadata
// service are refused before any lookup.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Class is what an address is, as far as fetching from it goes.
type Class int

// The classes, from the most open to the most closed.
const (
	Public    Class = iota // the internet
	Private                // RFC 1918, RFC 4193 (fc00::/7), CGNAT 100.64.0.0/10, unspecified
	Loopback               // this machine
	LinkLocal              // 169.254.0.0/16, fe80::/10: never routed, where metadata services live
	Metadata               // a cloud's instance metadata service
)

func (c Class) String() string {
	switch c {
	case Public:
		return "public"
	case Private:
		return "private"
	case Loopback:
		return "loopback"
	case LinkLocal:
		return "link-local"
	}
	return "cloud metadata"
}

// metadataAddrs are the instance metadata services of the clouds: AWS,
// GCP, Azure, OpenStack, Oracle and DigitalOcean share 169.254.169.254;
// AWS ECS task metadata 169.254.170.2; AWS over IPv6 fd00:ec2::254;
// Alibaba 100.100.100.200; Oracle's 192.0.0.192.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true,
	netip.MustParseAddr("169.254.170.2"):   true,
	netip.MustParseAddr("169.254.170.23"):  true,
	netip.MustParseAddr("fd00:ec2::254"):   true,
	netip.MustParseAddr("fd00:ec2::23"):    true,
	netip.MustParseAddr("100.100.100.200"): true,
	netip.MustParseAddr("192.0.0.192"):     true,
}

// metadataNames resolve to a metadata service inside a cloud.
var metadataNames = map[string]bool{
	"metadata.google.internal": true, "metadata.goog": true, "metadata": true,
	"instance-data": true, "instance-data.ec2.internal": true,
	"metadata.azure.internal": true, "metadata.tencentyun.com": true,
}

var (
	cgnat    = netip.MustParsePrefix("100.64.0.0/10")
	thisNet  = netip.MustParsePrefix("0.0.0.0/8")
	nat64Pre = netip.MustParsePrefix("64:ff9b::/96")
)

// ClassifyIP is the class of a real address. An IPv4 address mapped or
// translated (NAT64) into IPv6 is judged as the IPv4 address it carries.
func ClassifyIP(ip netip.Addr) Class {
	ip = ip.Unmap()
	if nat64Pre.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case metadataAddrs[ip.WithZone("")]:
		return Metadata
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return LinkLocal
	case ip.IsLoopback():
		return Loopback
	case ip.IsPrivate(), ip.IsUnspecified(), cgnat.Contains(ip), thisNet.Contains(ip), ip.IsInterfaceLocalMulticast():
		return Private
	}
	return Public
}

// MetadataName says whether host is a name clouds resolve to their
// metadata service.
func MetadataName(host string) bool {
	return metadataNames[strings.TrimSuffix(strings.ToLower(host), ".")]
}

// Guard is the fetch rule of one run against one target.
type Guard struct {
	// Target is the URL the user gave: what it resolves to says whether
	// internal addresses may be fetched.
	Target string
	// Classify, when set, replaces ClassifyIP: a test declares a loopback
	// stand-in public, another internal. It is given the address dialled.
	Classify func(netip.AddrPort) Class
	// Resolver looks the target's name up; nil for net.DefaultResolver.
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}

	once   sync.Once
	target Class
}

// Refused is a fetch the guard did not allow.
type Refused struct {
	Addr  string // the host, or the address dialled
	Class Class
	Why   string
}

func (e *Refused) Error() string {
	return fmt.Sprintf("mcpprobe does not fetch from %s (%s address): %s", e.Addr, e.Class, e.Why)
}

// IsRefused says whether err is (or wraps) a Refused.
func IsRefused(err error) (*Refused, bool) {
	var r *Refused
	ok := errors.As(err, &r)
	return r, ok
}

func (g *Guard) classify(ap netip.AddrPort) Class {
	if g.Classify != nil {
		return g.Classify(ap)
	}
	return ClassifyIP(ap.Addr())
}

// Prepare classifies the target: the most internal of the addresses its
// name resolves to (a target that is partly internal is an internal
// set-up). A name that does not resolve leaves it public, the strict
// choice. Call it once before the first fetch; Allow calls it otherwise.
func (g *Guard) Prepare(ctx context.Context) {
	if g != nil {
		g.once.Do(func() { g.target = g.prepare(ctx) })
	}
}

func (g *Guard) prepare(ctx context.Context) Class {
	target := Public
	u, err := url.Parse(g.Target)
	if err != nil || u.Hostname() == "" {
		return target
	}
	port := portOf(u)
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
		return g.classify(netip.AddrPortFrom(ip, port))
	}
	if strings.EqualFold(u.Hostname(), "localhost") {
		return g.classify(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port))
	}
	var r interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	} = net.DefaultResolver
	if g.Resolver != nil {
		r = g.Resolver
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ips, err := r.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return target
	}
	for _, ip := range ips {
		target = max(target, g.classify(netip.AddrPortFrom(ip, port)))
	}
	return target
}

// TargetClass is the target's class (Prepare first).
func (g *Guard) TargetClass() Class {
	g.Prepare(context.Background())
	return g.target
}

func portOf(u *url.URL) uint16 {
	if p := u.Port(); p != "" {
		var n uint16
		_, _ = fmt.Sscan(p, &n)
		return n
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// allowed says whether an address of class c may be fetched: never a
// link-local or metadata one; a private or loopback one only when the
// target is itself internal (a developer's local set-up, a test).
func (g *Guard) allowed(c Class) (bool, string) {
	switch {
	case c == Metadata:
		return false, "a cloud's instance metadata service hands out this machine's credentials; no MCP host fetches it"
	case c == LinkLocal:
		return false, "link-local addresses are where metadata services live, never an authorization server's"
	case c == Public:
		return true, ""
	case g.target == Public:
		return false, fmt.Sprintf("the target is public and this address is %s: a host fetches nothing inside this machine's network for a public server", c)
	}
	return true, ""
}

// AllowAddr decides an address about to be dialled.
func (g *Guard) AllowAddr(ap netip.AddrPort) error {
	if g == nil {
		return nil
	}
	g.Prepare(context.Background())
	c := g.classify(ap)
	if ok, why := g.allowed(c); !ok {
		return &Refused{Addr: ap.String(), Class: c, Why: why}
	}
	return nil
}

// AllowURL decides what can be decided from a URL before anything is
// sent: a metadata name, a literal address. (Through a proxy, mcpprobe
// never sees the address the proxy dials: this is all it can check.)
func (g *Guard) AllowURL(u *url.URL) error {
	if g == nil {
		return nil
	}
	g.Prepare(context.Background())
	h := u.Hostname()
	if MetadataName(h) {
		return &Refused{Addr: h, Class: Metadata, Why: "the name of a cloud's instance metadata service, which hands out this machine's credentials"}
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return g.AllowAddr(netip.AddrPortFrom(ip, portOf(u)))
	}
	return nil
}

// Control is a net.Dialer Control func: it refuses the connection
// before it is made when the resolved address may not be fetched.
func (g *Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &Refused{Addr: address, Class: Public, Why: "not an address mcpprobe can judge"}
	}
	return g.AllowAddr(ap)
}

// Transport is an http.Transport whose every dial is judged, except the
// dial to a proxy the environment names (the user's, not the server's
// choice: the request's own URL is judged by AllowURL instead).
func (g *Guard) Transport(timeout time.Duration) *http.Transport {
	g.Prepare(context.Background())
	guarded := &net.Dialer{Timeout: timeout, Control: g.Control}
	plain := &net.Dialer{Timeout: timeout}
	proxies := proxyAddrs()
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if proxies[strings.ToLower(addr)] {
				return plain.DialContext(ctx, network, addr)
			}
			if h, _, err := net.SplitHostPort(addr); err == nil && MetadataName(h) {
				return nil, &Refused{Addr: h, Class: Metadata, Why: "the name of a cloud's instance metadata service"}
			}
			return guarded.DialContext(ctx, network, addr)
		},
		TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout, DisableCompression: true,
		MaxIdleConns: 10, IdleConnTimeout: 30 * time.Second,
	}
}

// RoundTripper judges each request's URL before next sends it.
func (g *Guard) RoundTripper(next http.RoundTripper) http.RoundTripper {
	return roundTripper{g, next}
}

type roundTripper struct {
	g    *Guard
	next http.RoundTripper
}

func (r roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := r.g.AllowURL(req.URL); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return r.next.RoundTrip(req)
}

// proxyAddrs are the host:port of the proxies the environment names.
func proxyAddrs() map[string]bool {
	out := map[string]bool{}
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		if !strings.Contains(v, "://") {
			v = "http://" + v
		}
		u, err := url.Parse(v)
		if err != nil || u.Hostname() == "" {
			continue
		}
		out[strings.ToLower(net.JoinHostPort(u.Hostname(), fmt.Sprint(portOf(u))))] = true
	}
	return out
}
