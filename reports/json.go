package reports

import (
	"github.com/mcpprobe/mcpprobe/probe"
	"github.com/mcpprobe/mcpprobe/reports/jsonout"
	"github.com/mcpprobe/mcpprobe/transport"
)

// WireSection is the wire section of --json (its fields are in the
// README): everything the capture holds but what the envelope already
// says (target, protocol version, findings). Items and objects the server
// sent are embedded byte for byte; everything else is ours.
func WireSection(c *probe.Capture) []byte {
	o := &jsonout.Object{}
	o.Set("transport", c.Transport)
	o.Set("era", jsonout.NullIfEmpty(c.Era))
	o.Set("requested_version", jsonout.NullIfEmpty(c.RequestedVersion))
	o.Set("discover", c.Discover)
	o.Raw("server_info", c.ServerInfo)
	o.Raw("capabilities", c.Capabilities)
	o.Set("instructions", c.Instructions)
	o.Items("tools", c.Tools.Items)
	o.Items("prompts", c.Prompts.Items)
	o.Items("resources", c.Resources.Items)
	o.Items("resource_templates", c.Templates.Items)
	lists := make([][]byte, 0, 4)
	for _, l := range []probe.List{c.Tools, c.Prompts, c.Resources, c.Templates} {
		lo := &jsonout.Object{}
		lo.Set("method", l.Method).Set("asked", l.Asked)
		if l.Skipped != "" {
			lo.Set("skipped", l.Skipped)
		}
		bytesOnWire := 0
		for _, p := range l.Pages {
			bytesOnWire += len(p.Raw)
		}
		lo.Set("pages", len(l.Pages)).Set("items", len(l.Items)).Set("bytes", bytesOnWire)
		lo.Set("error", jsonout.NullIfEmpty(l.Error))
		lists = append(lists, lo.Bytes())
	}
	o.Raw("lists", jsonout.RawArray(lists))
	if c.Skills != nil {
		o.Raw("skills", SkillsSection(c))
	}
	noise := []string{}
	stderr := []string{}
	for _, f := range c.Trace.Frames() {
		switch f.Dir {
		case transport.DirNoise:
			noise = append(noise, string(f.Raw))
		case transport.DirStderr:
			stderr = append(stderr, string(f.Raw))
		}
	}
	o.Set("stdout_noise", noise)
	o.Set("stderr", stderr)
	events := make([][]byte, 0, len(c.Events))
	for _, e := range c.Events {
		eo := &jsonout.Object{}
		eo.Set("kind", e.Kind).Set("method", jsonout.NullIfEmpty(e.Method)).Set("frame", e.Seq).Set("t_ns", int64(e.T))
		if e.Note != "" {
			eo.Set("note", e.Note)
		}
		events = append(events, eo.Bytes())
	}
	o.Raw("events", jsonout.RawArray(events))
	t := &jsonout.Object{}
	t.Set("first_byte_ns", jsonout.NsOrNull(int64(c.Timings.FirstByte), c.Timings.FirstByte > 0))
	t.Set("ready_ns", jsonout.NsOrNull(int64(c.Timings.Ready), c.Timings.ReadyBy != ""))
	t.Set("ready_by", jsonout.NullIfEmpty(c.Timings.ReadyBy))
	t.Set("initialize_ns", jsonout.NsOrNull(int64(c.Timings.Handshake), c.Handshake != nil))
	t.Set("last_page_ns", jsonout.NsOrNull(int64(c.Timings.LastPage), c.Timings.LastPage > 0))
	t.Set("exit_ns", jsonout.NsOrNull(int64(c.Timings.ExitAfter), c.Timings.ExitKnown))
	o.Raw("timings", t.Bytes())
	if c.HTTP != nil {
		ho := &jsonout.Object{}
		ho.Set("url", c.HTTP.URL).Set("mode", c.HTTP.Mode).Set("session_id", jsonout.NullIfEmpty(c.HTTP.SessionID))
		ho.Set("delete_status", jsonout.NsOrNull(int64(c.HTTP.DeleteStatus), c.HTTP.DeleteStatus != 0))
		o.Raw("http", ho.Bytes())
	} else {
		o.Raw("http", nil)
	}
	return o.Bytes()
}
