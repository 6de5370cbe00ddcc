# Convenience targets; the scripts are the source of truth (CI runs scripts/test.sh).
.PHONY: test generate build agent-ros2 packages demo bench bench-netshape bench-uplink bench-uplink-cameras chaos fuzz bench-events bench-flight bench-cluster bench-cluster-w1 cluster-demo durability deadman soak kiosk-soak

test:
	./scripts/test.sh

generate:
	./scripts/generate.sh

build:
	go build -o bin/fleetgate ./cmd/fleetgate

# The agent with ROS 2 (fleetgate agent --ros2): cgo and Cyclone DDS, which the default build
# leaves out. Needs a C compiler, pkg-config and Debian's cyclonedds-dev (docs/ros2.md).
agent-ros2:
	CGO_ENABLED=1 go build -tags ros2 -o bin/fleetgate ./cmd/fleetgate

# Debian packages into dist/ (docs/operations.md): fleetgate for amd64 and arm64 (pure Go,
# cross-built) and fleetgate-ros2 for amd64 (cgo, needs cyclonedds-dev), built with nfpm
# (a Go tool pinned in go.mod); the version comes from git (packaging/version.sh).
packages:
	./packaging/build.sh

demo:
	go run ./cmd/fleetgate demo

# The one bench command (about 15 minutes, loopback only): fleetgate against Foxglove's
# WebSocket protocol server and other baselines, in the same run; writes docs/performance.md.
bench:
	./scripts/bench.sh

# The cloud as replicas: three serve processes, PostgreSQL, NATS and haproxy (docs/cluster.md).
cluster-demo:
	./scripts/cluster-demo.sh

# The flight recorder's cost per buffered robot (RSS, CPU; about 90 s): docs/recordings.md.
bench-flight:
	go test -run '^$$' -bench BenchmarkFlightBuffer -benchtime 1x -timeout 10m -v ./cmd/fleetgate

# The user-space shaped link (internal/netshape) with no impairment against a plain veth pair
# between the same namespaces: what shaped benchmarks owe to the helper itself.
bench-netshape:
	go test -run '^$$' -bench UnimpairedVersusVeth -benchtime 5x ./internal/netshape

# The agent behind a shaped uplink (internal/netshape, namespaces of its own: needs root), the
# profiles of issue 31, before (no lanes, CUBIC) and after (lanes, BBR) in one run: fps, picture
# age, the operator seeing the robot react, teleop opens, with the agent's 2 MB log growing; the
# lanes' rows (JPEG, H.264) each again with a recording made on the agent uploading through the
# window, and what the cloud's archive took in each window. About 20 minutes.
# FLEETGATE_BENCH_REPORT=FILE writes the table.
bench-uplink:
	go test -run '^$$' -bench '^BenchmarkUplink$$' -benchtime 1x -timeout 45m -v ./cmd/fleetgate

# More cameras on the shaped uplink (issue 31): one and four simulated cameras and the RTSP test
# camera (GStreamer, H.264 1 Mbit/s, 640x480, 30 fps), JPEG and H.264, on each profile, with the
# glass age of the simulated pictures (--sim-clock-strip); about 12 minutes.
# FLEETGATE_BENCH_PROFILES=unshaped,2Mbit picks profiles, FLEETGATE_BENCH_DURATION the window.
bench-uplink-cameras:
	go test -run '^$$' -bench BenchmarkUplinkCameras -benchtime 1x -timeout 40m -v ./cmd/fleetgate

# Every fuzz target for a minute each (the test command gives each 5 s); a failing input is
# kept under the package's testdata/fuzz to commit as a regression test.
fuzz:
	FUZZ_TIME=$${FUZZ_TIME:-60s} ./scripts/test-fuzz.sh

# Issue 32's faults (docs/reliability.md), long: the uplink flapping (down 2 s, up 3 s) for 5
# minutes under an operator, event posts and a growing log (the test command runs 20 s of it);
# the agent's disk full; the cloud restarted under 200 W3 viewers (the test command: 20) and a
# driver; the agent's clock 30 s off; and, with a duration of a minute or more, the cloud's rows
# at the issue's lengths (PostgreSQL killed for 30 s, NATS for 20 s, a replica partitioned for
# 60 s; the test command: 3, 3 and 12 s).
chaos:
	FLEETGATE_CHAOS_DURATION=$${FLEETGATE_CHAOS_DURATION:-5m} FLEETGATE_CHAOS_VIEWERS=$${FLEETGATE_CHAOS_VIEWERS:-200} go test -run 'TestChaos' -timeout 30m -v ./cmd/fleetgate

# The event log's export (GET /apigateway/v2/events?format=jsonl) of 100,000 and 1,000,000
# entries: entries per second and the server's peak heap of each (flat: streamed).
bench-events:
	FLEETGATE_BENCH_EVENTS=$${FLEETGATE_BENCH_EVENTS:-1000000} go test -run '^$$' -bench BenchmarkEventExport -benchtime 1x -timeout 30m -v ./server

# The replicas' benchmark: 10,000 agent links over three replicas (memory per link, CPU per
# 1,000 agents) and the cross-replica stream read against a same-replica one.
bench-cluster:
	CLUSTER_LINKS=$${CLUSTER_LINKS:-10000} go test -run '^$$' -bench BenchmarkClusterLinks -benchtime 1x -timeout 40m -v ./cmd/fleetgate

# 20,000 fleet KPI sockets (W1) over three replicas: tick to last receive p50 and p99 per
# replica and overall, memory per socket, CPU, missed frames (about a minute).
bench-cluster-w1:
	CLUSTER_W1=$${CLUSTER_W1:-20000} go test -run '^$$' -bench BenchmarkClusterW1 -benchtime 1x -timeout 40m -v ./cmd/fleetgate

# The reliability suite (docs/reliability.md): long runs against the real binary, not part
# of make test. FLEETGATE_CYCLES, FLEETGATE_TRIALS and FLEETGATE_SOAK_DURATION shorten them.
durability:
	go test -run '^$$' -bench BenchmarkDurability -benchtime 1x -timeout 60m -v ./cmd/fleetgate

# make deadman: fault to zero at a ROS robot's driver, on the local gateway (BenchmarkDeadman)
# and through the cloud: the agent link, another replica over NATS, and uploads on each
# (BenchmarkDeadmanThroughTheCloud).
deadman:
	go test -run '^$$' -bench BenchmarkDeadman -benchtime 1x -timeout 60m -v ./cmd/fleetgate

soak:
	go test -run '^$$' -bench BenchmarkSoak -benchtime 1x -timeout 60m -v ./cmd/fleetgate

# The kiosk wall's JS heap over 30 minutes in Chromium (docs/panel.md).
kiosk-soak:
	FLEETGATE_KIOSK_SOAK=30m npx --no-install vitest run --config jsclient/vitest.e2e.config.ts jsclient/e2e/operate.e2e.ts -t "memory flat"
