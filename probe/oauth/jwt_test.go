package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpprobe/mcpprobe/transport"
)

func pemOf(t *testing.T, typ string, der []byte) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func pkcs8(t *testing.T, k any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(t, "PRIVATE KEY", der)
}

// verifyJWS checks a compact JWS's signature with pub and returns its
// header and claims.
func verifyJWS(t *testing.T, jws string, pub crypto.PublicKey) (map[string]any, map[string]any) {
	t.Helper()
	parts := strings.Split(jws, ".")
	if len(parts) != 3 {
		t.Fatalf("not a compact JWS: %d parts", len(parts))
	}
	var head, claims map[string]any
	for i, into := range []*map[string]any{&head, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil || json.Unmarshal(b, into) != nil {
			t.Fatalf("part %d is not base64url JSON", i)
		}
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	input := []byte(parts[0] + "." + parts[1])
	switch pub := pub.(type) {
	case *rsa.PublicKey:
		h := sha256.Sum256(input)
		if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, h[:], sig); err != nil {
			t.Errorf("RS256 signature does not verify: %v", err)
		}
	case *ecdsa.PublicKey:
		var digest []byte
		switch head["alg"] {
		case "ES256":
			h := sha256.Sum256(input)
			digest = h[:]
		case "ES384":
			h := sha512.Sum384(input)
			digest = h[:]
		case "ES512":
			h := sha512.Sum512(input)
			digest = h[:]
		}
		size := (pub.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size {
			t.Fatalf("%s signature of %d bytes, want R||S of %d", head["alg"], len(sig), 2*size)
		}
		r, s := new(big.Int).SetBytes(sig[:size]), new(big.Int).SetBytes(sig[size:])
		if !ecdsa.Verify(pub, digest, r, s) {
			t.Errorf("%s signature does not verify", head["alg"])
		}
	}
	return head, claims
}

// Each kind of key a user may hold signs an assertion a server verifies
// with its public key, with the algorithm its curve or type names, the
// claims RFC 7523 §3 asks for.
func TestClientKeyAssertion(t *testing.T) {
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p521, _ := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	sec1, _ := x509.MarshalECPrivateKey(p256)
	for _, tc := range []struct {
		name string
		file []byte
		pub  crypto.PublicKey
		alg  string
	}{
		{"EC P-256 PKCS #8", pkcs8(t, p256), &p256.PublicKey, "ES256"},
		{"EC P-256 SEC 1", pemOf(t, "EC PRIVATE KEY", sec1), &p256.PublicKey, "ES256"},
		{"EC P-384", pkcs8(t, p384), &p384.PublicKey, "ES384"},
		{"EC P-521", pkcs8(t, p521), &p521.PublicKey, "ES512"},
		{"RSA PKCS #8", pkcs8(t, rsaKey), &rsaKey.PublicKey, "RS256"},
		{"RSA PKCS #1", pemOf(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)), &rsaKey.PublicKey, "RS256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParseClientKey(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Unix(1_800_000_000, 0)
			a, err := k.Assertion("client-1", "https://as.example", now)
			if err != nil {
				t.Fatal(err)
			}
			head, claims := verifyJWS(t, a, tc.pub)
			if head["alg"] != tc.alg || head["typ"] != "JWT" {
				t.Errorf("header %v, want alg %s typ JWT", head, tc.alg)
			}
			if claims["iss"] != "client-1" || claims["sub"] != "client-1" || claims["aud"] != "https://as.example" {
				t.Errorf("claims %v: want iss and sub the client id, aud the issuer", claims)
			}
			if claims["iat"] != float64(now.Unix()) || claims["exp"] != float64(now.Add(time.Minute).Unix()) {
				t.Errorf("iat %v exp %v, want now and a minute later", claims["iat"], claims["exp"])
			}
			b, _ := k.Assertion("client-1", "https://as.example", now)
			_, again := verifyJWS(t, b, tc.pub)
			if jti, _ := claims["jti"].(string); jti == "" || jti == again["jti"] {
				t.Errorf("jti %q then %q: want a fresh one each time", claims["jti"], again["jti"])
			}
		})
	}
}

