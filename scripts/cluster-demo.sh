#!/usr/bin/env bash
# The cloud as replicas, on this machine: PostgreSQL, nats-server (JetStream, a password), three
# `fleetgate serve` replicas, haproxy in front, and the demo's agent with three simulated
# robots linked through haproxy. Open the printed URL, log in with the printed token, and
# kill -9 any replica (its pid file is printed): its agent links to another within seconds,
# and the panel goes on. Ctrl-C stops everything and removes the temporary directory.
#
#   scripts/cluster-demo.sh            run until Ctrl-C (port 8080, or FLEETGATE_CLUSTER_PORT)
#   scripts/cluster-demo.sh --smoke    start, check every replica and a kill -9, stop (the
#                                      test command runs this)
#
# Needs Debian's postgresql, nats-server and haproxy packages (apt-get install -y postgresql
# nats-server haproxy) and Go; nothing is installed or left behind.
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=false
[ "${1:-}" = "--smoke" ] && smoke=true
for cmd in nats-server haproxy curl python3; do
	command -v "$cmd" >/dev/null || { echo "$cmd is required (apt-get install -y postgresql nats-server haproxy curl python3)"; exit 1; }
done
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || { echo "PostgreSQL's server binaries are required (apt-get install -y postgresql)"; exit 1; }

dir=$(mktemp -d /tmp/fleetgate-cluster.XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -d "$dir/pg/data" ] && as_pg "$pgbin/pg_ctl" stop -w -m fast -D "$dir/pg/data" >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# PostgreSQL refuses to run as root: as root, it runs as Debian's postgres user.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_http() { # URL, what, its log
	for _ in $(seq 1 200); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "$2 did not come up; the end of its log:"; tail -20 "$3"; exit 1
}
log() { printf '%s  %s\n' "$(date +%H:%M:%S)" "$*"; }

log "building fleetgate"
go build -o "$dir/fleetgate" ./cmd/fleetgate

log "starting PostgreSQL"
mkdir -p "$dir/pg"
[ "$(id -u)" -eq 0 ] && chown postgres "$dir/pg"
as_pg "$pgbin/initdb" -D "$dir/pg/data" -U fleetgate -A trust -E UTF8 >"$dir/pg/initdb.log"
pg_port=$(free_port)
as_pg "$pgbin/pg_ctl" start -w -D "$dir/pg/data" -l "$dir/pg/postgres.log" \
	-o "-p $pg_port -k $dir/pg -c listen_addresses=127.0.0.1" >/dev/null
as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$pg_port" -U fleetgate fleetgate
db="postgres://fleetgate@127.0.0.1:$pg_port/fleetgate?sslmode=disable"

log "starting nats-server with JetStream and a password"
nats_port=$(free_port)
# Any client on the bus is a full peer of the replicas (it reads every robot's streams and
# sends requests to robots): the bus lets in only the replicas' user, with a fresh password.
nats_password=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
(umask 077; cat >"$dir/nats.conf" <<EOF
listen: 127.0.0.1:$nats_port
# A camera frame must fit in one message.
max_payload: 8MB
jetstream { store_dir: "$dir/jetstream" }
authorization {
  users = [ { user: "fleetgate", password: "$nats_password" } ]
}
EOF
)
nats-server -c "$dir/nats.conf" >"$dir/nats.log" 2>&1 &
pids+=($!)

token="fgt_$(python3 -c 'import secrets,string; print("".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32)))')"
servers=""
for i in 1 2 3; do
	port=$(free_port)
	log "starting replica r$i on 127.0.0.1:$port"
	# The password goes in the environment, where ps does not show it. haproxy (below)
	# reaches the replicas from 127.0.0.1: they believe its X-Forwarded-For.
	FLEETGATE_NATS_PASSWORD="$nats_password" "$dir/fleetgate" serve --db "$db" \
		--nats "nats://127.0.0.1:$nats_port" --nats-user fleetgate --replica "r$i" \
		--data "$dir/r$i" --listen "127.0.0.1:$port" --admin-token "$token" --trusted-proxy 127.0.0.1 >"$dir/r$i.log" 2>&1 &
	pids+=($!)
	echo $! >"$dir/r$i.pid"
	echo "127.0.0.1:$port" >"$dir/r$i.addr"
	# The first replica creates the schema and the admin; the others start after it.
	wait_http "http://127.0.0.1:$port/healthz" "replica r$i" "$dir/r$i.log"
	servers+="  server r$i 127.0.0.1:$port check inter 300ms fall 2 rise 1 cookie r$i"$'\n'
