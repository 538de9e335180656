#!/usr/bin/env bash
# Tag and build a release: scripts/release.sh 0.4.3
set -euo pipefail

version="${1:?usage: scripts/release.sh VERSION}"
cd "$(dirname "$0")/.."

if [[ -n "$(git status --porcelain)" ]]; then
    echo "working tree is dirty; commit or stash first" >&2
    exit 1
fi

sed -i "s/^version = \".*\"/version = \"${version}\"/" pyproject.toml
sed -i "s/^__version__ = \".*\"/__version__ = \"${version}\"/" src/tasklane/__init__.py
python -m pytest -q
python -m build --outdir build/
git commit -am "release ${version}"
git tag -a "v${version}" -m "tasklane ${version}"
echo "built build/tasklane-${version}; push with: git push --follow-tags"
