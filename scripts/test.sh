#!/usr/bin/env bash
# The one test command: README, make test and .ci/run all call this script. It installs
# what the tests need, checks formatting, vetting and generated code (the browser bundle
# included), runs every Go test with the race detector, the TypeScript type check and unit
# tests (vitest), and the browser end-to-end tests (playwright-core driving Debian's
# chromium against the real binary), and ends with the line "N passed, N failed, N skipped".
# A skipped test fails the run: nothing is skipped silently.
set -euo pipefail
cd "$(dirname "$0")/.."

log_dir=${TEST_LOG_DIR:-$(mktemp -d)}
# Each step says how long the one before it took (the whole run must stay under 20 minutes).
step_started=$SECONDS
step() {
	[ -z "${step_name:-}" ] || printf '(%s: %d s)\n' "$step_name" $((SECONDS - step_started))
	step_name=$*
	step_started=$SECONDS
	printf '\n== %s\n' "$*"
}

step "tools"
command -v go >/dev/null || { echo "Go is required: https://go.dev/dl/"; exit 1; }
go version
# System packages the tests need (Debian, installed with apt-get as root when missing).
need_packages() {
	local missing=()
	for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then echo "missing Debian packages: ${missing[*]} (run as root or install them)"; exit 1; fi
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
}
need_packages protobuf-compiler chromium
# Cameras: Debian's ffmpeg, GStreamer's RTSP server as the real peer (python3-gi), and
# unshare and ip for the WS-Discovery test's own network namespace.
need_packages ffmpeg python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base \
	gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly util-linux iproute2
# ROS 1 tests run a real rosmaster and rospy nodes; genmsg checks md5sums, PIL draws the demo
# robot's camera.
need_packages ros-core python3-rospy python3-sensor-msgs python3-geometry-msgs python3-nav-msgs \
	python3-tf2-msgs python3-genmsg python3-pil
# ROS 2 tests: the agent built with -tags ros2 (cgo, Cyclone DDS) against two peers built here,
# one on Cyclone DDS with idlc types (cyclonedds-tools), one on Fast DDS with fastddsgen types.
need_packages cyclonedds-dev cyclonedds-tools libfastrtps-dev fastddsgen gcc g++ pkg-config
# The PostgreSQL store's tests start their own server from Debian's binaries
# (/usr/lib/postgresql/*/bin, internal/store/postgres/pgtest); they fail without them.
need_packages postgresql
# The cloud's replicas are tested as a user runs them: three serve processes on a real
# PostgreSQL and Debian's nats-server (JetStream), behind Debian's haproxy (server/cluster_test.go).
need_packages nats-server haproxy
# The Debian packages (packaging/package_test.go): systemd-analyze verifies the units, and as
# root the test installs, upgrades and purges the package built with nfpm (a Go tool, compiled
# here once rather than within the test's time).
need_packages systemd
go tool nfpm --version >/dev/null
command -v npm >/dev/null || need_packages nodejs npm
protoc --version
node --version
chromium --version

step "npm ci"
npm ci --no-audit --no-fund --loglevel=error

step "go mod tidy"
go mod tidy -diff

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' | grep -v '_templ.go$' || true))
if [ -n "$unformatted" ]; then echo "not gofmt-ed:"; echo "$unformatted"; exit 1; fi

step "go vet"
go vet ./...
go vet -tags ros2 ./internal/source/ros2/... ./cmd/fleetgate

step "generated code is fresh"
./scripts/generate.sh
if ! git diff --exit-code --stat -- . ':!go.sum'; then
	echo "generated code is stale: run ./scripts/generate.sh and commit the result"; exit 1
fi
# A bundle whose content changed has a new hashed name: an untracked file, not a diff.
untracked=$(git ls-files --others --exclude-standard -- static/dist jsclient/gen views proto)
if [ -n "$untracked" ]; then echo "generated files not committed:"; echo "$untracked"; exit 1; fi

step "typescript"
npx --no-install tsc -p jsclient/tsconfig.json

