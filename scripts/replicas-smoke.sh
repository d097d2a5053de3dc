#!/usr/bin/env bash
# Replicas smoke run (manual, not in CI; ~1 minute): starts a real PostgreSQL
# (the machine's /usr/lib/postgresql/*/bin, as the postgres user when run as
# root, in a temp dir on a loopback port) and two recipe-server processes on
# it, then proves with the SDK client that writes propagate between replicas,
# that concurrent updates lose nothing, that a PostgreSQL restart and a
# replica kill -9 lose no acknowledged write. See scripts/replicas-smoke.ts
# for the checks; everything it starts is removed on exit.
#
#   scripts/replicas-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exec npx tsx scripts/replicas-smoke.ts "$@"
