package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/oauth2"
)

// cacheFile is --token-cache FILE: tokens kept between runs, each under
// its resource and issuer. It is kept the way ssh keeps a private key:
// a regular file of the user's, readable by no one else, never written
// through a link, read bounded. The client secret is never in it: it
// stays in the environment variable the user named.
type cacheFile struct {
	Entries map[string]cacheEntry `json:"entries"`
}

type cacheEntry struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitempty"`
	ClientID     string    `json:"client_id,omitempty"`
	// ClientSecret is read only to be hidden: caches written before it
	// was left out hold one.
	ClientSecret string `json:"client_secret,omitempty"`
	Grant        string `json:"grant,omitempty"`
}

// maxCache bounds a cache's size: a few entries of a few KiB each.
const maxCache = 1 << 20

func (h *Host) cacheKey() string { return h.resource + " " + h.issuer }

// CheckCache says why path cannot be a token cache, or nil: it may not
// exist yet; if it does, it is a regular file (not a link, a FIFO, a
// device), owned by the user running mcpprobe and readable by no one
// else. The same is checked again on the open file when it is read.
func CheckCache(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if d, err := os.Stat(filepath.Dir(path)); err != nil || !d.IsDir() {
			return fmt.Errorf("--token-cache %s: its folder %s does not exist", path, filepath.Dir(path))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("--token-cache %s: %v", path, err)
	}
	return cacheFileOK(path, fi)
}

// cacheFileOK is the rule on what stands at the path.
func cacheFileOK(path string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("--token-cache %s is a symbolic link: mcpprobe neither reads nor writes a token cache through a link (it could point at any file); give the file itself", path)
	case !m.IsRegular():
		return fmt.Errorf("--token-cache %s is not a regular file (%s): a FIFO or a device is never read", path, m.Type())
	}
	if err := ownedByUser(fi); err != nil {
		return fmt.Errorf("--token-cache %s: %v: a cache another user can write could feed mcpprobe their tokens, and they could read yours; remove it or give another path", path, err)
	}
	if p := fi.Mode().Perm(); p&0o077 != 0 && groupOtherBitsMatter {
		return fmt.Errorf("--token-cache %s has mode %04o: readable or writable by group or others; tokens are kept like ssh keys: chmod 600 %s", path, p, path)
	}
	return nil
}

// readCache reads the cache: nothing when there is none yet, an error
// when what is there may not be read.
func readCache(path string) (cacheFile, error) {
	c := cacheFile{Entries: map[string]cacheEntry{}}
	f, err := openNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("--token-cache %s: %v", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return c, err
	}
	if err := cacheFileOK(path, fi); err != nil {
		return c, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCache+1))
	if err != nil {
		return c, fmt.Errorf("--token-cache %s: %v", path, err)
	}
	if len(b) > maxCache {
		return c, fmt.Errorf("--token-cache %s is over %d bytes: not a token cache mcpprobe wrote", path, maxCache)
	}
	_ = json.Unmarshal(b, &c)
	if c.Entries == nil {
		c.Entries = map[string]cacheEntry{}
	}
	return c, nil
}

// fromCache takes the cached token for this resource and issuer: as it
// is while it has not expired, refreshed when it has and can be.
func (h *Host) fromCache(ctx context.Context) bool {
	if h.o.CachePath == "" {
		return false
	}
	c, err := readCache(h.o.CachePath)
	if err != nil {
		fmt.Fprintf(h.o.Prompt, "mcpprobe: %v (the cache is not used)\n", err)
		return false
	}
	for _, e := range c.Entries {
		for _, s := range []string{e.AccessToken, e.RefreshToken, e.ClientSecret} {
			if s != "" {
				h.o.OnSecret(s)
			}
		}
	}
	e, ok := c.Entries[h.cacheKey()]
	if !ok || e.AccessToken == "" {
		return false
	}
	// The secret is the one given now, never one kept in the file.
	h.client = client{id: e.ClientID, secret: h.o.ClientSecret, how: "cached"}
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

// saveCache writes the token under its key when --token-cache was given:
// into a new file of the same folder, created 0600 by this user, renamed
// over the path (a rename replaces a link, never writes through it). A
// path that holds what may not be a cache is left as it is.
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
	err := CheckCache(h.o.CachePath)
	var c cacheFile
	if err == nil {
		c, err = readCache(h.o.CachePath)
	}
	if err == nil {
		c.Entries[h.cacheKey()] = cacheEntry{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, TokenType: tok.TokenType, Expiry: tok.Expiry,
			ClientID: h.client.id, Grant: grant}
		for k, e := range c.Entries {
			e.ClientSecret = "" // one an older mcpprobe kept goes
			c.Entries[k] = e
		}
		b, _ := json.MarshalIndent(c, "", "  ")
		err = writeAtomic(h.o.CachePath, append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintf(h.o.Prompt, "mcpprobe: %v (the token is used, not kept)\n", err)
	}
}

// writeAtomic writes b to a new 0600 file beside path and renames it over
// path.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("--token-cache %s: %v", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone once renamed; left only on failure
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("--token-cache %s: %v", path, err)
	}
	return nil
}
