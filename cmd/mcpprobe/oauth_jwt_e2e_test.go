//go:build e2e

package main

// private_key_jwt (--client-key): client_credentials with an assertion
// signed by the key the fixture (fixtures/authserver) verifies; the key,
// in any of its forms, and every assertion stay out of every output; a
// key file is read as other input files are, and what is not a key is
// refused with exit 2 without its content.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestOAuthClientKey(t *testing.T) {
	t.Parallel()
	s := startAuthServer(t, "")
	dir := t.TempDir()
	key := filepath.Join(dir, "client.pem")
	if err := os.WriteFile(key, []byte(s.ClientKey), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--client-id", jwtClientID, "--client-key", key}
	texts := map[string]string{}
	for _, args := range [][]string{
		{"wire", "--trace", filepath.Join(dir, "wire.jsonl")},
		{"call", "--json"},
		{"report"},
	} {
		full := append(append(append([]string{}, args...), flags...), s.URL)
		if args[0] == "call" {
			full = append(full, "whoami")
		}
		res := probeRun(t, nil, nil, full...)
		if res.code != 0 {
			t.Fatalf("%s: exit %d\nstdout %s\nstderr %s", args[0], res.code, res.stdout, res.stderr)
		}
		texts[args[0]+" stdout"], texts[args[0]+" stderr"] = res.stdout, res.stderr
	}
	texts["trace"] = readAll(t, filepath.Join(dir, "wire.jsonl"))
	if !strings.Contains(texts["call stdout"], "authorized") || !strings.Contains(texts["wire stderr"], "RFC 7523") {
		t.Errorf("the tool was not reached, or stderr does not say how the client authenticated:\n%s\n%s", texts["call stdout"], texts["wire stderr"])
	}
	var assertions []string
	s.stderr.mu.Lock()
	for _, l := range strings.Split(s.stderr.b.String(), "\n") {
		if a := gjson.Get(l, "assertion").String(); a != "" {
			assertions = append(assertions, a)
		}
	}
	s.stderr.mu.Unlock()
	if len(assertions) < 3 {
		t.Fatalf("%d assertions accepted for 3 runs", len(assertions))
	}
	secrets := append(append(s.issuedAll(), assertions...), s.ClientKey)
	for _, line := range strings.Split(s.ClientKey, "\n") {
		if !strings.HasPrefix(line, "-----") && len(line) > 16 {
			secrets = append(secrets, line)
		}
	}
	noLeak(t, "private_key_jwt", texts, secrets)
}

const jwtClientID = "mcpprobe-jwt"

// A key file that cannot serve is a usage error naming what is wrong,
// never quoting the file; a combination that names two ways for the
// client to authenticate, or a flow the key does not apply to, too.
func TestOAuthClientKeyRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("-----BEGIN PRIVATE KEY-----\nU0VDUkVUQ0FOQVJZU0VDUkVUQ0FOQVJZ\n-----END PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.pem")
	if err := os.Symlink("/etc/hostname", link); err != nil {
		t.Fatal(err)
	}
	url := "http://127.0.0.1:1/mcp"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"wire", "--client-key", junk, url}, "needs --client-id"},
		{[]string{"wire", "--client-id", "c", "--client-key", junk, "--client-secret-env", "HOME", url}, "give one way"},
		{[]string{"wire", "--oauth", "--client-id", "c", "--client-key", junk, url}, "applies to client_credentials"},
		{[]string{"wire", "--client-id", "c", "--client-key", junk, url}, "does not parse"},
		{[]string{"wire", "--client-id", "c", "--client-key", link, url}, "--client-key"},
		{[]string{"wire", "--client-id", "c", "--client-key", filepath.Join(dir, "none.pem"), url}, "--client-key"},
		{[]string{"wire", "--client-id", "c", "--client-key", junk, "--", "./server"}, "URL targets"},
	} {
		res := probeRun(t, nil, nil, tc.args...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 saying %q", tc.args, res.code, res.stderr, tc.want)
		}
		if strings.Contains(res.stdout+res.stderr, "U0VDUkVU") {
			t.Errorf("%q: the key file's content is in the output", tc.args)
		}
	}
}
