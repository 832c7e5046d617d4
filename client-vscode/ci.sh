#!/usr/bin/env bash
# Build, lint, test and package the VS Code client, from a fresh clone, offline apart from the
# npm registry: npm ci (from package-lock.json), compile, lint, test, package, then check the
# .vsix. Usage: bash client-vscode/ci.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")"

step() { printf '\n== %s\n' "$*"; }

step "node $(node --version), npm $(npm --version)"
step "npm ci"
npm ci --no-audit --no-fund
step "npm run compile"
npm run compile
step "npm run lint"
npm run lint
step "npm test"
npm test
step "npm run package"
version=$(node -p "require('./package.json').version")
vsix="codeteam-${version}.vsix"
rm -f "$vsix"
npm run package

step "check $vsix"
[ -f "$vsix" ] || { echo "ci: $vsix was not produced" >&2; exit 1; }
if command -v unzip >/dev/null 2>&1; then
  listing=$(unzip -Z1 "$vsix")
else
  listing=$(python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$vsix")
fi
fail=0
for required in extension/out/extension.js extension/package.json extension/LICENSE.txt \
                extension/readme.md extension/node_modules/vscode-languageclient/package.json; do
  if ! grep -qx "$required" <<<"$listing"; then
    echo "ci: $vsix lacks $required" >&2
    fail=1
  fi
done
# Nothing of the sources, tests or build tools.
for forbidden in '^extension/src/' '^extension/out/test/' '\.map$' '\.ts$' \
                 '^extension/node_modules/(typescript|eslint|@vscode/vsce|@types)/' \
                 '^extension/(ci\.sh|tsconfig\.json|eslint\.config\.mjs|package-lock\.json|\.npmrc)$'; do
  if grep -Eq "$forbidden" <<<"$listing"; then
    echo "ci: $vsix holds files matching $forbidden:" >&2
    grep -E "$forbidden" <<<"$listing" | head -5 >&2
    fail=1
  fi
done
[ $fail -eq 0 ] || exit 1
echo "ci: $vsix ok: $(wc -c <"$vsix") bytes, $(grep -c . <<<"$listing") entries; out/:"
grep '^extension/out/' <<<"$listing" | sed 's/^/  /'
