//go:build race

package loadfactor

// raceFactor: the race detector slows instrumented code 2-20× (its
// documentation), and the calibration's hashing, in assembly, not at all.
const raceFactor = 5
