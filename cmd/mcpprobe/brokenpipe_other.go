//go:build !unix

package main

// ownPipeBroken: elsewhere a closed stdout is no signal, only a failed
// write.
func ownPipeBroken() bool { return false }
