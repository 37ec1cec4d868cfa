#!/usr/bin/env bash
# Tests the GoReleaser config offline: validates .goreleaser.yaml, builds a
# snapshot release (no tag needed, nothing published, no Docker or Homebrew
# push) into dist/, and verifies every archive against its SHA256SUMS.
#   scripts/release-snapshot.sh            all six platforms
#   scripts/release-snapshot.sh --single   this machine's platform only
# GoReleaser is built from the Go module proxy into a temporary GOBIN (the
# first run compiles it: minutes); GORELEASER=/path/to/goreleaser skips that.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.17.0 # the newest that builds with Go 1.26
gr=${GORELEASER:-}
if [ -z "$gr" ]; then
	bin=$(mktemp -d)
	trap 'rm -rf "$bin"' EXIT
	GOBIN=$bin go install "github.com/goreleaser/goreleaser/v2@$version"
	gr=$bin/goreleaser
fi
"$gr" check
config=.goreleaser.yaml
if [ "${1:-}" = "--single" ]; then
	# One platform: the same config with its goos and goarch lists narrowed.
	config=$(mktemp --suffix=.yaml)
	sed -e "s/^    goos: .*/    goos: [$(go env GOOS)]/" -e "s/^    goarch: .*/    goarch: [$(go env GOARCH)]/" .goreleaser.yaml >"$config"
fi
"$gr" release --config "$config" --snapshot --clean --skip=docker,homebrew,publish,sign,sbom,validate
# Every archive is listed, nothing else is, and each one verifies.
(
	cd dist
	shopt -s nullglob
	archives=(*.tar.gz *.zip)
	[ ${#archives[@]} -gt 0 ] || { echo "release-snapshot: no archives in dist/" >&2; exit 1; }
	listed=$(awk '{print $2}' SHA256SUMS | sort)
	made=$(printf '%s\n' "${archives[@]}" | sort)
	[ "$listed" = "$made" ] || { printf 'release-snapshot: SHA256SUMS lists\n%s\nbut dist/ holds\n%s\n' "$listed" "$made" >&2; exit 1; }
	sha256sum --quiet -c SHA256SUMS
	echo "release-snapshot: ${#archives[@]} archive(s), SHA256SUMS verified"
)
