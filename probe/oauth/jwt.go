package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// clauseJWT is what client authentication with a key follows.
const clauseJWT = "RFC 7523 §2.2 and §3 (private_key_jwt: a JWT signed with the client's key, iss and sub the client_id, aud the authorization server), RFC 7521 §4.2"

// AssertionType is client_assertion_type for a JWT (RFC 7523 §2.2).
const AssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// MaxKeyFile bounds --client-key: a PEM private key is a few KiB (RSA
// 4096 about 3.3 KiB).
const MaxKeyFile = 64 << 10

// assertionLife is how long an assertion is valid: one token request.
const assertionLife = 60 * time.Second

// ClientKey is the private key a client authenticates with at the token
// endpoint (private_key_jwt) and the JWS algorithm it signs with.
type ClientKey struct {
	signer crypto.Signer
	alg    string
	// secrets are every form of the key a report could show: the PEM,
	// each of its lines, the DER, the private numbers.
	secrets []string
}

// Alg is the JWS algorithm the key signs with (ES256, ES384, ES512, RS256).
func (k *ClientKey) Alg() string { return k.alg }

// ParseClientKey reads a PEM private key, RSA (PKCS #1 or #8, 2048 bits
// at least) or EC (SEC 1 or PKCS #8, P-256, P-384, P-521). An error
// never quotes the file: it is a key.
func ParseClientKey(b []byte) (*ClientKey, error) {
	blk, rest := pem.Decode(b)
	if blk == nil {
		return nil, errors.New("holds no PEM block (want -----BEGIN PRIVATE KEY-----, EC PRIVATE KEY or RSA PRIVATE KEY)")
	}
	if next, _ := pem.Decode(rest); next != nil {
		return nil, errors.New("holds more than one PEM block: give a file with the private key alone")
	}
	if _, enc := blk.Headers["Proc-Type"]; enc || blk.Type == "ENCRYPTED PRIVATE KEY" {
		return nil, errors.New("is an encrypted key: mcpprobe reads no passphrase; give it decrypted (openssl pkey -in KEY -out PLAIN), readable by you alone")
	}
	var key any
	var err error
	switch blk.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(blk.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(blk.Bytes)
	default:
		return nil, fmt.Errorf("holds a PEM block of type %q, not a private key", blk.Type)
	}
	if err != nil {
		return nil, errors.New("holds a private key that does not parse (PKCS #8, SEC 1 or PKCS #1 DER expected)")
	}
	k := &ClientKey{secrets: keySecrets(b, blk.Bytes)}
	switch key := key.(type) {
	case *ecdsa.PrivateKey:
		switch key.Curve {
		case elliptic.P256():
			k.alg = "ES256"
		case elliptic.P384():
			k.alg = "ES384"
		case elliptic.P521():
			k.alg = "ES512"
		default:
			return nil, errors.New("holds an EC key on a curve JWS does not name (want P-256, P-384 or P-521)")
		}
		k.signer = key
		if d, err := key.Bytes(); err == nil {
			k.secrets = append(k.secrets, string(d))
		}
	case *rsa.PrivateKey:
		if key.N.BitLen() < 2048 {
			return nil, fmt.Errorf("holds an RSA key of %d bits: RFC 7518 §3.3 asks 2048 at least", key.N.BitLen())
		}
		k.alg, k.signer = "RS256", key
		k.secrets = append(k.secrets, string(key.D.Bytes()))
		for _, p := range key.Primes {
			k.secrets = append(k.secrets, string(p.Bytes()))
		}
	default:
		return nil, fmt.Errorf("holds a %T key: private_key_jwt here signs with RSA or EC keys", key)
	}
	return k, nil
}

// keySecrets are the file as given, each line of its base64 (a PEM's 64
// columns, which the redactor's base64 matching does not cross) and the
// DER itself, whose base64 and hex forms the redactor finds.
func keySecrets(file, der []byte) []string {
	out := []string{string(file), strings.TrimSpace(string(file)), string(der)}
	for _, line := range strings.Split(string(file), "\n") {
		if line = strings.TrimSpace(line); len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			out = append(out, line)
		}
	}
	return out
}

// Assertion is a client assertion (RFC 7523 §3): iss and sub the client
// id, aud the authorization server's issuer identifier, a minute's life,
// a fresh jti, signed with the key's algorithm.
func (k *ClientKey) Assertion(clientID, audience string, now time.Time) (string, error) {
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	head, _ := json.Marshal(map[string]string{"alg": k.alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(assertionLife).Unix(), "jti": base64.RawURLEncoding.EncodeToString(jti)})
	input := base64.RawURLEncoding.EncodeToString(head) + "." + base64.RawURLEncoding.EncodeToString(claims)
	sig, err := k.sign([]byte(input))
	if err != nil {
		return "", err
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// sign is the JWS signature of input (RFC 7518 §3.3, §3.4: ECDSA's R and
// S each padded to the curve's size, not ASN.1).
func (k *ClientKey) sign(input []byte) ([]byte, error) {
	switch key := k.signer.(type) {
	case *rsa.PrivateKey:
		h := sha256.Sum256(input)
		return rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, h[:])
	case *ecdsa.PrivateKey:
		var digest []byte
		switch k.alg {
		case "ES256":
			h := sha256.Sum256(input)
			digest = h[:]
		case "ES384":
			h := sha512.Sum384(input)
			digest = h[:]
		default:
			h := sha512.Sum512(input)
			digest = h[:]
		}
		r, s, err := ecdsa.Sign(rand.Reader, key, digest)
		if err != nil {
			return nil, err
		}
		size := (key.Curve.Params().BitSize + 7) / 8
		out := make([]byte, 2*size)
		r.FillBytes(out[:size])
		s.FillBytes(out[size:])
		return out, nil
	}
	return nil, errors.New("no signer")
}

// assertionParams are the token request's client authentication with the
// key: a fresh assertion for this request, handed to OnSecret (it is a
// credential for its minute) before it is sent. The key's algorithm must
// be one the server lists, when it lists any.
func (h *Host) assertionParams(v url.Values) error {
	k := h.o.ClientKey
	if algs := h.as.SigningAlgs; len(algs) > 0 && !slices.Contains(algs, k.alg) {
		return fail(fmt.Sprintf("OAuth: --client-key signs with %s, and the authorization server %s lists only %s in token_endpoint_auth_signing_alg_values_supported", k.alg, h.issuer, strings.Join(algs, ", ")),
			"the authorization-server metadata at "+h.as.from, "give a key of one of those algorithms")
	}
	a, err := k.Assertion(h.client.id, h.issuer, time.Now())
	if err != nil {
		return fail("OAuth: signing the client assertion with --client-key failed: "+err.Error(), "nothing: no request was sent", "check the key file")
	}
	h.o.OnSecret(a)
	v.Set("client_assertion_type", AssertionType)
	v.Set("client_assertion", a)
	line := fmt.Sprintf("mcpprobe: authenticated at the token endpoint %s with a %s client assertion for audience %s (%s)\n", SafeURL(h.as.TokenEndpoint), k.alg, SafeURL(h.issuer), clauseJWT)
	h.mu.Lock()
	seen := h.told[line]
	h.told[line] = true
	h.mu.Unlock()
	if !seen {
		fmt.Fprint(h.o.Prompt, line)
	}
	return nil
}
