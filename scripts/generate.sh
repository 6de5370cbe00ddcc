#!/usr/bin/env bash
# Regenerates every generated file; the test script runs it and fails when git sees a diff.
# Generators are pinned: templ as a go tool in go.mod.
set -euo pipefail
cd "$(dirname "$0")/.."

# templ components (views/*.templ -> *_templ.go)
out=$(go tool templ generate -path . 2>&1) || { echo "$out"; exit 1; }
