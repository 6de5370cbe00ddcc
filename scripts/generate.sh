#!/usr/bin/env bash
# Regenerates every generated file; the test script runs it and fails when git sees a diff.
# Generators are pinned: templ and protoc-gen-go as go tools in go.mod, protoc-gen-es and
# esbuild in package-lock.json (npm ci), protoc from Debian (protobuf-compiler; its output does not depend
# on its version for proto3 files like ours).
set -euo pipefail
cd "$(dirname "$0")/.."

# templ components (views/*.templ -> *_templ.go)
out=$(go tool templ generate -path . 2>&1) || { echo "$out"; exit 1; }

# protobuf: Go next to the sources' go_package, TypeScript into jsclient/gen.
protos=$(cd proto && find . -name '*.proto' | sed 's|^\./||' | LC_ALL=C sort)
rm -rf proto/catalogpb proto/streampb proto/linkpb proto/clusterpb proto/foxglovepb jsclient/gen
mkdir -p jsclient/gen
plugin_go=$(mktemp -d)
trap 'rm -rf "$plugin_go"' EXIT
go build -o "$plugin_go/protoc-gen-go" google.golang.org/protobuf/cmd/protoc-gen-go
(cd proto && protoc --plugin=protoc-gen-go="$plugin_go/protoc-gen-go" \
	--go_out=.. --go_opt=module=github.com/fleetgate/fleetgate $protos)
[ -x node_modules/.bin/protoc-gen-es ] || { echo "node_modules missing: run npm ci"; exit 1; }
(cd proto && protoc --plugin=protoc-gen-es=../node_modules/.bin/protoc-gen-es \
	--es_out=../jsclient/gen --es_opt=target=ts,import_extension=js $protos)

# The browser bundle (jsclient/ -> static/dist, hashed names and manifest.json), after the
# TypeScript wire types it imports. esbuild is pinned in package-lock.json.
node jsclient/build.mjs
