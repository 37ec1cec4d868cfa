//go:build e2e

package terminal

// thorough is set by the e2e tag (make test): the exhaustive tests then
// check every case, as they always did. Without the tag they check a
// sample that keeps `go test ./...` under a minute (thorough_test.go).
const thorough = true
