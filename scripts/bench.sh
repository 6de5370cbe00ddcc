#!/usr/bin/env bash
# The one bench command (make bench): loopback only, bounded (about 15 minutes on 2 cores),
# never fails on speed. It runs every scenario of docs/performance.md, each figure beside a
# baseline measured in the same run (Foxglove's WebSocket protocol server in a process of its
# own, raw pass-through, /healthz, the local gateway), prints the tables and writes
# docs/performance.md: the machine, each scenario's baseline, load and figures, the targets as
# met or MISSED, and the raw output. It exits non-zero only when a scenario could not run.
#
#   BENCH_OUT       the report (default docs/performance.md)
#   BENCH_LOG_DIR   where the raw output goes (default: a temporary directory)
#   FANOUT_ROUNDS   alternating rounds of the fan-out (default 3), FANOUT_DURATION (8s)
#   SLOW_DURATION   the slow viewer's run per server (default 60s)
#   IDLE_CONNS      idle socket counts (default 1000,5000)
#   BENCH_REPORT_ONLY=1 with BENCH_LOG_DIR: write the report again from a run's raw output
set -uo pipefail
cd "$(dirname "$0")/.."

out=${BENCH_OUT:-docs/performance.md}
log_dir=${BENCH_LOG_DIR:-$(mktemp -d)}
mkdir -p "$log_dir"
status=0
step() { printf '\n== %s\n' "$*"; }
# run NAME CMD...: runs a scenario with a time limit, its output to the terminal and to
# $log_dir/NAME.log.
run() {
	local name=$1 limit=$2
	shift 2
	echo "+ $*"
	if ! timeout "$limit" "$@" 2>&1 | tee "$log_dir/$name.log"; then
		echo "$name: FAILED to run (log: $log_dir/$name.log)"
		echo "$name could not run (see its raw output)" >>"$log_dir/failures"
		status=1
	fi
}

# Idle sockets: 5,000 of them on each side of loopback.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" -ge 12000 ] || echo "warning: ulimit -n is $(ulimit -n); 5,000 idle sockets need about 11,000"

if [ -z "${BENCH_REPORT_ONLY:-}" ]; then
step "build"
mkdir -p bin
go build -o bin/bench-gateway ./bench/gateway || exit 1
go build -o bin/loadclient ./bench/loadclient || exit 1
(cd bench && npm ci --no-audit --no-fund --loglevel=error) || exit 1

step "machine"
started=$(date -u +%Y-%m-%dT%H:%MZ)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "| | |"
	echo "|---|---|"
	echo "| date | $started |"
	echo "| CPU | $(getconf _NPROCESSORS_ONLN) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') |"
	echo "| memory | $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo) |"
	echo "| kernel | $(uname -r) |"
	echo "| Go | $(go env GOVERSION) |"
	echo "| Node | $(node --version) |"
	echo "| baseline | @foxglove/ws-protocol $(node -p 'require("./bench/node_modules/@foxglove/ws-protocol/package.json").version') on ws $(node -p 'require("./bench/node_modules/ws/package.json").version') |"
	echo "| load average at start (1, 5, 15 min) | $load_start |"
} | tee "$log_dir/machine.md"

step "1. relay vs raw pass-through, allocations per frame per client"
run relay 300 go test -run '^$' -bench 'BenchmarkRelayThroughput' -benchtime 1s -count 3 ./server/api

step "2. fan-out 10/50/200 viewers, fleetgate vs Foxglove's server"
run fanout 400 ./bin/loadclient fanout -viewers 10,50,200 -rounds "${FANOUT_ROUNDS:-3}" \
	-duration "${FANOUT_DURATION:-8s}" -warmup 2s

step "2b. the same fan-out on fleetgate's Foxglove route (docs/foxglove.md) vs Foxglove's server"
run fanout-foxglove 400 ./bin/loadclient fanout -route foxglove -viewers 10,50,200 -rounds "${FANOUT_ROUNDS:-3}" \
	-duration "${FANOUT_DURATION:-8s}" -warmup 2s

