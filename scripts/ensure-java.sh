#!/usr/bin/env bash
# Java 17 for the Spark tests (pyspark runs a local JVM): Debian's headless JRE if missing.
set -eu
if command -v java >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's openjdk-17-jre-headless for the Spark tests..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
else
  echo "java not found and cannot install it (need root + apt-get); Spark tests will be skipped" >&2
fi
