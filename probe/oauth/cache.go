package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"golang.org/x/oauth2"
)

// cacheFile is --token-cache FILE: tokens kept between runs, each under
// its resource and issuer, written 0600.
type cacheFile struct {
	Entries map[string]cacheEntry `json:"entries"`
}

type cacheEntry struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitempty"`
	ClientID     string    `json:"client_id,omitempty"`
	ClientSecret string    `json:"client_secret,omitempty"`
	Grant        string    `json:"grant,omitempty"`
}

func (h *Host) cacheKey() string { return h.resource + " " + h.issuer }

func readCache(path string) cacheFile {
	c := cacheFile{Entries: map[string]cacheEntry{}}
	b, err := os.ReadFile(path)
	if err == nil {
		_ = json.Unmarshal(b, &c)
	}
	if c.Entries == nil {
		c.Entries = map[string]cacheEntry{}
	}
	return c
}

// fromCache takes the cached token for this resource and issuer: as it
// is while it has not expired, refreshed when it has and can be.
func (h *Host) fromCache(ctx context.Context) bool {
	if h.o.CachePath == "" {
		return false
	}
	e, ok := readCache(h.o.CachePath).Entries[h.cacheKey()]
	if !ok || e.AccessToken == "" {
		return false
	}
	for _, s := range []string{e.AccessToken, e.RefreshToken, e.ClientSecret} {
		if s != "" {
			h.o.OnSecret(s)
		}
	}
	h.client = client{id: e.ClientID, secret: e.ClientSecret, how: "cached"}
	tok := &oauth2.Token{AccessToken: e.AccessToken, RefreshToken: e.RefreshToken, TokenType: e.TokenType, Expiry: e.Expiry}
	h.mu.Lock()
	h.grant, h.cached = e.Grant, true
	h.mu.Unlock()
	if e.Expiry.IsZero() || time.Until(e.Expiry) > 30*time.Second {
		h.setToken(tok)
		return true
	}
	if e.RefreshToken == "" {
		return false
	}
	fresh, err := h.refresh(ctx, e.RefreshToken)
	if err != nil {
		h.mu.Lock()
		h.grant, h.cached = "", false
		h.mu.Unlock()
		return false
	}
	h.setToken(fresh)
	h.saveCache()
	return true
}

// saveCache writes the token under its key, 0600, when --token-cache was
// given.
func (h *Host) saveCache() {
	if h.o.CachePath == "" {
		return
	}
	h.mu.Lock()
	tok, grant := h.tok, h.grant
	h.mu.Unlock()
	if tok == nil {
		return
	}
	c := readCache(h.o.CachePath)
	c.Entries[h.cacheKey()] = cacheEntry{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, TokenType: tok.TokenType, Expiry: tok.Expiry,
		ClientID: h.client.id, ClientSecret: h.client.secret, Grant: grant}
	b, _ := json.MarshalIndent(c, "", "  ")
	err := os.WriteFile(h.o.CachePath, append(b, '\n'), 0o600)
	if err == nil {
		err = os.Chmod(h.o.CachePath, 0o600) // a file that was there keeps its mode otherwise
	}
	if err != nil {
		fmt.Fprintf(h.o.Prompt, "mcpprobe: --token-cache %s: %v (the token is used, not kept)\n", h.o.CachePath, err)
	}
}
