#!/usr/bin/env bash
# Browser tests drive Debian's Chromium through playwright-core (never a downloaded browser build).
# Installs it when missing; a no-op when it is there. Runs as `pretest`.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != "0" ] && ! command -v sudo >/dev/null; then
  echo "Debian's chromium is needed for the browser tests: apt-get install chromium" >&2
  exit 1
fi
SUDO=$([ "$(id -u)" = "0" ] && echo "" || echo "sudo")
echo "installing Debian's chromium for the browser tests…"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
