#!/usr/bin/env bash
# A PgBouncer in transaction pooling mode in front of a PostgreSQL server, for
# CI's pass of the PostgreSQL suites through a pooler (.ci/run) and for
# trying the gateway behind one by hand:
#
#   scripts/pgbouncer.sh start DIR PORT [UPSTREAM_HOST [UPSTREAM_PORT]]
#       writes DIR/pgbouncer.ini, starts PgBouncer on 127.0.0.1:PORT (every
#       database name of the upstream, user postgres, no password: the
#       upstream's trust auth), waits until it answers, prints its URL
#   scripts/pgbouncer.sh stop DIR
#
# Debian's pgbouncer is installed when missing (as root, or through sudo).
# PgBouncer refuses to run as root; as root it runs as the postgres user.
#
# Transaction mode hands a server connection to a client for one transaction
# (or one statement outside a transaction) only: nothing the gateway does may
# rely on session state between them (see docs/operations.md "Connection
# poolers").
set -euo pipefail

command="${1:?usage: scripts/pgbouncer.sh start DIR PORT [HOST [PORT]] | stop DIR}"
dir="${2:?usage: scripts/pgbouncer.sh start DIR PORT [HOST [PORT]] | stop DIR}"

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

case "$command" in
  stop)
    if [ -f "$dir/pgbouncer.pid" ]; then
      kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true
      for _ in $(seq 1 50); do [ -f "$dir/pgbouncer.pid" ] || break; sleep 0.1; done
    fi
    exit 0
    ;;
  start) ;;
  *) echo "pgbouncer.sh: unknown command '$command'" >&2; exit 2 ;;
esac

port="${3:?usage: scripts/pgbouncer.sh start DIR PORT [HOST [PORT]]}"
upstream_host="${4:-127.0.0.1}"
upstream_port="${5:-5432}"

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; }
# Something else on the port would answer the wait below in its place.
if answers; then
  echo "pgbouncer.sh: 127.0.0.1:$port is in use; choose another port" >&2
  exit 1
fi

if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  echo "PgBouncer is not installed; installing Debian's pgbouncer" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y pgbouncer >&2 ||
    { as_root apt-get update >&2 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y pgbouncer >&2; }
fi
bin="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
cat > "$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$upstream_host port=$upstream_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
; The suites run many gateways at once, each with a pool of its own.
max_client_conn = 2000
default_pool_size = 20
; At most this many server connections in all (the server's max_connections is 100 by default).
max_user_connections = 80
; node-postgres sends none of these, other clients (psql, the soak) may.
ignore_startup_parameters = extra_float_digits,options
server_reset_query =
; After a failed login to the server (PostgreSQL restarting), try again after 1 s rather than 15 s.
server_login_retry = 1
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
echo '"postgres" ""' > "$dir/userlist.txt"

if [ "$(id -u)" -eq 0 ]; then
  chown -R postgres "$dir"
  runuser -u postgres -- "$bin" -d "$dir/pgbouncer.ini"
else
  "$bin" -d "$dir/pgbouncer.ini"
fi

for _ in $(seq 1 50); do
  if answers; then
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    exit 0
  fi
  sleep 0.1
done
echo "pgbouncer.sh: PgBouncer did not start; its log:" >&2
cat "$dir/pgbouncer.log" >&2 || true
exit 1