done

front_port=${FLEETGATE_CLUSTER_PORT:-8080}
$smoke && front_port=$(free_port)
log "starting haproxy on 127.0.0.1:$front_port"
python3 -c '
import sys
t = open("scripts/cluster/haproxy.cfg").read()
open(sys.argv[1], "w").write(t.replace("@LISTEN@", sys.argv[2]).replace("@SERVERS@", sys.argv[3]))
' "$dir/haproxy.cfg" "127.0.0.1:$front_port" "$servers"
haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
pids+=($!)
front="http://127.0.0.1:$front_port"
wait_http "$front/healthz" "haproxy" "$dir/haproxy.log"

log "starting the demo agent (3 simulated robots) linked through haproxy"
key=$("$dir/fleetgate" agents add --db "$db" --name demo-agent | sed -n 's/^agent key (shown once): //p')
agent_port=$(free_port)
FLEETGATE_AGENT_KEY="$key" "$dir/fleetgate" agent --data "$dir/agent" --listen "127.0.0.1:$agent_port" \
	--admin-token "$token" --sim 3 --cloud "$front" >"$dir/agent.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$agent_port/healthz" "the agent" "$dir/agent.log"

bearer=$(curl -fsS -X POST -H 'Content-Type: application/json' -d "{\"userToken\":\"$token\"}" "$front/apigateway/v2/auth/login" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["token"].removeprefix("bearer "))')
online() { # replica address: how many robots it sees online
	curl -fsS -H "Authorization: bearer $bearer" "http://$1/apigateway/v2/robots" 2>/dev/null |
		python3 -c 'import json,sys; print(sum(r["isOnline"] for r in json.load(sys.stdin)["robotDataList"]))' 2>/dev/null || echo 0
}
all_online() { # replicas...: every one sees the 3 robots online
	for r in "$@"; do [ "$(online "$(cat "$dir/$r.addr")")" = 3 ] || return 1; done
}
for _ in $(seq 1 150); do all_online r1 r2 r3 && break; sleep 0.1; done
all_online r1 r2 r3 || { echo "the robots did not come online on every replica; logs in $dir"; exit 1; }
holder=$(grep -l 'msg="agent connected"' "$dir"/r?.log | head -1 | xargs basename | cut -d. -f1)
log "3 robots online on r1, r2 and r3; the agent is linked to $holder"

if $smoke; then
	# A client that speaks NATS by hand, without the password or with a wrong one, is refused.
	python3 - "$nats_port" <<'EOF'
import socket, sys
for who, connect in [("no credentials", '{}'), ("a wrong password", '{"user":"fleetgate","pass":"wrong"}')]:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
    f = s.makefile("rb")
    f.readline()  # the server's INFO
    s.sendall(b"CONNECT " + connect.encode() + b"\r\nPING\r\n")
    answer = f.readline().decode().strip()
    s.close()
    if "Authorization Violation" not in answer:
        sys.exit(f"smoke: the bus let in a client with {who}: {answer}")
    print(f"smoke: the bus refused a client with {who}: {answer}")
EOF
	log "smoke: kill -9 $holder"
	kill -9 "$(cat "$dir/$holder.pid")"
	start=$(date +%s%N)
	rest=$(printf 'r1\nr2\nr3\n' | grep -v "$holder" | tr '\n' ' ')
	for _ in $(seq 1 100); do all_online $rest && break; sleep 0.1; done
	all_online $rest || { echo "smoke: the robots are not back online on $rest within 10 s"; tail -20 "$dir/agent.log"; exit 1; }
	log "smoke: robots back online on $rest $(( ($(date +%s%N) - start) / 1000000 )) ms after the kill"
	[ "$(online "127.0.0.1:$front_port")" = 3 ] || { echo "smoke: not all robots online through haproxy"; exit 1; }
	log "smoke: passed"
	exit 0
fi

cat <<EOF

  fleetgate's cloud as three replicas, behind haproxy:

    panel        $front   (log in with the API token below)
    API token    $token
    replicas     r1 $(cat "$dir/r1.addr")   r2 $(cat "$dir/r2.addr")   r3 $(cat "$dir/r3.addr")
    NATS         nats://127.0.0.1:$nats_port   user fleetgate, its password in $dir/nats.conf
    agent        http://127.0.0.1:$agent_port (its local gateway), linked to $holder

  Try:  kill -9 \$(cat $dir/$holder.pid)     the agent moves to another replica within seconds
  Logs: $dir/*.log

  Ctrl-C stops everything.
EOF
wait
