#!/bin/sh
# Run once by the postgres image when it creates its database (/docker-entrypoint-initdb.d): the
# `standby` service may stream the WAL as POSTGRES_USER (a superuser, so it has REPLICATION).
# A volume made before this script existed needs the same line added to its pg_hba.conf by hand.
set -eu
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "$PGDATA/pg_hba.conf"
