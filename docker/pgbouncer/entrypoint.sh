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
; with PostgreSQL down PgBouncer holds its clients waiting for a server connection: they get an error
; (and goat answers 503 service_unavailable) after this many seconds instead of 120
query_wait_timeout = ${PGBOUNCER_QUERY_WAIT_TIMEOUT:-10}
server_connect_timeout = 5
; and once PostgreSQL is back, PgBouncer logs in again within 2 s (not 15)
server_login_retry = 2
INI
exec pgbouncer "$conf/pgbouncer.ini"
