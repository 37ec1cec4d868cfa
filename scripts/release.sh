#!/usr/bin/env bash
# Builds the release archives of TAG (default: the tag at HEAD) into dist/:
# one per platform, plus SHA256SUMS. Reproducible: -trimpath, no build id,
# and every timestamp (archive entries included) is the commit's.
#   scripts/release.sh v1.2.0
#   PLATFORMS="linux/amd64" scripts/release.sh v0.0.0-test
set -euo pipefail
cd "$(dirname "$0")/.."
TAG=${1:-$(git describe --tags --exact-match)}
PLATFORMS=${PLATFORMS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export CGO_ENABLED=0
stamp=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M.%S 2>/dev/null || date -u -r "$SOURCE_DATE_EPOCH" +%Y%m%d%H%M.%S)
rm -rf dist && mkdir -p dist
for p in $PLATFORMS; do
	os=${p%/*} arch=${p#*/}
	name=mcpprobe_${TAG#v}_${os}_${arch}
	dir=dist/$name
	mkdir -p "$dir"
	exe=mcpprobe; [ "$os" = windows ] && exe=mcpprobe.exe
	GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w -X main.version=$TAG -buildid=" -o "$dir/$exe" ./cmd/mcpprobe
	cp README.md "$dir/"
	cp -R docs "$dir/docs"  # the reference, the command pages and the findings the README links
	find "$dir" -exec touch -t "$stamp" {} +
	if [ "$os" = windows ]; then
		(cd dist && find "$name" -print | LC_ALL=C sort | zip -q -X -D "$name.zip" -@)
	else
		tar -C dist --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
			-cf - "$name" | gzip -n >"dist/$name.tar.gz"
	fi
	rm -rf "$dir"
done
# The archives only, named one by one: with one platform there is no .zip,
# and a glob that matched nothing must not fall back to "*", which would
# list SHA256SUMS itself (as the empty file it was while being written).
(
	cd dist
	shopt -s nullglob
	archives=(*.tar.gz *.zip)
	sha256sum -- "${archives[@]}" >SHA256SUMS.tmp
	mv SHA256SUMS.tmp SHA256SUMS
	sha256sum --quiet -c SHA256SUMS
)
cat dist/SHA256SUMS
