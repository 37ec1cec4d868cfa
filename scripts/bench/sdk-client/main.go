// Command sdk-client is the Go SDKs' side of the speed benchmarks: the
// official go-sdk's client or mark3labs/mcp-go's, doing what mcpprobe does
// on the same server in the same run (scripts/bench-wire.sh,
// scripts/bench-latency.sh).
//
// usage:
//
//	sdk-client -sdk go-sdk|mcp-go -list -- SERVER [ARGS...]
//	sdk-client -sdk go-sdk|mcp-go -calls N [-warmup W] [-tool NAME] [-args JSON] -- SERVER [ARGS...]
//
// -list connects, lists every tool (all pages) and exits: a process to
// time end to end. -calls times N closed-loop tools/call round trips
// after W untimed ones and prints {"p50_ns":…,"n":…} as JSON.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peer is what the benchmark asks of each SDK.
type peer struct {
	list  func(context.Context) (int, error)
	call  func(context.Context, string, map[string]any) error
	close func()
}

func main() {
	sdk := flag.String("sdk", "go-sdk", "go-sdk or mcp-go")
	list := flag.Bool("list", false, "list the tools and exit")
	calls := flag.Int("calls", 0, "closed-loop tools/call round trips to time")
	warmup := flag.Int("warmup", 100, "untimed calls first")
	tool := flag.String("tool", "echo", "tool to call")
	argsJSON := flag.String("args", `{"text":"a","n":3}`, "arguments, as JSON")
	flag.Parse()
	server := flag.Args()
	if len(server) < 1 || (!*list && *calls <= 0) {
		fmt.Fprintln(os.Stderr, "usage: sdk-client -sdk go-sdk|mcp-go (-list | -calls N) -- SERVER [ARGS...]")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var p peer
	var err error
	switch *sdk {
	case "go-sdk":
		p, err = goSDK(ctx, server)
	case "mcp-go":
		p, err = mcpGo(ctx, server)
	default:
		err = fmt.Errorf("unknown -sdk %q", *sdk)
	}
	if err != nil {
		fail(err)
	}
	defer p.close()
	if *list {
		if _, err := p.list(ctx); err != nil {
			fail(err)
		}
		return
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(*argsJSON), &args); err != nil {
		fail(err)
	}
	for range *warmup {
		if err := p.call(ctx, *tool, args); err != nil {
			fail(err)
		}
	}
	samples := make([]int64, *calls)
	for i := range samples {
		t0 := time.Now()
		if err := p.call(ctx, *tool, args); err != nil {
			fail(err)
		}
		samples[i] = int64(time.Since(t0))
	}
	slices.Sort(samples)
	fmt.Printf("{\"p50_ns\":%d,\"n\":%d}\n", samples[len(samples)/2], len(samples))
}

func goSDK(ctx context.Context, server []string) (peer, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-go-sdk", Version: "0"}, nil)
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(server[0], server[1:]...)}, nil)
	if err != nil {
		return peer{}, err
	}
	return peer{
		list: func(ctx context.Context) (int, error) {
			n := 0
			for _, err := range s.Tools(ctx, nil) {
				if err != nil {
					return n, err
				}
				n++
			}
			return n, nil
		},
		call: func(ctx context.Context, name string, args map[string]any) error {
			r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err == nil && r.IsError {
				err = fmt.Errorf("%s: an isError result", name)
			}
			return err
		},
		close: func() { _ = s.Close() },
	}, nil
}

func mcpGo(ctx context.Context, server []string) (peer, error) {
	c, err := mcpgoclient.NewStdioMCPClient(server[0], nil, server[1:]...)
	if err != nil {
		return peer{}, err
	}
	var init mcpgo.InitializeRequest
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench-mcp-go", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		_ = c.Close()
		return peer{}, err
	}
	return peer{
		list: func(ctx context.Context) (int, error) {
			r, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
			if err != nil {
				return 0, err
			}
			return len(r.Tools), nil
		},
		call: func(ctx context.Context, name string, args map[string]any) error {
			var req mcpgo.CallToolRequest
			req.Params.Name, req.Params.Arguments = name, args
			r, err := c.CallTool(ctx, req)
			if err == nil && r.IsError {
				err = fmt.Errorf("%s: an isError result", name)
			}
			return err
		},
		close: func() { _ = c.Close() },
	}, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sdk-client:", err)
	os.Exit(1)
}
