#!/bin/sh
# PgBouncer's configuration from the environment (docker-compose.yml sets it), then PgBouncer itself.
# Transaction pooling: each transaction of a client runs on one server connection, the next one maybe
# on another; goat's settings for that are DATABASE_POOLER=pgbouncer (docs/operations.md "PgBouncer").
set -eu
conf=/tmp/pgbouncer
mkdir -p "$conf"
umask 077
printf '"%s" "%s"\n' "$PGBOUNCER_USER" "$PGBOUNCER_PASSWORD" > "$conf/userlist.txt"
cat > "$conf/pgbouncer.ini" <<INI
[databases]
goat = host=${PGBOUNCER_PRIMARY_HOST} port=5432 dbname=goat
goat_standby = host=${PGBOUNCER_STANDBY_HOST} port=5432 dbname=goat

[pgbouncer]
listen_addr = 0.0.0.0
listen_port = 6432
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $conf/userlist.txt
pool_mode = transaction
default_pool_size = ${PGBOUNCER_POOL_SIZE:-20}
max_client_conn = ${PGBOUNCER_MAX_CLIENT_CONN:-1000}
; psycopg sends these at connect; transaction pooling cannot keep them per client
ignore_startup_parameters = extra_float_digits,options
INI
exec pgbouncer "$conf/pgbouncer.ini"
