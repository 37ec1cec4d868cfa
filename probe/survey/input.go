package survey

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/budget"
	"github.com/mcpprobe/mcpprobe/probe/inputfile"
	"github.com/mcpprobe/mcpprobe/probe/jsonerr"
	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/tailscale/hujson"
	"github.com/tidwall/gjson"
)

// Entry is one server of the input, as read: an id, where it came from,
// and either a target or why it cannot be probed as written.
type Entry struct {
	ID     string
	Source string // "fleet.jsonl:12", ".mcp.json", "server.json#packages[0]"
	Target launch.Target
	// Cause and Err, when set, make the entry a failed record without a
	// start: a value it needs and was not given, a field it lacks.
	Cause string
	Err   string
	// Filter is a host config's include/exclude tool lists for the
	// server: what the host pays leaves those tools out.
	Filter budget.ToolFilter
	// Config and Server, for an entry of a host config: the file (as
	// Source names it) and the server's name there. The servers of one
	// config are checked together for tools that shadow each other.
	Config, Server string
}

// MaxLine bounds one line of a JSON-lines input, and MaxDocument a whole
// host config or server.json file: both are read by people and tools,
// never this large when honest.
const (
	MaxLine     = 1 << 20
	MaxDocument = 64 << 20
)

// Format names an input file's kind, detected per file.
type Format string

const (
	FormatLines    Format = "jsonl"       // one entry a line: fleet entries or server.json objects
	FormatConfig   Format = "host-config" // mcpServers / servers of a host
	FormatRegistry Format = "server.json" // one server.json, or a registry list page
)

// Digest is the SHA-256 of the inputs' bytes, in the order given: what
// every record of a run carries, so that merge can refuse shards of
// different inputs. File names are left out, so that shards run on
// machines that keep the input under other paths agree.
func Digest(paths []string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		f, err := inputfile.Open(p, inputfile.MaxSurvey)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Read streams the entries of every input, in order, to yield; it holds
// one line (or one config or server.json document) at a time. An entry
// that cannot be read is yielded with its cause; a file that cannot be
// read at all is the error. yield's error stops the read.
func Read(paths []string, yield func(Entry) error) error {
	for _, p := range paths {
		if err := readFile(p, yield); err != nil {
			return err
		}
	}
	return nil
}

func readFile(path string, yield func(Entry) error) error {
	f, err := inputfile.Open(path, inputfile.MaxSurvey)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, MaxLine)
	format, err := detect(br)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		// Codex's config.toml: read by launch as every host config is.
		format = FormatConfig
	}
	name := filepath.ToSlash(filepath.Clean(path))
	switch format {
	case FormatConfig:
		return readConfig(path, name, yield)
	case FormatRegistry:
		doc, err := io.ReadAll(io.LimitReader(br, MaxDocument+1))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(doc) > MaxDocument {
			return fmt.Errorf("%s: over %d MiB; give a registry dump as JSON lines, one server.json a line", path, MaxDocument>>20)
		}
		if err := inputfile.CheckDepth(path, doc, inputfile.JSONC); err != nil {
			return err
		}
		return readRegistryDoc(name, doc, yield)
	}
	return readLines(br, name, yield)
}

// detect tells a JSON-lines file from a JSON document by its first line:
// a line that is a whole JSON object on its own, and holds no host config
// key, starts JSON lines; anything else is one document, a host config
// (mcpServers, or servers as an object) or the registry's (server.json,
// or a list page whose servers is an array).
func detect(br *bufio.Reader) (Format, error) {
	first, err := br.Peek(MaxLine)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	trimmed := bytes.TrimSpace(first)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return FormatLines, nil // blank or not JSON: JSON lines, each bad line said so
	}
	whole := br.Buffered() // the document, or as much of it as the buffer holds
	all, _ := br.Peek(whole)
	if d := inputfile.Depth(all, inputfile.JSONC); d > inputfile.MaxDepth {
		return "", fmt.Errorf("nests more than %d levels deep: mcpprobe refuses it before parsing, since parsers of deep nesting recurse, and no honest input nests past a few dozen", inputfile.MaxDepth)
	}
	if json.Valid(trimmed) {
		return classify(trimmed, true), nil
	}
	// A document over several lines (or JSON with comments: VS Code).
	if std, err := hujson.Standardize(append([]byte(nil), all...)); err == nil {
		return classify(std, false), nil
	}
	// Past the buffer: which keys it opens with decides.
	if bytes.Contains(all, []byte(`"mcpServers"`)) || bytes.Contains(all, []byte(`"servers"`)) && !bytes.Contains(all, []byte(`"server"`)) {
		return FormatConfig, nil
	}
	return FormatRegistry, nil
}

