//go:build !e2e

package tokens

// thorough is off without the e2e tag: see thorough_e2e_test.go.
const thorough = false
