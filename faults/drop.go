package faults

// drop: the reply never reaches the client, which can only time out.
func dropNote() string { return "reply dropped" }
