package probe

import "github.com/mcpprobe/mcpprobe/probe/mcpspec"

// streamableURL is where a revision puts Streamable HTTP's "Sending
// Messages" section: one transports page until 2025-11-25, a page of its
// own in 2026-07-28. 2024-11-05 has no Streamable HTTP: its HTTP+SSE
// transport says nothing of status codes, so the earliest text that does
// (2025-03-26) is cited.
func streamableURL(v string) string {
	if v >= "2026-07-28" {
		return mcpspec.URL(v, "basic/transports/streamable-http#sending-messages")
	}
	return mcpspec.URL(v, "basic/transports#sending-messages-to-the-server")
}

func streamableVersion(version string) string {
	v := SpecVersion(version)
	if v < "2025-03-26" {
		return "2025-03-26"
	}
	return v
}

// NotificationAccepted is the MUST a notification POST's answer is held
// to: 202 Accepted with no body when the server accepts it, an HTTP error
// status when it does not.
func NotificationAccepted(version string) mcpspec.Clause {
	v := streamableVersion(version)
	text := "If the input is a JSON-RPC response or notification: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)."
	switch {
	case v >= "2026-07-28":
		text = "If the body is a JSON-RPC notification: If the server accepts it, the server MUST return HTTP status code 202 Accepted with no body. If the server cannot accept it, it MUST return an HTTP error status code (e.g., 400 Bad Request)."
	case v == "2025-03-26":
		text = "If the input consists solely of (any number of) JSON-RPC responses or notifications: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request)."
	}
	return mcpspec.Clause{Version: v, URL: streamableURL(v), Keyword: "MUST", Binds: "server", Text: text}
}

// PostBody is what a POST's body must be: a sentence that binds the
// client, so it says nothing of how a server answers a body that is not.
func PostBody(version string) mcpspec.Clause {
	v := streamableVersion(version)
	text := "The body of the POST request MUST be a single JSON-RPC request, notification, or response."
	switch {
	case v >= "2026-07-28":
		text = "The body of the HTTP POST MUST be a single JSON-RPC request or notification."
	case v == "2025-03-26":
		text = "The body of the POST request MUST be one of the following: a single JSON-RPC request, notification, or response; an array batching one or more requests and/or notifications; an array batching one or more responses."
	}
	return mcpspec.Clause{Version: v, URL: streamableURL(v), Keyword: "MUST", Binds: "client", Text: text}
}
