package main

import (
	"net/url"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/probe/oauth"
	"github.com/urfave/cli/v3"
)

// oauthFlags are authFlags' names, those that start a flow first.
func oauthFlags() []string {
	return []string{"oauth", "client-id", "refresh-token-env", "client-secret-env", "client-key", "oauth-scope", "token-cache", "oauth-browser-cmd", "oauth-wait", "issuer"}
}

// oauthHost is the run's OAuth client from authFlags, nil without them.
// What cannot hold is a usage error before anything is sent; every
// secret read is a secret of the run before anything is printed.
func (rs *runState) oauthHost(cmd *cli.Command, t launch.Target) (*oauth.Host, error) {
	set := setFlags(cmd, oauthFlags())
	if len(set) == 0 {
		return nil, nil
	}
	if err := oauthFits(cmd, t, set); err != nil {
		return nil, err
	}
	o := oauth.Options{URL: t.URL, Interactive: cmd.Bool("oauth"), ClientID: cmd.String("client-id"), Scope: cmd.String("oauth-scope"),
		CachePath: cmd.String("token-cache"), BrowserCmd: strings.Fields(cmd.String("oauth-browser-cmd")), Headers: t.Headers,
		Timeout: cmd.Duration("timeout"), Wait: cmd.Duration("oauth-wait"), Insecure: cmd.Bool("insecure"),
		UserAgent: "mcpprobe/" + version, Prompt: rs.errw, OnSecret: func(v string) { rs.secrets.add([]string{v}) },
		Classify: rs.classify}
	var err error
	if o.Issuer, err = issuerURL(cmd); err != nil {
		return nil, err
	}
	if o.CachePath != "" {
		// Refused before anything is sent: a link, a FIFO, a device,
		// another user's file or one others can read.
		if err := oauth.CheckCache(o.CachePath); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	if o.ClientSecret, err = rs.secretFromEnv(cmd, "client-secret-env"); err != nil {
		return nil, err
	}
	if o.RefreshToken, err = rs.secretFromEnv(cmd, "refresh-token-env"); err != nil {
		return nil, err
	}
	if o.ClientKey, err = rs.clientKey(cmd); err != nil {
		return nil, err
	}
	return oauth.New(o), nil
}

// setFlags are the names of flags that were given.
func setFlags(cmd *cli.Command, names []string) []string {
	var set []string
	for _, n := range names {
		if cmd.IsSet(n) {
			set = append(set, n)
		}
	}
	return set
}

// oauthFits refuses OAuth flags where they cannot apply, or in a
// combination that names no flow or two.
func oauthFits(cmd *cli.Command, t launch.Target, set []string) error {
	if t.Kind != "http" && t.Kind != "sse" {
		return usageErr("--%s applies to URL targets: OAuth is for HTTP; %s gets its credentials from --env", set[0], t.Display())
	}
	for _, h := range t.Headers {
		if name, _, _ := strings.Cut(h, ":"); strings.EqualFold(strings.TrimSpace(name), "Authorization") {
			return usageErr("--%s and an Authorization header: give one credential, the OAuth flags or the header", set[0])
		}
	}
	return oauthFlow(cmd, set)
}

// oauthFlow refuses a combination that names no way to the token, or two.
func oauthFlow(cmd *cli.Command, set []string) error {
	interactive, id, refresh, secret := cmd.Bool("oauth"), cmd.IsSet("client-id"), cmd.IsSet("refresh-token-env"), cmd.IsSet("client-secret-env")
	if cmd.IsSet("client-key") {
		if err := keyFlow(interactive, id, refresh, secret); err != nil {
			return err
		}
		secret = true // client_credentials, authenticated by the key
	}
	switch {
	case secret && !id:
		return usageErr("--client-secret-env needs --client-id: the secret is that client's")
	case refresh && !id:
		return usageErr("--refresh-token-env needs --client-id: a refresh token is exchanged by the client it was issued to")
	case refresh && interactive:
		return usageErr("--refresh-token-env and --oauth: give one way to the token, the refresh token (CI) or the browser")
	case !interactive && !refresh && !secret:
		return usageErr("--%s: say how to get the token: --oauth (a browser sign-in), --client-id with --client-secret-env (client_credentials), or --client-id with --refresh-token-env", set[0])
	}
	for _, f := range []string{"oauth-browser-cmd", "oauth-wait"} {
		if cmd.IsSet(f) && !interactive {
			return usageErr("--%s applies with --oauth (a browser sign-in)", f)
		}
	}
	return nil
}

// keyFlow refuses --client-key where it names no client_credentials
// flow of one client or a second way to authenticate.
func keyFlow(interactive, id, refresh, secret bool) error {
	switch {
	case !id:
		return usageErr("--client-key needs --client-id: the key is that client's")
	case secret:
		return usageErr("--client-key and --client-secret-env: give one way for the client to authenticate, the key (private_key_jwt) or the secret")
	case interactive || refresh:
		return usageErr("--client-key applies to client_credentials: leave out --oauth and --refresh-token-env")
	}
	return nil
}

// secretFromEnv reads the variable flag names, a secret of the run.
func (rs *runState) secretFromEnv(cmd *cli.Command, flag string) (string, error) {
	name := cmd.String(flag)
	if name == "" {
		return "", nil
	}
	v, ok := rs.lookupEnv(name)
	if !ok || v == "" {
		return "", usageErr("--%s %s: the environment variable %s is not set", flag, name, name)
	}
	rs.secrets.add([]string{v})
	return v, nil
}

// clientKey reads --client-key through inputfile's rule (a regular
// file, bounded; a link only to a tracked file of its checkout) and
// parses it before anything is sent: every form of the key is a secret
// of the run from then on. No message quotes the file.
func (rs *runState) clientKey(cmd *cli.Command) (*oauth.ClientKey, error) {
	path := cmd.String("client-key")
	if path == "" {
		return nil, nil
	}
	b, err := inputfile.Read(path, oauth.MaxKeyFile)
	if err != nil {
		return nil, usageErr("--client-key: %v", err)
	}
	k, err := oauth.ParseClientKey(b)
	if err != nil {
		return nil, usageErr("--client-key %s %v", path, err)
	}
	return k, nil
}

// issuerURL is --issuer, an http(s) URL, or "".
func issuerURL(cmd *cli.Command) (string, error) {
	s := cmd.String("issuer")
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", usageErr("--issuer %q: want the authorization server's issuer URL, such as https://auth.example.com", s)
	}
	return s, nil
}
