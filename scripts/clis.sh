#!/bin/sh
# Installs the coding-agent CLIs used as students (docs/agent-clis.md) from
# npm at pinned versions into a git-ignored folder, with npm's cache inside
# it too, so nothing lands in the user's home or a global prefix.
#
#   sh scripts/clis.sh [DIR]        default DIR: build-clis
#
# Each CLI gets its own prefix (DIR/<cli>/), so one failing install leaves
# the others usable; binaries end up in DIR/<cli>/bin/. The time and size
# of each install are printed. Idempotent: a CLI already installed at the
# pinned version is left alone. Tests that need a CLI skip when its binary
# is absent; nothing in `make check` depends on this script.
set -eu

DIR=${1:-build-clis}

# name  npm package@version  binary
PINS="claude-code @anthropic-ai/claude-code@2.1.197 claude
codex @openai/codex@0.171.0 codex
opencode opencode-ai@1.18.33 opencode
gemini @google/gemini-cli@0.61.0 gemini"

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "clis: node and npm are needed (scripts/deps.sh installs them)" >&2
    exit 1
fi

mkdir -p "$DIR/npm-cache"
DIR=$(cd "$DIR" && pwd)
echo "$PINS" | while read -r name spec bin; do
    prefix="$DIR/$name"
    stamp="$prefix/.installed"
    if [ -x "$prefix/bin/$bin" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$spec" ]; then
        echo "clis: $name: $spec already installed"
        continue
    fi
    start=$(date +%s)
    if ! npm install --global --prefix "$prefix" --cache "$DIR/npm-cache" \
        --no-audit --no-fund --loglevel=error "$spec"; then
        echo "clis: $name: npm install of '$spec' failed" >&2
        exit 1
    fi
    echo "$spec" > "$stamp"
    end=$(date +%s)
    size=$(du -sh "$prefix" | cut -f1)
    echo "clis: $name: $spec installed in $((end - start)) s, $size"
done
echo "clis: binaries in $DIR/*/bin"
