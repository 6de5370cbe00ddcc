#!/usr/bin/env bash
# The one test command: README, make test and .ci/run all call this script. It installs
# what the tests need, checks formatting, vetting and generated code, runs every Go test
# with the race detector, and ends with the line "N passed, N failed, N skipped".
# A skipped test fails the run: nothing is skipped silently.
set -euo pipefail
cd "$(dirname "$0")/.."

log_dir=${TEST_LOG_DIR:-$(mktemp -d)}
step() { printf '\n== %s\n' "$*"; }

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
need_packages protobuf-compiler
command -v npm >/dev/null || need_packages nodejs npm
protoc --version
node --version

step "npm ci"
npm ci --no-audit --no-fund --loglevel=error

step "go mod tidy"
go mod tidy -diff

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' | grep -v '_templ.go$' || true))
if [ -n "$unformatted" ]; then echo "not gofmt-ed:"; echo "$unformatted"; exit 1; fi

step "go vet"
go vet ./...

step "generated code is fresh"
./scripts/generate.sh
if ! git diff --exit-code --stat -- . ':!go.sum'; then
	echo "generated code is stale: run ./scripts/generate.sh and commit the result"; exit 1
fi

step "go test (race detector on)"
set +e
go test -race -count=1 -v ./... >"$log_dir/go-test.log" 2>&1
status=$?
set -e
passed=$(grep -c -- '^\s*--- PASS' "$log_dir/go-test.log" || true)
failed=$(grep -c -- '^\s*--- FAIL' "$log_dir/go-test.log" || true)
skipped=$(grep -c -- '^\s*--- SKIP' "$log_dir/go-test.log" || true)
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
	echo "failures (full log: $log_dir/go-test.log):"
	grep -E -B2 -A30 -- '^\s*--- FAIL|^panic:|^FAIL|build failed|\[setup failed\]' "$log_dir/go-test.log" | head -400
fi
if [ "$skipped" -ne 0 ]; then
	echo "skipped tests (a skip fails the run):"
	grep -A3 -- '--- SKIP' "$log_dir/go-test.log"
fi
grep -E '^(ok|FAIL|---)\s' "$log_dir/go-test.log" | grep -v -- '--- PASS' || true
echo
echo "go: $passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$skipped" -eq 0 ]
