#!/usr/bin/env bash
# Build the go-plugin test host offline from Debian's Go packages (GOPATH mode:
# no module proxy is reachable; /usr/share/gocode holds go-plugin 1.0.1, grpc
# 1.33 and their dependencies). Usage: tests/gohost/build.sh OUTPUT_BINARY
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTPUT_BINARY" >&2; exit 2; }
out="$(realpath -m "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
gopath="$(mktemp -d)"
trap 'rm -rf "$gopath"' EXIT
# go needs a build cache; without HOME it has no default one.
if [ -z "${GOCACHE:-}" ] && [ -z "${HOME:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then
    export GOCACHE="${TMPDIR:-/tmp}/gohost-go-build"
fi
cd "$here"
GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= GOPROXY=off \
    go build -o "$out" ./host
