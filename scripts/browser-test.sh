#!/usr/bin/env bash
# The web front-end in a real browser (issue 23): installs Debian's chromium when it is
# missing and playwright-core from the npm registry (pinned by
# crates/flipzero-web/browser/package-lock.json), starts `flipzero serve` on a free port with
# the checkpoints of a tiny 6x6 run as its models, and runs
# crates/flipzero-web/browser/page.test.mjs against it: a 6x6 game played to its end by
# clicks, an illegal click refused with the server's reason, undo, a rotation turn with its
# orientation, a komi game through its bids, the first eight decisions of every preset, a
# saved game loaded back and replayed, the engine's and the network's analysis, an MCTS
# agent with the checkpoint; then the page of
# `flipzero export --format web` (onnxruntime-web installed by `npm ci` from its lock file)
# against test-vectors.json and in a game. It takes the README's screenshots into
# target/browser-screenshots, so a test run leaves the checkout clean; to refresh the
# committed ones:
#
#   SCREENSHOTS=docs/images scripts/browser-test.sh
#
#   scripts/browser-test.sh [path/to/flipzero]    (default: cargo build, target/debug/flipzero)
#
# Where chromium or playwright-core cannot be installed it prints SKIPPED and exits 0; a page
# that does not do what it should exits 1.
set -euo pipefail

skip() {
    echo "SKIPPED: browser test: $*"
    exit 0
}
fail() {
    echo "FAILED: browser test: $*"
    exit 1
}
say() { echo "browser test: $*"; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TESTS="$ROOT/crates/flipzero-web/browser"
if [ $# -ge 1 ]; then
    BIN=$(realpath "$1") || fail "no program at $1"
else
    (cd "$ROOT" && cargo build --quiet --locked --bin flipzero) || fail "cargo build"
    BIN="$ROOT/target/debug/flipzero"
fi

CHROMIUM=${CHROMIUM:-$(command -v chromium || true)}
if [ -z "$CHROMIUM" ]; then
    [ "$(id -u)" = 0 ] || skip "chromium is not installed, and installing it needs root"
    say "installing chromium from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq chromium; } >/tmp/flipzero-chromium-apt.log 2>&1 \
        || skip "chromium could not be installed (see /tmp/flipzero-chromium-apt.log)"
    CHROMIUM=$(command -v chromium) || skip "chromium installed no chromium program"
fi
command -v npm >/dev/null || skip "npm is not installed"
if [ ! -d "$TESTS/node_modules/playwright-core" ]; then
    say "installing playwright-core from the npm registry"
    (cd "$TESTS" && npm ci --silent --no-audit --no-fund) >/tmp/flipzero-npm.log 2>&1 \
        || skip "playwright-core could not be installed (see /tmp/flipzero-npm.log)"
fi

WORK=$(mktemp -d /tmp/flipzero-browser.XXXXXX)
# Screenshots go to target/ (ignored by git) unless SCREENSHOTS names a folder (a relative
# one is taken from the repository root).
SHOTS="${SCREENSHOTS:-target/browser-screenshots}"
case "$SHOTS" in /*) ;; *) SHOTS="$ROOT/$SHOTS" ;; esac
SERVER_PID=
cleanup() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
# A small trained network (two iterations of the run tests' tiny 6x6 config), served to the
# page as a model and exported as the static page.
"$BIN" loop --config "$ROOT/crates/flipzero-run/tests/tiny.toml" --run-dir "$WORK/run" \
    --iterations 2 >"$WORK/loop.log" 2>&1 || fail "the tiny run: $(tail -n 5 "$WORK/loop.log")"
MODEL=$(cd "$WORK/run" && ls checkpoints/*.ckpt | sort | tail -n 1)
"$BIN" export --checkpoint "$WORK/run/$MODEL" --format web --out "$WORK/export" >/dev/null \
    || fail "flipzero export --format web"
say "installing onnxruntime-web into the exported page (npm ci)"
(cd "$WORK/export" && npm ci --silent --no-audit --no-fund) >/tmp/flipzero-npm-export.log 2>&1 \
    || skip "onnxruntime-web could not be installed (see /tmp/flipzero-npm-export.log)"
"$BIN" serve --port 0 --models "$WORK/run" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
    grep -q "serving flipzero on" "$WORK/server.log" && break
    kill -0 "$SERVER_PID" 2>/dev/null || fail "the server stopped: $(cat "$WORK/server.log")"
    sleep 0.1
done
URL=$(grep -o "http://[^ ]*" "$WORK/server.log" | head -n 1)
[ -n "$URL" ] || fail "the server did not say where it listens: $(cat "$WORK/server.log")"
say "server at $URL"
CHROMIUM="$CHROMIUM" SCREENSHOTS="$SHOTS" MODEL="$MODEL" EXPORT_DIR="$WORK/export" \
    node "$TESTS/page.test.mjs" "$URL" \
    || fail "the page did not pass (server log: $WORK/server.log)"
kill -0 "$SERVER_PID" 2>/dev/null || fail "the server died during the test"
say "passed (screenshots in $SHOTS)"
