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
		value string
		want  []string
	}{
		{"production debug", []string{"production debug"}}, // never split on spaces
		// The password, and the Basic credentials a client makes of it.
		{"postgres://app:s3cret@db/x?sslkey=abc", []string{"postgres://app:s3cret@db/x?sslkey=abc", "abc", "s3cret", "app:s3cret", "YXBwOnMzY3JldA=="}},
		{"", []string{""}},
	}
	for _, tc := range tests {
		if got := EnvSecrets(tc.value); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("EnvSecrets(%q) = %q, want %q", tc.value, got, tc.want)
		}
	}
}
