#!/usr/bin/env bash
# Every fuzz target of the repository, found at run time (a new one is run without being
# listed), FUZZ_TIME each (4 s in the test command, a minute with `make fuzz`): the decoders
# of what peers send (W3 queries and commands, XML-RPC, TCPROS, ROS 1 messages, ROS 2 CDR and .msg definitions) and the MCAP reader and recovery of
# what a crash left on disk. A crash fails the run (the failing input is kept under
# testdata/fuzz to commit as a regression).
# Prints one line per target and exits non-zero when any failed; logs go to TEST_LOG_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
log_dir=${TEST_LOG_DIR:-$(mktemp -d)}
fuzz_failed=0
fuzz_targets=$(grep -rH --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . | grep -v node_modules |
	sed -E 's|^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*|\1 \2|' | sort)
echo "$(echo "$fuzz_targets" | grep -c .) fuzz targets, ${FUZZ_TIME:-4s} each"
while read -r target; do
	[ -n "$target" ] || continue
	read -r pkg fn <<<"$target"
	# Go 1.26's fuzz coordinator can report a bare "context deadline exceeded" when -fuzztime
	# ends while a worker is busy (golang/go#75804, fixed in Go 1.27): no input failed, none was
	# written. Such a run is tried once more; any other failure, or a second one, fails.
	fuzz_ok=false
	for attempt in 1 2; do
		if go test -run '^$' -fuzz "^$fn\$" -fuzztime "${FUZZ_TIME:-4s}" "./$pkg" >"$log_dir/fuzz-$fn.log" 2>&1; then
			fuzz_ok=true
			break
		fi
		if [ "$attempt" -eq 1 ] && grep -q 'context deadline exceeded' "$log_dir/fuzz-$fn.log" &&
			! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$log_dir/fuzz-$fn.log"; then
			echo "fuzz $fn: the fuzz engine's end-of-time race (golang/go#75804), no failing input: running it again"
			continue
		fi
		break
	done
	if $fuzz_ok; then
		echo "fuzz $fn: ok"
	else
		echo "fuzz $fn: FAILED (log: $log_dir/fuzz-$fn.log)"
		tail -20 "$log_dir/fuzz-$fn.log"
		fuzz_failed=$((fuzz_failed + 1))
	fi
done <<<"$fuzz_targets"

echo "fuzz: $fuzz_failed failed"
[ "$fuzz_failed" -eq 0 ]
