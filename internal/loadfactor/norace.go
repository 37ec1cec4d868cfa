//go:build !race

package loadfactor

// raceFactor is 1 without the race detector (race.go).
const raceFactor = 1
