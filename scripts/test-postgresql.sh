#!/usr/bin/env bash
# A private PostgreSQL for the tests (Debian's server, which refuses to run as root: as the `postgres` user when the
# tests run as root). Listens on a Unix socket in a fresh directory only (no TCP port at all), prints
# "ready <socket directory>" once it accepts connections, and stops and removes everything when its standard input
# closes, which happens when the test process that started it exits, however it exits.
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed (make test installs Debian's postgresql)" >&2; exit 1; }
dir=$(mktemp -d /tmp/carillon-postgresql-XXXXXX)
as_server() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
[ "$(id -u)" = 0 ] && chown postgres: "$dir"
cleanup() {
    as_server "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT
as_server "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-k $dir -c listen_addresses= -c fsync=off -c synchronous_commit=off -c max_connections=300" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
echo "ready $dir"
# Until the test process goes away.
cat >/dev/null || true