# vitest's JSON report gives the counts; a run that cannot start leaves none and fails.
vitest_counts() { # file -> "passed failed skipped"
	node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));console.log(r.numPassedTests, r.numFailedTests, r.numPendingTests+r.numTodoTests)' "$1" 2>/dev/null || echo "0 1 0"
}

step "js unit tests (vitest)"
set +e
npx --no-install vitest run --config jsclient/vitest.config.ts --reporter=default --reporter=json \
	--outputFile.json="$log_dir/vitest.json"
js_status=$?
set -e
read -r js_passed js_failed js_skipped < <(vitest_counts "$log_dir/vitest.json")
echo "js: $js_passed passed, $js_failed failed, $js_skipped skipped"

step "go test (race detector on)"
set +e
go test -race -count=1 -timeout 25m -v ./... >"$log_dir/go-test.log" 2>&1
status=$?
# ROS 2 (docs/ros2.md): the DDS transport and the agent built with -tags ros2, against real
# Cyclone DDS and Fast DDS peers, each test in a network namespace of its own.
go test -race -tags ros2 -count=1 -v ./internal/source/ros2/... >>"$log_dir/go-test.log" 2>&1 || status=1
go test -race -tags ros2 -count=1 -v -run '^TestROS2' ./cmd/fleetgate >>"$log_dir/go-test.log" 2>&1 || status=1
set -e
passed=$(grep -c -- '^\s*--- PASS' "$log_dir/go-test.log" || true)
failed=$(grep -c -- '^\s*--- FAIL' "$log_dir/go-test.log" || true)
skipped=$(grep -c -- '^\s*--- SKIP' "$log_dir/go-test.log" || true)
# Tests whose peer cannot exist on a machine like CI's (a video device: the v4l2loopback
# module cannot be loaded here) are named here. They skip saying "NOT POSSIBLE HERE: <why>",
# are reported apart below and counted neither as passed nor as skipped; any other skip,
# or one of these skipping without saying so, still fails the run.
not_possible_here='TestV4L2DeviceStreams'
impossible=0
impossible_lines=""
while IFS= read -r name; do
	[ -n "$name" ] || continue
	if grep -A1 -E -- "^=== RUN\s+$name\$" "$log_dir/go-test.log" | grep -q 'NOT POSSIBLE HERE:'; then
		impossible=$((impossible + 1))
		impossible_lines+="$name: $(grep -A1 -E -- "^=== RUN\s+$name\$" "$log_dir/go-test.log" | grep -o 'NOT POSSIBLE HERE:.*')"$'\n'
	fi
done < <(grep -oE -- "^\s*--- SKIP: ($not_possible_here) " "$log_dir/go-test.log" | awk '{print $3}')
skipped=$((skipped - impossible))
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
	echo "failures (full log: $log_dir/go-test.log):"
	# Each failed test's own output first: with -v a test's messages stream under its
	# "=== RUN/NAME/CONT" marker, often far above its "--- FAIL" line.
	grep -oE -- '^\s*--- FAIL: \S+' "$log_dir/go-test.log" | awk '{print $3}' | sort -u >"$log_dir/go-failed.txt"
	awk -v failed="$log_dir/go-failed.txt" '
		BEGIN { while ((getline n < failed) > 0) want[n] = 1 }
		/^=== (RUN|NAME|CONT|PAUSE)/ { cur = $3; next }
		/^\s*--- (PASS|FAIL|SKIP)|^(PASS|FAIL|ok)\s/ { cur = ""; next }
		cur in want { print "[" cur "] " $0 }
	' "$log_dir/go-test.log" | head -300
	grep -E -B2 -A30 -- '^\s*--- FAIL|^panic:|^FAIL|build failed|\[setup failed\]' "$log_dir/go-test.log" | head -200
fi
if [ "$skipped" -ne 0 ]; then
	echo "skipped tests (a skip fails the run):"
	grep -A3 -- '--- SKIP' "$log_dir/go-test.log"
