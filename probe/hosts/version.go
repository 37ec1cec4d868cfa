package hosts

import (
	"fmt"
	"strconv"
	"strings"
)

// AtVersion is the host's profile as one of its versions had it: the
// profile itself from Since on (and for a version newer than any read:
// the newest rules are the best known), an older range's rules before
// it. Its id is ID@VERSION and its name names the version, so every
// figure and finding says which version it judged. A version no range
// covers is an error: no rule is guessed for it.
func (h Host) AtVersion(v string) (Host, error) {
	if _, err := parseVersion(v); err != nil {
		return Host{}, fmt.Errorf("%s@%s: %v", h.ID, v, err)
	}
	if h.Since == "" {
		return Host{}, fmt.Errorf("%s@%s: the %s profile has no per-version rules; give a cut with %s=CUT or a --hosts row", h.ID, v, h.ID, h.ID)
	}
	out := h
	out.ID, out.Name = h.ID+"@"+v, h.Name+" "+v
	out.Versions = nil
	if versionLess(v, h.Since) {
		r, ok := h.rangeOf(v)
		if !ok {
			return Host{}, fmt.Errorf("%s@%s: no rules known for that version; known: %s", h.ID, v, h.knownRanges())
		}
		out.apply(r)
	}
	return out, nil
}

func (h *Host) apply(r Version) {
	if r.Description != nil {
		h.Description = *r.Description
	}
	if r.Instructions != nil {
		h.Instructions = *r.Instructions
	}
	if r.Notes != "" {
		h.Notes = r.Notes
	}
	h.Since = r.From
}

func (h Host) rangeOf(v string) (Version, bool) {
	for _, r := range h.Versions {
		if !versionLess(v, r.From) && !versionLess(r.To, v) {
			return r, true
		}
	}
	return Version{}, false
}

func (h Host) knownRanges() string {
	var s []string
	for _, r := range h.Versions {
		if r.From == r.To {
			s = append(s, r.From)
		} else {
			s = append(s, r.From+" to "+r.To)
		}
	}
	return strings.Join(append(s, h.Since+" and later"), ", ")
}

// withVersions is hosts followed by each older version range's profile,
// for the strictest row: what survives it survives the versions still in
// use too.
func withVersions(hosts []Host) []Host {
	out := append([]Host(nil), hosts...)
	for _, h := range hosts {
		for _, r := range h.Versions {
			v := h
			v.ID, v.Name, v.Versions = h.ID+"@"+r.From, h.Name+" "+r.From, nil
			v.apply(r)
			out = append(out, v)
		}
	}
	return out
}

func (h Host) validateVersions() error {
	if len(h.Versions) > 0 && h.Since == "" {
		return fmt.Errorf("versions need since: the first version the profile's own rules hold for")
	}
	if h.Since != "" {
		if _, err := parseVersion(h.Since); err != nil {
			return fmt.Errorf("since: %v", err)
		}
	}
	for _, r := range h.Versions {
		for _, v := range []string{r.From, r.To} {
			if _, err := parseVersion(v); err != nil {
				return fmt.Errorf("versions %s to %s: %v", r.From, r.To, err)
			}
		}
		if versionLess(r.To, r.From) || !versionLess(r.To, h.Since) {
			return fmt.Errorf("versions %s to %s: want from <= to < since (%s)", r.From, r.To, h.Since)
		}
		var rules []Rule
		for _, p := range []*Rule{r.Description, r.Instructions} {
			if p != nil {
				rules = append(rules, *p)
			}
		}
		if err := validateRules(rules...); err != nil {
			return fmt.Errorf("versions %s to %s: %v", r.From, r.To, err)
		}
	}
	return nil
}

// parseVersion reads a dotted version of numbers: 2.1.280.
func parseVersion(v string) ([]int, error) {
	parts := strings.Split(v, ".")
	out := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" {
			return nil, fmt.Errorf("version %q: want numbers and dots, as 2.1.280", v)
		}
		out[i] = n
	}
	return out, nil
}

// versionLess compares two versions already checked by parseVersion,
// number by number; a missing number is 0.
func versionLess(a, b string) bool {
	x, _ := parseVersion(a)
	y, _ := parseVersion(b)
	for i := 0; i < len(x) || i < len(y); i++ {
		var p, q int
		if i < len(x) {
			p = x[i]
		}
		if i < len(y) {
			q = y[i]
		}
		if p != q {
			return p < q
		}
	}
	return false
}
