package main

import (
	"context"
	"fmt"

	"github.com/mcpprobe/mcpprobe/probe/authz"
	"github.com/mcpprobe/mcpprobe/reports"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/urfave/cli/v3"
)

func (rs *runState) authCommand() *cli.Command {
	return &cli.Command{
		Name:      "auth",
		Before:    rs.before,
		Usage:     "audit a remote server's OAuth authorization from outside: the 401, its metadata, its authorization server, how it treats bad tokens",
		ArgsUsage: "URL",
		Flags: flags([]cli.Flag{
			&cli.StringFlag{Name: "token-env", Usage: "`VAR` holds a valid access token for URL: the baseline session, the query-string, GET, DELETE and Origin probes"},
			&cli.StringFlag{Name: "foreign-token-env", Usage: "`VAR` holds a token the same authorization server issued for another resource (probe A17)"},
			&cli.StringFlag{Name: "expired-token-env", Usage: "`VAR` holds an expired token for URL (probe A16)"},
			&cli.StringFlag{Name: "client-id", Usage: "`ID` of a client registered at the authorization server: the tokens not given are got by client_credentials, for URL and for a sibling resource (A17)"},
			&cli.StringFlag{Name: "client-secret-env", Usage: "`VAR` holds the --client-id's secret"},
			&cli.StringFlag{Name: "narrow-token-env", Usage: "`VAR` holds a valid token for URL that lacks a scope the endpoint requires (probe A19, step-up)"},
			&cli.BoolFlag{Name: "register", Usage: "let probe A12 register two clients at the authorization server's registration endpoint (it writes to the server)"},
			issuerFlag(),
		}, only(targetFlags(), "insecure"), only(boundFlags(), "timeout"), without(outputFlags(), "verbose"), gateFlags("auth")),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			o, err := rs.authOptions(cmd)
			if err != nil {
				return err
			}
			tw, err := rs.openAuthTrace(cmd, &o)
			if err != nil {
				return err
			}
			r, err := authz.Run(ctx, o)
			tw.close()
			if err != nil {
				return rs.failure(err)
			}
			return rs.emit(cmd, reports.NewAuth(r))
		},
	}
}

// authTrace is auth's --trace FILE: one JSON line per HTTP exchange of
// the audit, written as it completes, every secret hidden.
type authTrace struct {
	tf  *traceFile
	err error
}

// openAuthTrace opens --trace and has the audit write to it; a nil-file
// trace without the flag.
func (rs *runState) openAuthTrace(cmd *cli.Command, o *authz.Options) (*authTrace, error) {
	tf, err := rs.openTrace(cmd)
	if err != nil {
		return nil, err
	}
	at := &authTrace{tf: tf}
	if tf.f != nil {
		o.OnExchange = func(ex authz.Exchange) {
			if at.err != nil {
				return
			}
			line, _ := rs.redactor().Bytes(reports.AuthzTraceLine(ex))
			_, at.err = tf.f.Write(line)
		}
	}
	return at, nil
}

// close closes the file; a failed write is told as every trace's is.
func (at *authTrace) close() {
	if at.err != nil && at.tf.f != nil {
		at.tf.outs.fail("--trace "+at.tf.path, at.err)
	}
	at.tf.close()
}

// authOptions maps auth's flags to authz.Options. Every token read is a
// secret of the run before anything is sent or printed.
func (rs *runState) authOptions(cmd *cli.Command) (authz.Options, error) {
	args := rs.targetArgs(cmd)
	if len(args) != 1 {
		return authz.Options{}, usageErr("auth takes one URL, the MCP endpoint (https://host/mcp)")
	}
	o := authz.Options{URL: args[0], Timeout: cmd.Duration("timeout"), Insecure: cmd.Bool("insecure"), UserAgent: "mcpprobe/" + version}
	for _, t := range []struct {
		flag string
		dst  *string
	}{{"token-env", &o.Token}, {"foreign-token-env", &o.ForeignToken}, {"expired-token-env", &o.ExpiredToken}, {"narrow-token-env", &o.NarrowToken}, {"client-secret-env", &o.ClientSecret}} {
		name := cmd.String(t.flag)
		if name == "" {
			continue
		}
		v, ok := rs.lookupEnv(name)
		if !ok || v == "" {
			return o, usageErr("--%s %s: the environment variable %s is not set", t.flag, name, name)
		}
		rs.secrets.add([]string{v})
		*t.dst = v
	}
	o.ClientID, o.Register = cmd.String("client-id"), cmd.Bool("register")
	var err error
	if o.Issuer, err = issuerURL(cmd); err != nil {
		return o, err
	}
	o.Classify = rs.classify
	o.Notify = func(line string) { fmt.Fprintln(rs.errw, terminal.Escape(line)) } // it quotes the server's metadata
	if o.ClientSecret != "" && o.ClientID == "" {
		return o, usageErr("--client-secret-env needs --client-id: the secret is that client's")
	}
	// A token the audit obtains is a secret from the moment it exists.
	o.OnSecret = func(v string) { rs.secrets.add([]string{v}) }
	rs.intr.target.Store(o.URL)
	if st := rs.statusFor(cmd); st.On() {
		o.Progress = func(id string) { st.Step("probe " + id) }
	}
	return o, nil
}