step "3. slow viewer at 3 MB/s beside 10 healthy ones"
run slow 300 ./bin/loadclient slow -duration "${SLOW_DURATION:-60s}" -warmup 2s

step "4. memory per idle socket"
run idle 300 ./bin/loadclient idle -conns "${IDLE_CONNS:-1000,5000}"

step "5. JSON output of a 2 MiB point cloud to 1 and 10 viewers"
run json 120 ./bin/loadclient json -rounds 2 -duration 8s -warmup 2s

step "6. teleop input to publish (commands 60 ms apart, and at 60 Hz)"
FLEETGATE_BENCH_DURATION=10s run teleop 120 go test -run '^$' -bench 'BenchmarkLiveTeleop' -benchtime 1x ./server/api

step "7. KPI fan-out, tick to last receive"
run kpi 180 go test -run '^$' -bench 'BenchmarkKPIFanout' -benchtime 10x ./server/api

step "8. REST reads vs /healthz under 32 keep-alive clients"
run rest 60 ./bin/loadclient rest -rounds 2 -duration 4s

step "9. cloud path: a stream through the agent link vs the local gateway"
FLEETGATE_BENCH_DURATION=8s run cloud 180 go test -run '^$' -bench 'BenchmarkCloudLive' -benchtime 1x ./cmd/fleetgate

