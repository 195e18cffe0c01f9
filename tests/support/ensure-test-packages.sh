#!/usr/bin/env bash
# What the tests need from Debian, installed when missing (a no-op when present). Runs as `pretest`.
# - chromium-headless-shell: Debian's Chromium without its desktop parts; browser tests drive it
#   through playwright-core (never a downloaded browser build);
# - postgresql: the proxy's integration suite runs a second time on a real PostgreSQL server,
#   which the test set-up starts itself in a temporary folder (tests/support/postgres.ts).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != "0" ] && ! command -v sudo >/dev/null; then
  echo "The tests need Debian's ${missing[*]}: apt-get install ${missing[*]}" >&2
  exit 1
fi
SUDO=$([ "$(id -u)" = "0" ] && echo "" || echo "sudo")
echo "installing Debian's ${missing[*]} for the tests…"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
