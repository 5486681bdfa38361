#!/bin/sh
# build.sh cross-compiles claude-ide-bridge for both Mac architectures into
# the extension bundle. The output is reproducible: -trimpath, no build id,
# no VCS stamp and CGO off, so two builds of one tree are byte-identical.
#
#   editors/nova/build.sh            build into ClaudeIDEBridge.novaextension/bin/
#   editors/nova/build.sh --check    build twice and compare sha256 sums
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin="$here/ClaudeIDEBridge.novaextension/bin"

build() {
	out=$1
	mkdir -p "$out"
	for arch in arm64 amd64; do
		(cd "$root" && GOOS=darwin GOARCH=$arch CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
			go build -trimpath -ldflags "-s -w -buildid=" \
			-o "$out/claude-ide-bridge-darwin-$arch" ./cmd/claude-ide-bridge)
	done
}

sums() {
	(cd "$1" && sha256sum claude-ide-bridge-darwin-arm64 claude-ide-bridge-darwin-amd64)
}

build "$bin"
if [ "${1:-}" = "--check" ]; then
	again=$(mktemp -d)
	trap 'rm -rf "$again"' EXIT
	build "$again"
	if [ "$(sums "$bin")" != "$(sums "$again")" ]; then
		echo "build.sh: two builds differ" >&2
		sums "$bin" >&2
		sums "$again" >&2
		exit 1
	fi
	echo "reproducible:"
fi
sums "$bin"
du -sh "$here/ClaudeIDEBridge.novaextension" | cut -f1 | sed 's/^/bundle size: /'
