#!/usr/bin/env bash
# Install what tests/gohost needs (a real hashicorp/go-plugin host built from
# Debian's Go packages, offline), if missing; then build the host once so
# the Go build cache is warm for pytest. Idempotent; prints what it did.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(
    golang-go                             # go 1.19
    golang-github-hashicorp-go-plugin-dev # go-plugin 1.0.1 (+ hclog, yamux, oklog/run)
    golang-google-grpc-dev                # grpc-go 1.33 (+ golang/protobuf, genproto, x/net)
    golang-google-protobuf-dev            # protowire
)
missing=()
for package in "${packages[@]}"; do
    if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        echo "install-go-host: $package already installed ($(dpkg-query -W -f='${Version}' "$package"))"
    else
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || { echo "install-go-host: apt-get not found, cannot install ${missing[*]}" >&2; exit 1; }
    echo "install-go-host: installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
echo "install-go-host: $(go version)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
started=$(date +%s)
bash tests/gohost/build.sh "$out/host"
echo "install-go-host: built tests/gohost/host in $(( $(date +%s) - started )) s (Go build cache warm)"