// What is not a key mcpprobe can sign with is refused with what is
// wrong, never with the file's bytes.
func TestParseClientKeyRefusals(t *testing.T) {
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	two := append(pkcs8(t, p256), pkcs8(t, p256)...)
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "no PEM block"},
		{"not PEM", []byte("client_secret=hunter2hunter2"), "no PEM block"},
		{"a certificate", pemOf(t, "CERTIFICATE", []byte("SECRETDERBYTES")), `type "CERTIFICATE"`},
		{"garbage DER", pemOf(t, "PRIVATE KEY", []byte("SECRETDERBYTES")), "does not parse"},
		{"encrypted PKCS #8", pemOf(t, "ENCRYPTED PRIVATE KEY", []byte("SECRETDERBYTES")), "encrypted"},
		{"two keys", two, "more than one PEM block"},
		{"RSA 1024", pkcs8(t, small), "1024 bits"},
		{"Ed25519", pkcs8(t, ed), "RSA or EC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseClientKey(tc.file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "SECRETDER") || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error quotes the file: %v", err)
			}
		})
	}
}

// client_credentials with a key: the token request carries a fresh
// assertion for the issuer and no secret; the key in every form and the
// assertion are secrets of the run before anything is sent; an algorithm
// the server does not list is refused before the request.
func TestClientCredentialsPrivateKeyJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	file := pkcs8(t, key)
	for _, tc := range []struct {
		name string
		algs string
		want string // in the error; "" for a token
	}{
		{"listed", `["ES256","RS256"]`, ""},
		{"none listed", ``, ""},
		{"not listed", `["RS256"]`, "lists only RS256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []map[string]string
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/mcp":
					w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/prm"`)
					w.WriteHeader(http.StatusUnauthorized)
				case "/prm":
					fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", srv.URL+"/as")
				case "/.well-known/oauth-authorization-server/as":
					algs := ""
					if tc.algs != "" {
						algs = `,"token_endpoint_auth_signing_alg_values_supported":` + tc.algs
					}
					fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q,"token_endpoint_auth_methods_supported":["private_key_jwt"]%s}`, srv.URL+"/as", srv.URL+"/as/token", algs)
				case "/as/token":
					_ = r.ParseForm()
					m := map[string]string{"authorization": r.Header.Get("Authorization")}
					for k := range r.PostForm {
						m[k] = r.PostForm.Get(k)
					}
					got = append(got, m)
					fmt.Fprint(w, `{"access_token":"cc-token-123","token_type":"Bearer"}`)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			k, err := ParseClientKey(file)
			if err != nil {
				t.Fatal(err)
			}
			var secrets []string
			var prompt strings.Builder
			h := New(Options{URL: srv.URL + "/mcp", ClientID: "ci", ClientKey: k, Timeout: 5 * time.Second, Prompt: &prompt,
				OnSecret: func(s string) { secrets = append(secrets, s) }})
			for _, line := range strings.Split(strings.TrimSpace(string(file)), "\n")[1:3] {
				if !slices.Contains(secrets, line) {
					t.Errorf("the key's line %q is no secret of the run", line)
				}
			}
			err = h.Authorize(context.Background(), transport.NewTrace(time.Now()))
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || len(got) != 0 {
					t.Fatalf("error %v after %d token requests, want one saying %q before any", err, len(got), tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("%d token requests, want 1", len(got))
			}
			req := got[0]
			if req["grant_type"] != "client_credentials" || req["client_assertion_type"] != AssertionType || req["client_secret"] != "" || req["authorization"] != "" {
				t.Errorf("token request %v: want client_credentials with a JWT assertion and no secret", req)
			}
			if !slices.Contains(secrets, req["client_assertion"]) {
				t.Error("the assertion sent is no secret of the run")
			}
			_, claims := verifyJWS(t, req["client_assertion"], &key.PublicKey)
			if claims["aud"] != srv.URL+"/as" || claims["iss"] != "ci" || claims["sub"] != "ci" {
				t.Errorf("claims %v: want aud the issuer, iss and sub ci", claims)
			}
			if !strings.Contains(prompt.String(), "RFC 7523") {
				t.Errorf("stderr does not say how the client authenticated:\n%s", prompt.String())
			}
		})
	}
}
