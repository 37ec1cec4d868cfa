#!/usr/bin/env bash
# Puts mcpprobe on the job's PATH. With no VERSION it builds the action's
# own checkout (GITHUB_ACTION_PATH is this folder; the module is its
# parent), which is exactly the code of the ref the workflow names in
# `uses:`, and needs nothing but Go. With VERSION (a release tag, v1.2.0)
# it downloads that release's archive and checks it against the release's
# SHA256SUMS. It never runs `go install …@version`: that needs the module
# on the module proxy.
#   RELEASES_URL overrides where the archives are (default: GitHub releases).
set -euo pipefail
: "${GITHUB_ACTION_PATH:?run by the action: GITHUB_ACTION_PATH names its folder}"
: "${GITHUB_PATH:?run by the action: GITHUB_PATH names the file of PATH additions}"
bindir=${RUNNER_TEMP:-$(mktemp -d)}/mcpprobe-bin
mkdir -p "$bindir"
exe=mcpprobe
case "$(uname -s)" in MINGW* | MSYS* | CYGWIN* | Windows_NT) exe=mcpprobe.exe ;; esac

if [ -z "${VERSION:-}" ]; then
	src=$(cd "$GITHUB_ACTION_PATH/.." && pwd)
	echo "mcpprobe: building from the action's checkout ($src)"
	(cd "$src" && go build -trimpath -o "$bindir/$exe" ./cmd/mcpprobe)
else
	case "$(uname -s)" in
	Linux) os=linux ;; Darwin) os=darwin ;; *) os=windows ;;
	esac
	case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;;
	*) echo "mcpprobe: no release archive for $(uname -m)" >&2; exit 1 ;;
	esac
	name=mcpprobe_${VERSION#v}_${os}_${arch}
	ext=tar.gz; [ "$os" = windows ] && ext=zip
	base=${RELEASES_URL:-https://github.com/mcpprobe/mcpprobe/releases/download}/$VERSION
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	echo "mcpprobe: downloading $base/$name.$ext"
	curl -fsSL --max-time 120 -o "$work/$name.$ext" "$base/$name.$ext"
	curl -fsSL --max-time 30 -o "$work/SHA256SUMS" "$base/SHA256SUMS"
	want=$(awk -v f="$name.$ext" '$2 == f { print $1 }' "$work/SHA256SUMS")
	got=$(cd "$work" && { sha256sum "$name.$ext" 2>/dev/null || shasum -a 256 "$name.$ext"; } | awk '{ print $1 }')
	if [ -z "$want" ] || [ "$want" != "$got" ]; then
		echo "mcpprobe: $name.$ext does not match the release's SHA256SUMS (want ${want:-no entry}, got $got)" >&2
		exit 1
	fi
	if [ "$ext" = zip ]; then
		(cd "$work" && unzip -q "$name.$ext")
	else
		tar -C "$work" -xzf "$work/$name.$ext"
	fi
	cp "$work/$name/$exe" "$bindir/$exe"
	chmod +x "$bindir/$exe"
fi
echo "$bindir" >>"$GITHUB_PATH"
"$bindir/$exe" --version
