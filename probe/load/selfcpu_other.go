//go:build !unix

package load

// selfCPU is not read where there is no getrusage.
func selfCPU() int64 { return -1 }
