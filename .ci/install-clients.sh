#!/usr/bin/env bash
# Install the real agent clients (Claude Code, Gemini CLI, Codex CLI) that
# tests/clients drives offline against a loopback stub model, at the versions pinned
# in tests/clients/versions.json (the one place both this script and the tests read),
# into .clients/ (git-ignored). Idempotent: a client already there at its pinned
# version is left alone. Without node/npm or the npm registry it says so and exits 0:
# the client tests then skip, naming what is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
say() { printf 'install-clients: %s\n' "$*"; }
prefix=.clients
pins=tests/clients/versions.json

command -v node >/dev/null 2>&1 || { say "node not found: client tests will skip"; exit 0; }
command -v npm >/dev/null 2>&1 || { say "npm not found: client tests will skip"; exit 0; }

# "name package version" lines, read from the pins file by node (present by now).
mapfile -t entries < <(node -e '
const pins = require(process.argv[1]);
for (const [name, pin] of Object.entries(pins)) console.log(name, pin.package, pin.version);
' "$PWD/$pins") || { say "cannot read $pins"; exit 1; }

installed_version() { # package -> version installed under $prefix, or nothing
    node -e 'try { console.log(require(process.argv[1]).version) } catch (e) {}' \
        "$PWD/$prefix/node_modules/$1/package.json"
}

wanted=()
for entry in "${entries[@]}"; do
    read -r name package version <<<"$entry"
    if [ "$(installed_version "$package")" = "$version" ]; then
        say "$name: $package@$version already installed"
    else
        wanted+=("$package@$version")
    fi
done
[ ${#wanted[@]} -eq 0 ] && exit 0

if ! npm view "${wanted[0]}" version >/dev/null 2>&1; then
    say "npm registry not reachable (or ${wanted[0]} not published): client tests will skip"
    exit 0
fi
mkdir -p "$prefix"
[ -f "$prefix/package.json" ] || echo '{"private": true}' >"$prefix/package.json"
say "installing ${wanted[*]} into $prefix/ (node $(node --version), npm $(npm --version))"
# Claude Code declares node >= 22 but its native binary runs under any node: no engine-strict.
if ! npm install --prefix "$prefix" --no-audit --no-fund --save-exact --loglevel=error \
    --engine-strict=false "${wanted[@]}"; then
    say "npm install failed: client tests will skip the clients it did not install"
    exit 0
fi
for entry in "${entries[@]}"; do
    read -r name package version <<<"$entry"
    say "$name: $package@$(installed_version "$package") in $prefix/node_modules/.bin/"
done
