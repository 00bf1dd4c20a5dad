#!/usr/bin/env bash
# A PostgreSQL primary and N streaming standbys of it (pg_basebackup -R) on loopback, for ReplicaLoad:
#
#   standbys.sh start [N]    # N standbys (default 2); servers in $STANDBYS_DIR (default ./standbys)
#   standbys.sh env          # prints BENCH_REPLICAS=127.0.0.1:port,... (the primary first), for eval
#   standbys.sh stop         # stops every server still running and deletes the directory
#
# Ports from $STANDBYS_PORT (default 55440) upwards. The binaries of pg_config --bindir, or of $PG_BIN.
# Every host trusts loopback: the login is the superuser "postgres" with any password. Run as root, the
# servers run in a user namespace (unshare -U), where they are not uid 0, as PostgreSQL demands.
set -euo pipefail
DIR=$(realpath -m "${STANDBYS_DIR:-standbys}")
PORT=${STANDBYS_PORT:-55440}
BIN=${PG_BIN:-$(pg_config --bindir)}
AS=()
[ "$(id -u)" = 0 ] && AS=(unshare -U)

pg() { "${AS[@]}" "$BIN/$1" "${@:2}"; }
ports() { for d in "$DIR"/node*/; do cat "${d}port"; done; }

case ${1:-} in
start)
  n=${2:-2}
  [ -e "$DIR" ] && { echo "$DIR exists: run stop first" >&2; exit 1; }
  mkdir -p "$DIR/sockets" && chmod 777 "$DIR" "$DIR/sockets"
  pg initdb -D "$DIR/node0" -U postgres -A trust --no-sync -E UTF8 --locale=C >"$DIR/initdb.log"
  cat >>"$DIR/node0/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR/sockets'
max_connections = 300
fsync = off
full_page_writes = off
wal_level = replica
max_wal_senders = $((n + 3))
hot_standby = on
wal_receiver_status_interval = 1s
CONF
  printf 'local all all trust\nhost all all 127.0.0.1/32 trust\nlocal replication all trust\nhost replication all 127.0.0.1/32 trust\n' \
    >"$DIR/node0/pg_hba.conf"
  for i in $(seq 0 "$n"); do
    if [ "$i" -gt 0 ]; then
      pg pg_basebackup -h 127.0.0.1 -p "$PORT" -U postgres -D "$DIR/node$i" -R -X stream -c fast
    fi
    echo $((PORT + i)) >"$DIR/node$i/port"
    pg pg_ctl -D "$DIR/node$i" -l "$DIR/node$i.log" -w -o "-p $((PORT + i))" start >/dev/null
  done
  ;;
env)
  echo "BENCH_REPLICAS=$(ports | sed 's/^/127.0.0.1:/' | paste -sd,)"
  ;;
stop)
  for d in "$DIR"/node*/; do
    # a server stopped as by a crash leaves its postmaster.pid: status tells whether it still runs
    if pg pg_ctl -D "$d" status >/dev/null; then pg pg_ctl -D "$d" -m fast -w stop >/dev/null; fi
  done
  rm -rf "$DIR"
  ;;
*)
  sed -n 2,10p "$0"; exit 2
  ;;
esac