fi
grep -E '^(ok|FAIL|---)\s' "$log_dir/go-test.log" | grep -v -- '--- PASS' || true
echo "go: $passed passed, $failed failed, $skipped skipped"
if [ "$impossible" -ne 0 ]; then
	echo "not possible here ($impossible, not counted; run them where their peer exists):"
	printf '%s' "$impossible_lines"
fi

step "fuzz (short runs: scripts/test-fuzz.sh, 4 s each)"
fuzz_failed=0
TEST_LOG_DIR=$log_dir FUZZ_TIME=${FUZZ_TIME:-4s} ./scripts/test-fuzz.sh || fuzz_failed=1

# The Go benchmarks run once each (they never fail on speed; make bench measures), and the
# relay path must keep allocating nothing per frame and client: a rise fails the run.
step "benchmarks (smoke, -benchtime=1x) and allocations per relayed frame"
bench_failed=0
if go test -run '^$' -bench 'BenchmarkRelayThroughput|BenchmarkFeedFrame|BenchmarkSubscriptionNext' -benchtime 1x \
	./server/api >"$log_dir/bench-smoke.log" 2>&1 && node --check bench/foxglove-server.mjs; then
	allocs=$(grep -o '[0-9.e+-]* relay-allocs/frame/client' "$log_dir/bench-smoke.log" | awk '$1 > 0.05 {bad++} END {print bad + 0}')
	if [ "$(grep -c 'relay-allocs/frame/client' "$log_dir/bench-smoke.log")" -eq 0 ] || [ "$allocs" -ne 0 ]; then
		echo "allocations per relayed frame rose (want 0):"; grep 'relay-allocs' "$log_dir/bench-smoke.log"
		bench_failed=1
	else
		echo "benchmarks: ok, relay allocations per frame and client: 0"
	fi
else
	echo "benchmarks could not run (log: $log_dir/bench-smoke.log)"; tail -20 "$log_dir/bench-smoke.log"
	bench_failed=1
fi

step "browser end-to-end tests (chromium)"
rm -rf test-artifacts/e2e # this run's screenshots only
set +e
npx --no-install vitest run --config jsclient/vitest.e2e.config.ts --reporter=default --reporter=json \
	--outputFile.json="$log_dir/e2e.json"
e2e_status=$?
set -e
read -r e2e_passed e2e_failed e2e_skipped < <(vitest_counts "$log_dir/e2e.json")
echo "e2e: $e2e_passed passed, $e2e_failed failed, $e2e_skipped skipped (screenshots: test-artifacts/e2e)"

# The cluster demo as a user starts it: PostgreSQL, nats-server, three replicas, haproxy and
# an agent; every replica sees the robots, and a kill -9 of the agent's replica loses none.
step "cluster demo (scripts/cluster-demo.sh --smoke)"
cluster_failed=0
if ! ./scripts/cluster-demo.sh --smoke >"$log_dir/cluster-demo.log" 2>&1; then
	cluster_failed=1
	tail -40 "$log_dir/cluster-demo.log"
fi
grep 'smoke:' "$log_dir/cluster-demo.log" || true

step "summary (the whole run: $((SECONDS / 60)) min $((SECONDS % 60)) s)"
echo "go: $passed passed, $failed failed, $skipped skipped"
[ "$impossible" -eq 0 ] || echo "go: $impossible not possible here (listed above)"
echo "js: $js_passed passed, $js_failed failed, $js_skipped skipped"
echo "e2e: $e2e_passed passed, $e2e_failed failed, $e2e_skipped skipped"
echo "fuzz: $fuzz_failed failed"
echo "benchmarks (smoke and relay allocations): $bench_failed failed"
echo "cluster demo (smoke): $cluster_failed failed"
all_failed=$((failed + js_failed + e2e_failed + fuzz_failed + bench_failed + cluster_failed))
all_skipped=$((skipped + js_skipped + e2e_skipped))
echo "$((passed + js_passed + e2e_passed)) passed, $all_failed failed, $all_skipped skipped"
[ "$status" -eq 0 ] && [ "$js_status" -eq 0 ] && [ "$e2e_status" -eq 0 ] && [ "$all_failed" -eq 0 ] && [ "$all_skipped" -eq 0 ]
