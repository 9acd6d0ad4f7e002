#!/usr/bin/env bash
# The first step of `npm test`: what the tests use from outside npm, brought when missing, so
# that the README's two commands are the whole set-up on a fresh machine.
#
#   Debian's packages: chromium (the console and browser tests, driven by playwright-core, which
#   never downloads a browser), prometheus (promtool lints GET /v1/metrics), kcat (librdkafka
#   against the Kafka gateway), python3-confluent-kafka (Debian's Python client, librdkafka 2.0.2,
#   in test/e2e/gateway-compression.test.ts) — installed with apt-get when missing and this runs as root;
#   otherwise it stops at once and names the one command to run.
#   Toolchains the machine brings: java 17+ with mvn (the Java Kafka client, resolved from Maven
#   Central by the tests, pinned in test/java/pom.xml), python3 with venv (confluent-kafka in a
#   virtual environment under .cache/python, pinned in test/python/requirements.txt), go (the
#   franz-go suite, from the Go module proxy) — checked, and named when missing.
set -euo pipefail

missing_packages=()
command -v chromium >/dev/null || missing_packages+=(chromium)
command -v promtool >/dev/null || missing_packages+=(prometheus)
command -v kcat >/dev/null || missing_packages+=(kcat)
command -v mvn >/dev/null || missing_packages+=(maven)
command -v java >/dev/null || missing_packages+=(openjdk-17-jdk-headless)
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then missing_packages+=(python3-venv); fi
if ! /usr/bin/python3 -c 'import confluent_kafka' >/dev/null 2>&1; then missing_packages+=(python3-confluent-kafka); fi

if [ "${#missing_packages[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "test setup: installing ${missing_packages[*]} (Debian's packages)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing_packages[@]}" >/dev/null
  else
    echo "test setup: the tests need ${missing_packages[*]}; run:" >&2
    echo "  sudo apt-get install -y --no-install-recommends ${missing_packages[*]}" >&2
    exit 1
  fi
fi

java_major="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')"
if [ -z "$java_major" ] || [ "$java_major" -lt 17 ]; then
  echo "test setup: the Java Kafka client tests need Java 17 or newer (found ${java_major:-none}); run:" >&2
  echo "  sudo apt-get install -y --no-install-recommends openjdk-17-jdk-headless" >&2
  exit 1
fi
if ! command -v go >/dev/null; then
  echo "test setup: the franz-go suite needs Go 1.26 or newer (go.dev/dl; test/go/franz-go/go.mod), which Debian's golang-go is not; install it and put go on the PATH" >&2
  exit 1
fi
