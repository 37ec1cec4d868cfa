//go:build !e2e

package terminal

// thorough is off without the e2e tag: see thorough_e2e_test.go.
const thorough = false
