#!/usr/bin/env bash
# Installs GRhino 0.16 (Debian's `grhino`: the GTP Othello engine `/usr/games/gtp-rhino`,
# levels 1 to 5), the external yardstick of the 8x8 engine and agents. Prints SKIPPED and
# exits 0 where it cannot be installed (no apt, no rights, no network): the tests that need
# it then say SKIPPED too.
set -uo pipefail
if [ -x /usr/games/gtp-rhino ]; then
    echo "grhino: installed"
    exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo > /dev/null; then sudo="sudo -n"; else
        echo "SKIPPED: grhino: not root and no sudo"; exit 0
    fi
fi
if ! command -v apt-get > /dev/null; then
    echo "SKIPPED: grhino: no apt-get on this machine"
    exit 0
fi
if $sudo apt-get install -y -q grhino > /tmp/install-grhino.log 2>&1 \
    || { $sudo apt-get update -q > /dev/null 2>&1 && $sudo apt-get install -y -q grhino > /tmp/install-grhino.log 2>&1; }; then
    echo "grhino: installed"
else
    echo "SKIPPED: grhino could not be installed (see /tmp/install-grhino.log)"
fi
