package main

// The flags commands share, in groups a command composes in its own
// Flags list: a command takes exactly the flags it declares, its --help
// lists exactly those, and any other is urfave/cli's "flag provided but
// not defined", exit 2 (usage.go says it in the user's terms). Every
// group makes new flags on each call: a flag holds its parsed value, so
// no two commands share one. Every shared flag is Local, so survey's
// subcommands take only what they declare. A value that cannot mean what
// the flag says is refused by the flag's Validator as it is parsed, with
// a message that names the flag (parseMessage passes it through).

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/probe/findings"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/urfave/cli/v3"
)

// The categories a command's help lists its shared flags under, after
// its own.
const (
	catTarget = "TARGET"
	catBounds = "BOUNDS"
	catOutput = "OUTPUT"
	catGates  = "GATES"
	catOAuth  = "OAUTH"
)

// targetFlags say what to start or reach, and how: the server's
// environment and secrets, a URL's headers and transport, the protocol.
func targetFlags() []cli.Flag {
	return append(inCategory(catTarget,
		&cli.StringFlag{Name: "config", Usage: "host config `FILE` (.mcp.json, claude_desktop_config.json, .vscode/mcp.json, Codex's config.toml, Gemini CLI's settings.json); the target is then a server NAME in it, or --all of them"},
		&cli.StringSliceFlag{Name: "env", Aliases: []string{"e"}, Usage: "`KEY=VALUE` for the server's environment (repeatable); a value that looks like a credential is never shown (docs/reference.md#secrets)"},
		&cli.StringSliceFlag{Name: "secret-env", Usage: "`NAME`: the value of environment variable NAME (from --env, the config or mcpprobe's own environment) is a secret, whatever it looks like (repeatable)"},
		&cli.BoolFlag{Name: "inherit-env", Usage: "give a spawned server mcpprobe's whole environment, not only HOME, LOGNAME, PATH, SHELL, TERM, USER (what a host passes on) and --env"},
		&cli.StringSliceFlag{Name: "header", Aliases: []string{"H"}, Usage: "`'Name: value'` HTTP header (repeatable); values are never shown"},
		&cli.StringSliceFlag{Name: "header-env", Usage: "`Name=VAR`: send header Name with the value of environment variable VAR (repeatable)"},
		transportFlag(),
		&cli.BoolFlag{Name: "insecure", Usage: "for https URLs: do not verify the TLS certificate"},
		protocolFlag(),
	), authFlags()...)
}

// authFlags get an OAuth token for a protected URL target the way a host
// does (probe/oauth; docs/reference.md#protected-servers-oauth). They come with every
// command that takes the target flags; a command target refuses them.
func authFlags() []cli.Flag {
	return inCategory(catOAuth,
		&cli.BoolFlag{Name: "oauth", Usage: "sign in at a browser: authorization code with PKCE, the URL printed to stderr, the redirect taken on 127.0.0.1"},
		&cli.StringFlag{Name: "client-id", Usage: "`ID` of a client registered at the authorization server, or the https URL of a Client ID Metadata Document; without it, --oauth registers dynamically where the server allows"},
		&cli.StringFlag{Name: "client-secret-env", Usage: "`VAR` holds the --client-id's secret; without --oauth, the token is got by client_credentials"},
		&cli.StringFlag{Name: "refresh-token-env", Usage: "`VAR` holds a refresh token for --client-id: exchanged for the token, for CI"},
		&cli.StringFlag{Name: "client-key", Usage: "PEM private key `FILE` (RSA or EC) of --client-id: client_credentials with private_key_jwt (RFC 7523) instead of a secret; the key is never shown"},
		&cli.StringFlag{Name: "oauth-scope", Usage: "`SCOPES` to ask for (space separated), instead of the server's challenge or scopes_supported"},
		&cli.StringFlag{Name: "token-cache", Usage: "keep tokens between runs in `FILE` (0600, never the client secret), under resource and issuer; only when given; a link, FIFO, device, or a file another user owns or others can read is refused"},
		&cli.StringFlag{Name: "oauth-browser-cmd", Usage: "with --oauth: run `CMD` with the authorization URL as its last argument (e.g. xdg-open); by default nothing is opened"},
		waitFlag("oauth-wait", 5*time.Minute, "2m", "with --oauth: how long to wait for the browser's redirect"),
		issuerFlag(),
	)
}

// issuerFlag names the authorization server the user trusts with a
// credential: the client secret and refresh token go to no other origin
// than it and the resource's own.
func issuerFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "issuer", Usage: "`URL` of the authorization server you trust with --client-secret-env and --refresh-token-env: they go only to it or to the resource's own origin, never to another server the metadata names"}
}

func transportFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "transport", Value: "auto", Usage: "for URLs: auto (Streamable HTTP, falling back to legacy SSE), streamable or sse",
		Validator: func(mode string) error {
			if mode != "auto" && mode != "streamable" && mode != "sse" {
				return fmt.Errorf("--transport %q: want auto, streamable or sse", mode)
			}
			return nil
		}}
}

func protocolFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "protocol", Value: "auto", Usage: "`VERSION` to pin (e.g. 2025-06-18), or auto to detect the era and negotiate",
		Validator: func(p string) error {
			if p != "auto" && !probe.KnownVersion(p) {
				return fmt.Errorf("--protocol %q: mcpprobe speaks auto, %s, %s", p,
					strings.Join(probe.ModernVersions, ", "), strings.Join(probe.LegacyVersions, ", "))
			}
			return nil
		}}
}

