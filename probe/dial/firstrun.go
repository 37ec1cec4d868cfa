package dial

// What a first run of a server often trips on: a launcher that downloads
// the server before starting it, and a stderr whose last lines are the
// bottom of a stack trace rather than the error.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpprobe/mcpprobe/probe/launch"
)

// errorLine matches a stderr line that states an error, as runtimes and
// tools print one.
var errorLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:` +
		`[\w.$]*(?:Error|Exception)(?:\s*\[[^\]]*\])?:` + // Error:, TypeError [ERR_X]:, ModuleNotFoundError:, java.lang.IllegalStateException:
		`|Exception in thread|panic:|fatal(?: error)?:|FATAL\b|error(?:\[\w+\])?:|ERROR\b|npm (?:ERR!|error)` +
		`)|Cannot find module|ENOENT|EACCES|EADDRINUSE|[Nn]o such file or directory|[Pp]ermission denied|command not found` +
		`|level=(?:ERROR|error|FATAL|fatal)\b|"level":\s*"(?:error|fatal)"`)
})

// stderrExcerpt is what of a failed server's last stderr lines to show,
// at most n: the first line that states an error leads, so that a stack
// trace's frames do not hide it, then the tail, as far as room allows. A
// Python traceback's error is its last line, not its first. With no such
// line, the last n lines.
func stderrExcerpt(lines []string, n int) []string {
	if len(lines) <= 1 || n < 3 {
		return tail(lines, n)
	}
	// Blank lines say nothing; with an error to lead, they are left out.
	var kept []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, l)
		}
	}
	at := -1
	for i, l := range kept {
		if strings.HasPrefix(l, "Traceback (most recent call last)") {
			// Its frames are indented; the error is the line after them.
			for j := i + 1; j < len(kept); j++ {
				if l := kept[j]; l[0] != ' ' && l[0] != '\t' {
					at = j
					break
				}
			}
			break
		}
		if errorLine().MatchString(l) {
			at = i
			break
		}
	}
	if at < 0 {
		return tail(lines, n)
	}
	out := []string{kept[at]}
	rest := make([]string, 0, len(kept)-1)
	rest = append(append(rest, kept[:at]...), kept[at+1:]...)
	if at < len(kept)-n {
		// The error is above the tail: the tail follows it, the lines
		// between are left out, and said to be.
		keep := tail(kept[at+1:], n-2)
		out = append(out, fmt.Sprintf("… (%d lines)", len(kept)-at-1-len(keep)))
		return append(out, keep...)
	}
	return append(out, tail(rest, n-1)...)
}

// downloadHint is what to say of a server that did not answer its
// handshake in time when its command is a launcher that may first
// download it (npx, uvx, pnpm dlx, bunx) or pull its image (docker run):
// the likely cause on a first run, and how to warm it; "" for another
// command.
func downloadHint(command string, args []string) string {
	prog := strings.TrimSuffix(filepath.Base(command), ".cmd")
	pkgArgs := args
	switch {
	case prog == "npx" || prog == "uvx" || prog == "bunx" || prog == "pnpx":
	case (prog == "pnpm" || prog == "yarn") && len(args) > 0 && args[0] == "dlx",
		prog == "bun" && len(args) > 0 && args[0] == "x":
		prog, pkgArgs = prog+" "+args[0], args[1:]
	case (prog == "docker" || prog == "podman") && len(args) > 0 && args[0] == "run":
		img := "IMAGE"
		if i := imageOf(args[1:]); i != "" {
			img = launch.ShellQuote(i)
		}
		return fmt.Sprintf("%s run pulls the image first when it is not on this machine, which can take longer than --startup-timeout: "+
			"run `%s pull %s` once, or raise --startup-timeout (such as --startup-timeout 5m)", prog, prog, img)
	default:
		return ""
	}
	// The launcher's flags and the package, up to the first word that is
	// neither a flag nor a flag's value: the rest is the server's.
	warm := prog
	for i := 0; i < len(pkgArgs); i++ {
		a := pkgArgs[i]
		warm += " " + launch.ShellQuote(a)
		if !strings.HasPrefix(a, "-") {
			break
		}
		if (a == "-p" || a == "--package" || a == "--from" || a == "--with") && i+1 < len(pkgArgs) {
			i++
			warm += " " + launch.ShellQuote(pkgArgs[i])
		}
	}
	return fmt.Sprintf("a first run of %s downloads the server before it starts, which can take longer than --startup-timeout: "+
		"run `%s --help` once to fill the cache (Ctrl-C if it starts the server), or raise --startup-timeout (such as --startup-timeout 2m)", prog, warm)
}

// dockerValueFlags are docker run's flags that take a value as the next
// word, the ones an MCP server's config uses.
var dockerValueFlags = map[string]bool{
	"-e": true, "--env": true, "--env-file": true, "-v": true, "--volume": true, "--mount": true,
	"-p": true, "--publish": true, "--name": true, "--network": true, "--net": true, "-w": true,
	"--workdir": true, "-u": true, "--user": true, "--entrypoint": true, "-l": true, "--label": true,
	"--platform": true, "-h": true, "--hostname": true, "--pull": true, "--memory": true, "-m": true, "--cpus": true,
}

// imageOf is the image a docker run command line names: its first word
// that is neither a flag nor a flag's value.
func imageOf(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return a
		}
		if !strings.Contains(a, "=") && dockerValueFlags[a] {
			i++
		}
	}
	return ""
}
