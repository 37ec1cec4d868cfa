package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpprobe/mcpprobe/probe/launch"
	"github.com/mcpprobe/mcpprobe/reports/terminal"
	"github.com/mcpprobe/mcpprobe/transport"
	"github.com/urfave/cli/v3"
)

func (rs *runState) serversCommand() *cli.Command {
	return &cli.Command{
		Name:  "servers",
		Usage: "list the MCP servers in the host config files for this folder and user, or in --config FILE",
		UsageText: "mcpprobe servers                 (Claude Code, Claude Desktop, Cursor, VS Code, Codex and Gemini CLI files found here)\n" +
			"   mcpprobe servers --config FILE\n" +
			"   mcpprobe --config FILE",
		Before: rs.before,
		Flags:  serversFlags(),
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageErr("servers takes no arguments; to probe a server it lists: mcpprobe wire --config FILE NAME")
			}
			return rs.listServers(cmd)
		},
	}
}

// listServers prints the servers of --config FILE, or of every host
// config file found for the current folder and user, with where each
// came from. Secrets (env values, headers, credentials in URLs) are never
// shown.
func (rs *runState) listServers(cmd *cli.Command) error {
	var files []launch.HostConfig
	if f := cmd.String("config"); f != "" {
		if _, err := os.Stat(f); err != nil {
			return usageErr("--config %s: %v", f, unwrapPath(err))
		}
		files = []launch.HostConfig{{Path: f}}
	} else {
		dir, _ := os.Getwd()
		home, _ := os.UserHomeDir()
		ucd, _ := os.UserConfigDir()
		for _, hc := range launch.HostConfigs(dir, home, ucd, rs.lookupEnv) {
			if st, err := os.Stat(hc.Path); err == nil && !st.IsDir() {
				files = append(files, hc)
			}
		}
	}
	var b bytes.Buffer
	w := rs.screenFor(cmd, &b)
	if len(files) == 0 {
		fmt.Fprintln(w, "No host config file found for this folder or user. mcpprobe looks for .mcp.json and ~/.claude.json")
		fmt.Fprintln(w, "(Claude Code), Claude Desktop's claude_desktop_config.json, .cursor/mcp.json and ~/.cursor/mcp.json")
		fmt.Fprintln(w, "(Cursor), .vscode/mcp.json (VS Code), .codex/config.toml and $CODEX_HOME/config.toml or ~/.codex/config.toml (Codex), and")
		fmt.Fprintln(w, ".gemini/settings.json and ~/.gemini/settings.json (Gemini CLI).")
		return rs.flush(cmd, w, &b)
	}
	// One table per file, under where it came from: a path in a column
	// of its own took a line or three a row on a narrow screen.
	type section struct {
		from string
		rows [][]string
	}
	var sections []section
	servers := 0
	for _, hc := range files {
		list, err := launch.ListConfig(hc.Path, rs.lookupEnv)
		if err != nil {
			if cmd.IsSet("config") {
				return configErr(hc.Path, err)
			}
			msg := strings.TrimPrefix(err.Error(), hc.Path+": ")
			sections = append(sections, section{from(hc), [][]string{{"—", "—", "cannot be read: " + terminal.Cell(oneLine(msg))}}})
			continue
		}
		sec := section{from: from(hc)}
		for _, s := range list {
			sec.rows = append(sec.rows, []string{terminal.Cell(s.Name), serverKind(s), terminal.Cell(what(s, hc.Path))})
			servers++
		}
		if len(list) == 0 {
			sec.rows = append(sec.rows, []string{"—", "—", "no servers"})
		}
		sections = append(sections, sec)
	}
	// The answer first: how many servers, in how many files.
	fmt.Fprintf(w, "%s in %s\n", plural(servers, "server"), plural(len(files), "host config file"))
	for i, sec := range sections {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "from %s\n", terminal.Escape(sec.from))
		terminal.Table(w, terminal.Terminal, []string{"server", "kind", "command or URL"}, sec.rows)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Probe one: mcpprobe wire --config FILE NAME; all of a file: mcpprobe budget --config FILE --all. Values of env and headers are not shown.")
	return rs.flush(cmd, w, &b)
}

func serverKind(s launch.ConfigServer) string {
	if s.Err != nil {
		return "—"
	}
	return s.Target.Kind
}

// what is the command line or URL, secrets hidden, or why the entry
// cannot be probed.
func what(s launch.ConfigServer, path string) string {
	if s.Err != nil {
		msg := strings.TrimPrefix(s.Err.Error(), fmt.Sprintf("%s: server %q: ", path, s.Name))
		msg = strings.TrimPrefix(msg, path+": ")
		return "cannot be probed: " + oneLine(msg)
	}
	t := s.Target
	d := transport.NewRedactor(t.Secrets).String(t.Display())
	if t.Kind != "stdio" && len(t.Headers) > 0 {
		d += fmt.Sprintf(" (%d header(s))", len(t.Headers))
	}
	if t.Kind == "stdio" && t.Dir != "" {
		d += " (in " + tidyPath(t.Dir) + ")"
	}
	if s.Disabled {
		d += " (disabled in the file)"
	}
	// The host shows only some tools: say which, since budget --all pays
	// for those alone.
	if len(s.IncludeTools) > 0 {
		d += " (only tools " + strings.Join(s.IncludeTools, ", ") + ")"
	}
	if len(s.ExcludeTools) > 0 {
		d += " (not tools " + strings.Join(s.ExcludeTools, ", ") + ")"
	}
	return d
}

func from(hc launch.HostConfig) string {
	p := tidyPath(hc.Path)
	if hc.Host == "" {
		return p
	}
	return fmt.Sprintf("%s, %s: %s", hc.Host, hc.Scope, p)
}

// tidyPath shortens a path for a person: relative to the current folder
// when under it, ~/… when under the home folder.
func tidyPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if wd, err := os.Getwd(); err == nil && wd != "/" {
		if r, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		if r, err := filepath.Rel(home, abs); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.Join("~", r)
		}
	}
	return abs
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
