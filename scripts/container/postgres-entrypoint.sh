#!/bin/sh
# Makes a cluster on the first start (POSTGRES_USER with POSTGRES_PASSWORD, database POSTGRES_DB), then runs
# PostgreSQL in the foreground, listening on POSTGRES_LISTEN (all addresses by default) and PGPORT.
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
export PATH="$bin:$PATH"
user="${POSTGRES_USER:-postgres}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres-entrypoint: POSTGRES_PASSWORD is required" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --auth-local=trust --auth-host=scram-sha-256
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  # Created over the Unix socket by a server that listens on no address yet, so no client sees a half-made cluster.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "${POSTGRES_DB:-$user}" != postgres ]; then createdb -U "$user" "${POSTGRES_DB:-$user}"; fi
  pg_ctl -D "$PGDATA" -m fast -w stop
fi
exec postgres -D "$PGDATA" -c "listen_addresses=${POSTGRES_LISTEN:-*}"