// classify names a document's format; oneLine is a document that is
// the file's first line, which JSON lines read as well as a whole.
func classify(doc []byte, oneLine bool) Format {
	v := gjson.ParseBytes(doc)
	switch {
	case v.Get("mcpServers").IsObject(), v.Get("servers").IsObject():
		return FormatConfig
	case v.Get("servers").IsArray():
		return FormatRegistry
	case !oneLine && (v.Get("packages").Exists() || v.Get("remotes").Exists() || v.Get("server").IsObject()):
		return FormatRegistry
	}
	return FormatLines
}

func readConfig(path, name string, yield func(Entry) error) error {
	servers, err := launch.ListConfig(path, os.LookupEnv)
	if err != nil {
		return err
	}
	for _, s := range servers {
		e := Entry{ID: name + "#" + s.Name, Source: name, Target: s.Target,
			Filter: budget.ToolFilter{Include: s.IncludeTools, Exclude: s.ExcludeTools}, Config: name, Server: s.Name}
		if s.Err != nil {
			e.Cause, e.Err = CauseEntry, s.Err.Error()
			if strings.Contains(e.Err, "not set in the environment") || strings.Contains(e.Err, "prompt for a value") {
				e.Cause = CauseMissingValue
			}
		}
		if err := yield(e); err != nil {
			return err
		}
	}
	return nil
}

func readLines(br *bufio.Reader, name string, yield func(Entry) error) error {
	n := 0
	for {
		line, err := br.ReadSlice('\n')
		long := errors.Is(err, bufio.ErrBufferFull)
		if long {
			// A line past the reader's buffer: read on to its end, kept up
			// to MaxLine.
			buf := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				if len(buf) <= MaxLine {
					buf = append(buf, line...)
				}
			}
			line = buf
		}
		if len(line) > 0 {
			n++
			for _, e := range lineEntries(name, n, line) {
				if yerr := yield(e); yerr != nil {
					return yerr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

// fleetEntry is a line of the fleet format.
type fleetEntry struct {
	ID      string            `json:"id"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Type    string            `json:"type"`
	Headers map[string]string `json:"headers"`
}

// lineEntries reads one line: a fleet entry, or a server.json (one entry
// per package and remote). Blank lines and comments (#) are no entry.
func lineEntries(file string, n int, line []byte) []Entry {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] == '#' {
		return nil
	}
	src := fmt.Sprintf("%s:%d", file, n)
	bad := func(format string, args ...any) []Entry {
		return []Entry{{ID: src, Source: src, Cause: CauseEntry, Err: fmt.Sprintf(format, args...)}}
	}
	if len(line) > MaxLine {
		return bad("line %d is over %d bytes", n, MaxLine)
	}
	if inputfile.Depth(line, inputfile.JSON) > inputfile.MaxDepth {
		return bad("line %d nests more than %d levels deep", n, inputfile.MaxDepth)
	}
	if !json.Valid(line) {
		var v any
		return bad("line %d is not JSON: %s", n, jsonerr.Explain(json.Unmarshal(line, &v)))
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return bad("line %d is not a JSON object", n)
	}
	if v.Get("packages").Exists() || v.Get("remotes").Exists() || v.Get("server").IsObject() {
		return registryEntries(src, v)
	}
	var fe fleetEntry
	if err := json.Unmarshal(line, &fe); err != nil {
		return bad("line %d: %s", n, jsonerr.Explain(err))
	}
	if fe.ID == "" {
		return bad("line %d has no \"id\"", n)
	}
	e := Entry{ID: fe.ID, Source: src}
	t := launch.Target{Name: fe.ID, Command: fe.Command, Args: fe.Args, Dir: fe.Cwd, URL: fe.URL}
	switch {
	case fe.Command != "" && fe.URL != "":
		e.Cause, e.Err = CauseEntry, "the entry has both a command and a url"
	case fe.Command != "":
		t.Kind = "stdio"
	case fe.URL != "":
		t.Kind = "http"
		if fe.Type == "sse" {
			t.Kind = "sse"
		}
		t.Secrets = urlSecrets(fe.URL)
	default:
		e.Cause, e.Err = CauseEntry, "the entry has neither a command nor a url"
	}
	if fe.Command != "" && len(fe.Headers) > 0 {
		e.Cause, e.Err = CauseEntry, "headers apply to a url; a command gets env"
	}
	for _, k := range sortedKeys(fe.Env) {
		t.Env = append(t.Env, k+"="+fe.Env[k])
		t.Secrets = append(t.Secrets, launch.EnvSecrets(k, fe.Env[k])...)
	}
	for _, k := range sortedKeys(fe.Headers) {
		t.Headers = append(t.Headers, k+": "+fe.Headers[k])
		t.Secrets = append(t.Secrets, launch.HeaderSecrets(k, fe.Headers[k])...)
	}
	t.Secrets = append(t.Secrets, launch.ArgSecrets(t.Args)...)
	e.Target = t
	return []Entry{e}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// urlSecrets are the credentials in a URL (query values, a password), as
// launch reads them for a URL typed on the command line.
func urlSecrets(u string) []string {
	t, err := launch.FromArgs([]string{u})
	if err != nil {
		return nil
	}
	return t.Secrets
}
