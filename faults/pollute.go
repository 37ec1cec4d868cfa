package faults

// Pollution written on stdout: a log line a server prints by mistake, or
// the same without its newline, which glues it to the next message.
const (
	pollutionLine    = "[debug] cache warmed in 12ms"
	pollutionPartial = "Loading configuration..."
)
