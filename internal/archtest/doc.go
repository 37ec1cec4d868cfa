// Package archtest holds no code: its tests pin the arrows of the import
// graph that the design depends on (which package may import which), so a
// change that re-adds a forbidden import fails `go test` instead of a review.
package archtest