cut -d' ' -f1-3 /proc/loadavg >"$log_dir/load-end"
fi
load_end=$(cat "$log_dir/load-end" 2>/dev/null)
step "summary"
# Go benchmark lines: name, iterations, then value-unit pairs; a figure measured several
# times (-count) is summarised by its median.
go_summary() {
	awk '
	/^Benchmark/ {
		name = $1
		sub(/-[0-9]+$/, "", name)
		for (i = 3; i < NF; i += 2) {
			k = name SUBSEP $(i + 1)
			n[k]++
			v[k, n[k]] = $i + 0
		}
	}
	function has(name, unit) { return (name SUBSEP unit) in n }
	function val(name, unit,   k, c, i, j, t, a) {
		k = name SUBSEP unit
		c = n[k]
		for (i = 1; i <= c; i++) a[i] = v[k, i]
		for (i = 2; i <= c; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
	}
	function runs(name, unit,   k, i, s) {
		k = name SUBSEP unit
		for (i = 1; i <= n[k]; i++) s = s (i > 1 ? ", " : "") sprintf("%.2f", v[k, i])
		return s
	}
	function row(label, name, unit, op, target, base,   x, ok) {
		if (!has(name, unit)) { printf "| %s | not run | %s %s | MISSED |\n", label, (op == ">=" ? "≥" : "≤"), target; missed++; return }
		x = val(name, unit)
		ok = (op == ">=") ? (x >= target) : (x <= target)
		printf "| %s | %.3f%s | %s %s | %s |\n", label, x, base, (op == ">=" ? "≥" : "≤"), target, ok ? "met" : "MISSED"
		if (!ok) missed++
	}
	function info(label, name, unit, base) {
		if (has(name, unit)) printf "| %s | %.3f%s | | info |\n", label, val(name, unit), base
	}
	END {
		r = "BenchmarkRelayThroughput/frame="
		print "| measurement | measured (median) | target | result |"
		print "|---|---|---|---|"
		for (f = 1; f <= 2; f++) {
			size = (f == 1) ? "150KiB" : "2MiB"
			for (c = 1; c <= 4; c *= 4) {
				nm = r size "/clients=" c
				if (has(nm, "x-of-raw"))
					row("relay " size ", " c " client(s): throughput / raw pass-through", nm, "x-of-raw", ">=", 0.8,
						sprintf(" (runs %s; %.0f vs %.0f MB/s)", runs(nm, "x-of-raw"), val(nm, "MB/s"), val(nm, "raw-MB/s")))
				row("relay " size ", " c " client(s): allocations per frame per client", nm, "relay-allocs/frame/client", "<=", 0, "")
			}
		}
		t = "BenchmarkLiveTeleop/format="
		row("teleop input to publish p99 ms, protobuf", t "protobuf", "p99-ms", "<=", 2, "")
		row("teleop input to publish p99 ms, JSON", t "json", "p99-ms", "<=", 2, "")
		info("teleop at 60 Hz input: publishes/s (the policy caps non-zero commands at 20/s)", "BenchmarkLiveTeleop60Hz", "publishes/s", "")
		info("teleop at 60 Hz input: send to publish p99 ms (a coalesced command waits for its 50 ms window)", "BenchmarkLiveTeleop60Hz", "p99-ms", "")
		k = "BenchmarkKPIFanout/subs="
		row("KPI tick to last receive p99 ms, 1,000 subscribers", k "1000", "last-p99-ms", "<=", 100, "")
		row("KPI tick to last receive p99 ms, 5,000 subscribers", k "5000", "last-p99-ms", "<=", 250, "")
		c = "BenchmarkCloudLive"
		info("cloud path camera p99 ms", c, "cloud-p99-ms", sprintf(" (local gateway %.2f ms: %.2f ms added)", val(c, "local-p99-ms"), val(c, "added-p99-ms")))
		printf "\ngo benchmarks: %d target(s) missed\n", missed + 0
	}' "$@"
}
go_summary "$log_dir/relay.log" "$log_dir/teleop.log" "$log_dir/kpi.log" "$log_dir/cloud.log" | tee "$log_dir/go-summary.md"
# Every scenario ends with rows "| measurement | measured | target | result |", the result
# met, MISSED or info.
targets() {
	grep -hE '\| (met|MISSED|info) \|$' "$log_dir/go-summary.md" "$log_dir"/{fanout,fanout-foxglove,slow,idle,json,rest}.log 2>/dev/null | grep -v '^| measurement'
}
missed=$(targets | grep -c '| MISSED |' || true)

section() { # title file
	echo "## $1"
	echo
	if [ -s "$2" ]; then grep -vE '^\+ |^(fan-out|slow viewer|idle sockets|json): [0-9]+ target' "$2" | sed 's/^### /#### /'; else echo "(not run)"; fi
	echo
}
raw() { # title file
	echo "<details><summary>$1</summary>"
	echo
	echo '```'
	cat "$2" 2>/dev/null
	echo '```'
	echo
	echo "</details>"
	echo
}
{
	echo "# Performance: make bench"
	echo
	echo "Written by \`scripts/bench.sh\` (\`make bench\`) from the run below; the findings and how to"
	echo "read the figures are in \`bench/performance-notes.md\`, copied here first. Every figure is"
	echo "set against a baseline measured in the same run, alternating, because this 2-core machine"
	echo "is shared: the load average says how busy it was."
	echo
	cat bench/performance-notes.md
	echo
	echo "## Machine"
	echo
	cat "$log_dir/machine.md"
	echo "| load average at the end | $load_end |"
	echo
	echo "## Targets"
	echo
	echo "$missed target(s) MISSED in this run."
	echo
	echo "| measurement | measured | target | result |"
	echo "|---|---|---|---|"
	targets
	echo
	if [ -s "$log_dir/failures" ]; then echo "Could not run:"; echo; sed 's/^/- /' "$log_dir/failures"; echo; fi
	section "1, 6, 7, 9. Go benchmarks: relay vs raw pass-through, teleop, KPI fan-out, cloud path" "$log_dir/go-summary.md"
	section "2. Fan-out: fleetgate vs Foxglove's server" "$log_dir/fanout.log"
	section "2b. Fan-out on the Foxglove route: fleetgate vs Foxglove's server" "$log_dir/fanout-foxglove.log"
	section "3. Slow viewer" "$log_dir/slow.log"
	section "4. Memory per idle socket" "$log_dir/idle.log"
	section "5. JSON output" "$log_dir/json.log"
	section "8. REST" "$log_dir/rest.log"
	echo "## Raw output"
	echo
	for s in relay fanout fanout-foxglove slow idle json teleop kpi rest cloud; do raw "$s" "$log_dir/$s.log"; done
} >"$out"
echo
echo "$missed target(s) missed; report: $out (raw output: $log_dir)"
exit "$status"
