package launch

import (
	"reflect"
	"testing"
)

func TestHeaderSecrets(t *testing.T) {
	tests := []struct {
		name, header, value string
		want                []string
	}{
		{"bearer", "Authorization", "Bearer tok-123456", []string{"Bearer tok-123456", "tok-123456"}},
		{"any scheme on Authorization", "authorization", "Custom  abc.def ", []string{"Custom  abc.def", "abc.def"}},
		{"token scheme elsewhere", "X-Api-Key", "Token k-999", []string{"Token k-999", "k-999"}},
		{"no scheme elsewhere", "X-Api-Key", "plain key", []string{"plain key"}},
		{"basic decoded", "Authorization", "Basic dXNlcjpwYXNzd29yZA==",
			[]string{"Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "user:password", "password"}},
		{"cookie values", "Cookie", "sid=abc123; theme=\"dark-mode\"", []string{"sid=abc123; theme=\"dark-mode\"", "abc123", "dark-mode"}},
		{"url value", "X-Callback", "https://u:p%40ss@h.test/cb?k=v%2Fw",
			[]string{"https://u:p%40ss@h.test/cb?k=v%2Fw", "v/w", "v%2Fw", "p@ss", "p%40ss", "u:p@ss", "dTpwQHNz"}},
		{"a bare value", "X-Key", "k-abcdef", []string{"k-abcdef"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := HeaderSecrets(tc.header, tc.value)
			want := unique(append([]string(nil), tc.want...))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("HeaderSecrets(%q, %q) = %q, want %q", tc.header, tc.value, got, want)
			}
		})
	}
}

func TestEnvSecrets(t *testing.T) {
	tests := []struct {
		name, value string
		want        []string
	}{
		{"API_TOKEN", "abc123xyz789", []string{"abc123xyz789"}},
		{"MY_SECRET", "rich", []string{"rich"}}, // the name says so, however short
		{"DB_PASS", "production", []string{"production"}},
		{"dbPwd", "production", []string{"production"}},
		{"Authorization", "Bearer x", []string{"Bearer x"}},
		{"MCP_VARIANT", "rich", nil},              // short, under a name that says nothing
		{"NODE_ENV", "production debug", nil},     // words; never split on spaces
		{"REGION", "us-east-1", nil},              // words and digits
		{"LANG", "en_US.UTF-8", nil},              //
		{"MCP_PROTOCOL", "2025-06-18", nil},       // a date
		{"DATA_DIR", "/var/lib/my-server2x", nil}, // a path
		{"API_BASE", "https://api.example.com/v1", nil},
		{"PWD", "/home/me", nil},
		{"AUTHOR_NAME", "Jane Doe", nil},
		{"KEYBOARD_LAYOUT", "dvorak-intl", nil},
		{"COMPASS_MODE", "northbound", nil},
		{"OPENAI_BASE", "sk-proj-abcdef123456", []string{"sk-proj-abcdef123456"}}, // a token's shape under any name
		{"WORKSPACE", "abc123xyz789", []string{"abc123xyz789"}},                   // not plainly anything else
		{"ID", "123e4567-e89b-12d3-a456-426614174000", []string{"123e4567-e89b-12d3-a456-426614174000"}},
		{"MODE", "XkQpLmZrTvBnWsYc", []string{"XkQpLmZrTvBnWsYc"}},
		// The password, and the Basic credentials a client makes of it,
		// under any name; the whole URL only where it is not plain.
		{"DATABASE_URL", "postgres://app:s3cret@db/x?sslkey=abc", []string{"postgres://app:s3cret@db/x?sslkey=abc", "abc", "s3cret", "app:s3cret", "YXBwOnMzY3JldA=="}},
		{"DB", "postgres://app:hunter@db/x", []string{"hunter", "app:hunter", "YXBwOmh1bnRlcg=="}},
		{"X", "", nil},
	}
	for _, tc := range tests {
		if got := EnvSecrets(tc.name, tc.value); !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
			t.Errorf("EnvSecrets(%q, %q) = %q, want %q", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestArgSecrets(t *testing.T) {
	tests := []struct {
		args       []string
		want       []string
		wantMasked []string
	}{
		{[]string{"--token=sk-live-123456789", "--api-key", "hunter2hunter2"}, []string{"sk-live-123456789", "hunter2hunter2"},
			[]string{"--token=***", "--api-key", "***"}},
		{[]string{"--password", "--verbose"}, nil, []string{"--password", "--verbose"}}, // no value follows
		{[]string{"--client-secret=abc", "--github-token", "x1"}, []string{"abc", "x1"}, []string{"--client-secret=***", "--github-token", "***"}},
		{[]string{"-p", "8080", "--port", "9000", "--no-auth", "/data"}, nil, []string{"-p", "8080", "--port", "9000", "--no-auth", "/data"}},
		{[]string{"run", "-e", "API_KEY=k-123", "img"}, []string{"k-123"}, []string{"run", "-e", "API_KEY=***", "img"}},
		{[]string{"ghp_abcdefghijklmnopqrstuvwx", "--model=gpt-4o"}, []string{"ghp_abcdefghijklmnopqrstuvwx"}, []string{"***", "--model=gpt-4o"}},
		{[]string{"--with=AKIAABCDEFGHIJKLMNOP"}, []string{"AKIAABCDEFGHIJKLMNOP"}, []string{"--with=***"}},
		{[]string{"mcp-remote", "https://h.test/mcp", "--header", "Authorization: Bearer tok-abc123"}, []string{"Bearer tok-abc123", "tok-abc123"},
			[]string{"mcp-remote", "https://h.test/mcp", "--header", "Authorization: ***"}},
		{[]string{"https://h.test/sse?token=q-abc123"}, []string{"q-abc123"}, []string{"https://h.test/sse?token=q-abc123"}},
		{[]string{"server.js", "--name", "rich"}, nil, []string{"server.js", "--name", "rich"}},
	}
	for _, tc := range tests {
		if got := ArgSecrets(tc.args); !reflect.DeepEqual(got, tc.want) && (len(got) > 0 || len(tc.want) > 0) {
			t.Errorf("ArgSecrets(%q) = %q, want %q", tc.args, got, tc.want)
		}
		if got := MaskArgs(tc.args); !reflect.DeepEqual(got, tc.wantMasked) {
			t.Errorf("MaskArgs(%q) = %q, want %q", tc.args, got, tc.wantMasked)
		}
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"API_TOKEN": true, "github_token": true, "OPENAI_API_KEY": true, "apiKey": true, "DB_PASSWORD": true, "PGPASSWD": true,
		"CLIENT_SECRET": true, "AWS_SESSION_TOKEN": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "AUTH": true, "OAUTH_CLIENT": true,
		"Authorization": true, "COOKIE_JAR": true, "SSH_PRIVATE": true, "db_pass": true, "SIM_PIN": true, "GPG_PASSPHRASE": true,
		"MCP_VARIANT": false, "PWD": false, "OLDPWD": false, "COMPASS": false, "AUTHOR": false, "SPINNER": false, "PATH": false,
		"HOME": false, "NODE_ENV": false, "KEYBOARD": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestInheritedSecrets(t *testing.T) {
	got := InheritedSecrets([]string{"GITHUB_TOKEN=ghx-abc123456", "HOSTNAME=8f3a2c1d9e0b", "MODE=sk-proj-abcdef123456", "PATH=/usr/bin", "PWD=/home/me", "BROKEN"})
	if want := []string{"ghx-abc123456", "sk-proj-abcdef123456"}; !reflect.DeepEqual(got, want) {
		t.Errorf("InheritedSecrets = %q, want %q", got, want)
	}
}
