package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/transport"
)

// Target is a server to probe: a command to spawn or a URL to reach.
type Target struct {
	Kind    string // "stdio", "http", "sse", or "replay" (Frames played back, for tests)
	Command string
	Args    []string
	// Env is KEY=VALUE pairs (--env, the config's "env") on top of what a
	// host passes of mcpprobe's own environment (HostInherited), or of
	// all of it with InheritEnv.
	Env []string
	// InheritEnv gives the server mcpprobe's whole environment
	// (--inherit-env), as the fault proxy does with the one its host gave
	// it, instead of the few variables a host passes on.
	InheritEnv bool
	// BaseEnv, when not nil, is the environment Env goes on top of, in
	// place of mcpprobe's own: survey gives each server only its entry's
	// variables, PATH, and a private HOME and TMPDIR. It is not shown.
	BaseEnv []string
	// Marker, when set, is a KEY=VALUE of this server's environment that
	// no other server's holds: on Linux, the processes that escaped its
	// process group are found by it and killed when it stops, even while
	// other servers run (otherwise they wait for the last one's stop).
	Marker  string
	Dir     string
	URL     string
	Headers []string // "Name: value"
	Name    string   // the config entry it came from, if any
	// Secrets are values that must never be shown: env and header values.
	Secrets []string
	// Frames is a recorded trace a "replay" target plays back instead of
	// a server: golden tests run whole commands on it, with no process.
	Frames []transport.Frame
	// Timed plays a replay at its recorded times (transport.NewTimedReplay):
	// what a command measures of it is what it measured when recorded.
	Timed bool
	// tape, made by ReplayTarget, hands each Start the next connection of
	// a recording that holds several; copies of the Target share it.
	tape *tape
}

// ReplayTarget plays back a trace recorded by --trace. A trace of several
// connections (a command that started several servers, its lines numbered
// "conn") is played one connection per Start, in the order recorded, so a
// command run on it starts its servers as it did when it was recorded.
// Copies of the returned Target share that order: bench --vs can replay
// its two targets from one file.
func ReplayTarget(name string, frames []transport.Frame) Target {
	return Target{Kind: "replay", Name: name, Frames: frames, tape: &tape{conns: transport.SplitConns(frames)}}
}

type tape struct {
	mu    sync.Mutex
	conns [][]transport.Frame
	next  int
}

// take returns the next connection's frames, or an error once the
// recording has run out of connections.
func (t *tape) take() ([]transport.Frame, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.next >= len(t.conns) {
		return nil, fmt.Errorf("the recording holds %d connection(s), and connection %d was started", len(t.conns), t.next+1)
	}
	t.next++
	return t.conns[t.next-1], nil
}

// FromArgs reads a target from the command line: a URL, or a command and
// its arguments.
func FromArgs(args []string) (Target, error) {
	if len(args) == 0 {
		return Target{}, fmt.Errorf("no target: give a command (mcpprobe wire ./server, or -- node server.mjs), a URL, or --config FILE NAME")
	}
	if scheme, _, ok := strings.Cut(args[0], "://"); ok && isScheme(scheme) && !isHTTP(args[0]) {
		if _, err := os.Stat(args[0]); err != nil {
			return Target{}, fmt.Errorf("%q is a URL of a scheme mcpprobe does not speak (%s): a server is reached over http:// or https://%s", args[0], scheme, schemeHint(scheme, args[0]))
		}
	}
	if isHTTP(args[0]) {
		if len(args) > 1 {
			return Target{}, fmt.Errorf("a URL target takes no further arguments, got %q", args[1:])
		}
		// The scheme in lower case, as every check downstream reads it.
		scheme, rest, _ := strings.Cut(args[0], "://")
		u := strings.ToLower(scheme) + "://" + rest
		return Target{Kind: "http", URL: u, Secrets: urlSecrets(u)}, nil
	}
	return Target{Kind: "stdio", Command: args[0], Args: args[1:], Secrets: ArgSecrets(args[1:])}, nil
}

// isHTTP: a URL mcpprobe speaks, its scheme in any case (RFC 3986 §3.1).
func isHTTP(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	return ok && (strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https"))
}

// isScheme: the letters before "://" can be a URL scheme (RFC 3986 §3.1:
// a letter, then letters, digits, "+", "-" or ".").
func isScheme(s string) bool {
	if s == "" || !('a' <= s[0]|0x20 && s[0]|0x20 <= 'z') {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// schemeHint names the URL a mistyped http or https meant (htp, htps,
// hhttp, http:s…): any other scheme starting with h.
func schemeHint(scheme, url string) string {
	if scheme[0]|0x20 != 'h' {
		return ""
	}
	want := "http"
	if strings.HasSuffix(strings.ToLower(scheme), "s") {
		want = "https"
	}
	return "; did you mean " + want + url[len(scheme):] + "?"
}

// WithEnv adds KEY=VALUE pairs, whose values become secrets.
func (t *Target) WithEnv(pairs []string) error {
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return fmt.Errorf("--env %q: want KEY=VALUE", p)
		}
		t.Env = append(t.Env, k+"="+v)
		t.Secrets = append(t.Secrets, EnvSecrets(k, v)...)
	}
	return nil
}

// Display is the target as a person would type it, with every env value
// and every credential among the arguments hidden.
func (t Target) Display() string {
	if t.Kind == "replay" {
		return t.Name
	}
	if t.Kind != "stdio" {
		return t.URL
	}
	var parts []string
	for _, e := range t.Env {
		k, _, _ := strings.Cut(e, "=")
		parts = append(parts, k+"=***")
	}
	parts = append(parts, ShellQuote(t.Command))
	for i, at := range credentialArgs(t.Args) {
		switch a := t.Args[i]; {
		case at == 0:
			parts = append(parts, "***")
		case at > 0:
			parts = append(parts, ShellQuote(a[:at])+"***")
		default:
			parts = append(parts, ShellQuote(a))
		}
	}
	return strings.Join(parts, " ")
}

// InRepository is the target as Display shows it, with each path of its
// command line that lies inside the repository at root written relative
// to root ("./bin/server"), wd being where a relative path starts: a
// committed report names its server the same way on a laptop
// (/home/me/proj/bin/server) and in CI (./bin/server). A path outside
// root, a command looked up in PATH and an argument that is no file stay
// as typed.
func (t Target) InRepository(root, wd string) string {
	if t.Kind != "stdio" || root == "" {
		return t.Display()
	}
	if t.Dir != "" {
		wd = filepath.Join(wd, t.Dir)
		if filepath.IsAbs(t.Dir) {
			wd = t.Dir
		}
	}
	r := t
	r.Command = repoPath(t.Command, root, wd, true)
	r.Args = make([]string, len(t.Args))
	for i, a := range t.Args {
		r.Args[i] = repoPath(a, root, wd, false)
	}
	return r.Display()
}

// repoPath is p relative to root when it names a path inside it: the
// command when it holds a separator (else PATH finds it), an argument
// when it is absolute or names a file that exists.
func repoPath(p, root, wd string, command bool) string {
	if !strings.ContainsRune(filepath.ToSlash(p), '/') {
		return p
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(wd, p)
		if _, err := os.Stat(abs); err != nil && !command {
			return p
		}
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return "./" + filepath.ToSlash(rel)
}

// RepositoryRoot is the nearest folder at or above dir that holds .git
// (a folder, or the file of a worktree or submodule), or dir itself.
func RepositoryRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

var shellSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`) })

// ShellQuote is s as a shell reads it back as one word: as it is when it
// is safe, in single quotes otherwise.
func ShellQuote(s string) string {
	if shellSafe().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
