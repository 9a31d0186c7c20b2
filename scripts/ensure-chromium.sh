#!/usr/bin/env bash
# Install Debian's headless Chromium for the browser tests if it is missing.
set -eu
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "chromium not found and cannot install it (need root + apt-get); browser tests will fail" >&2
  exit 1
fi