// boundFlags bound every wait and every size a server can make mcpprobe
// hold: nothing a server does can hang the run or fill its memory.
func boundFlags() []cli.Flag {
	return inCategory(catBounds,
		waitFlag("timeout", 10*time.Second, "10s", "bound on each request after the handshake"),
		waitFlag("startup-timeout", 30*time.Second, "30s", "bound on the server starting and answering its handshake"),
		waitFlag("discover-timeout", 3*time.Second, "2s", "how long server/discover may stay unanswered before the server is taken to be legacy"),
		sizeFlag("max-pages", 1000, 1, "bound on the pages of one list"),
		&cli.IntFlag{Name: "max-bytes", Value: launch.DefaultMaxBytes, Usage: "bound on what one server may send in one connection, in bytes (0: none); past it mcpprobe stops the server",
			Validator: func(n int) error {
				if n < 0 {
					return fmt.Errorf("--max-bytes %d: give a number of bytes, or 0 for no bound", n)
				}
				return nil
			}},
		sizeFlag("max-line", transport.DefaultMaxLine, 1, "bound on one stdout line, in bytes"),
		waitFlag("grace", 2*time.Second, "2s", "time the server gets to exit after stdin closes, and again after SIGTERM"),
	)
}

// waitFlag is a duration that bounds a wait: 0 or less bounds nothing.
func waitFlag(name string, def time.Duration, example, usage string) *cli.DurationFlag {
	return &cli.DurationFlag{Name: name, Value: def, Usage: usage, Validator: func(d time.Duration) error {
		if d <= 0 {
			return fmt.Errorf("--%s %s: want a duration above 0, such as %s", name, d, example)
		}
		return nil
	}}
}

// sizeFlag is a count that bounds a size: below least it allows nothing.
func sizeFlag(name string, def, least int, usage string) *cli.IntFlag {
	return &cli.IntFlag{Name: name, Value: def, Usage: usage, Validator: func(n int) error {
		if n < least {
			return fmt.Errorf("--%s %d: want %d or more", name, n, least)
		}
		return nil
	}}
}

// outputFlags say where the result goes and how it reads.
func outputFlags() []cli.Flag {
	return inCategory(catOutput,
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object instead of text"},
		outFlag(),
		&cli.StringFlag{Name: "trace", Usage: "write every frame to `FILE` as JSON lines, as it happens"},
		quietFlag(),
		&cli.BoolFlag{Name: "no-color", Usage: "no colour for severities and verdicts on a terminal (NO_COLOR and a pipe turn it off too)"},
		&cli.BoolFlag{Name: "wide", Usage: "tables at full width on a terminal too, instead of fitted to it"},
		&cli.BoolFlag{Name: "verbose", Usage: "every row of every table, as measured; by default rows that say the same fold into one line after the answer"},
	)
}

func outFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the output to `FILE` instead of stdout",
		Validator: func(p string) error {
			if p == "-" {
				return nil
			}
			if err := writable("--out", p); err != nil {
				return fmt.Errorf("%s", err.Error())
			}
			return nil
		}}
}

func quietFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"}
}

// gateFlags is --fail-on for a command whose findings can trip error,
// warning and info, and the gates in extra; any other gate is refused.
func gateFlags(command string, extra ...string) []cli.Flag {
	gates := append(append([]string{}, findings.SeverityGates...), extra...)
	return inCategory(catGates, &cli.StringSliceFlag{Name: "fail-on",
		Usage: "exit 1 when a `GATE` trips: " + strings.Join(gates, ", ") + " (a severity gate trips on a finding at that severity or above)",
		Validator: func(v []string) error {
			if err := findings.CheckGates(command, splitList(v), extra...); err != nil {
				return fmt.Errorf("%s", gateMessage(err))
			}
			return nil
		}})
}

// gateMessage is a refused gate's message, starting with the flag's name
// as every validator's does.
func gateMessage(err error) string {
	msg := err.Error()
	if !strings.HasPrefix(msg, "--fail-on") {
		msg = "--fail-on: " + msg
	}
	return msg
}

// inCategory files every flag under cat and makes it Local.
func inCategory(cat string, fs ...cli.Flag) []cli.Flag {
	for _, f := range fs {
		switch f := f.(type) {
		case *cli.BoolFlag:
			f.Category, f.Local = cat, true
		case *cli.StringFlag:
			f.Category, f.Local = cat, true
		case *cli.StringSliceFlag:
			f.Category, f.Local = cat, true
		case *cli.IntFlag:
			f.Category, f.Local = cat, true
		case *cli.DurationFlag:
			f.Category, f.Local = cat, true
		default:
			panic(fmt.Sprintf("inCategory: %T", f))
		}
	}
	return fs
}

// only keeps the flags of group named in names.
func only(group []cli.Flag, names ...string) []cli.Flag {
	return slices.DeleteFunc(group, func(f cli.Flag) bool { return !slices.Contains(names, f.Names()[0]) })
}

// without drops the flags of group named in names.
func without(group []cli.Flag, names ...string) []cli.Flag {
	return slices.DeleteFunc(group, func(f cli.Flag) bool { return slices.Contains(names, f.Names()[0]) })
}

// flags is a command's flag list: its own, then the groups it takes.
func flags(own []cli.Flag, groups ...[]cli.Flag) []cli.Flag {
	out := append([]cli.Flag{}, own...)
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// serversFlags are the flags of servers, and of mcpprobe itself, which
// with --config FILE lists that file's servers as servers does.
func serversFlags() []cli.Flag {
	return flags(nil, only(targetFlags(), "config"), only(outputFlags(), "no-color", "wide"))
}

// probing are the groups of a command that probes one server: every
// target, bound and output flag, and --fail-on with the gates in extra.
func probing(command string, extra ...string) [][]cli.Flag {
	return [][]cli.Flag{targetFlags(), boundFlags(), outputFlags(), gateFlags(command, extra...)}
}
