#!/usr/bin/env bash
# make packages: the Debian packages of fleetgate, built with nfpm (pinned in go.mod as a Go
# tool: nothing is downloaded but Go modules), into dist/:
#   fleetgate_VERSION_amd64.deb, fleetgate_VERSION_arm64.deb   pure Go, cross-built
#   fleetgate-ros2_VERSION_amd64.deb                          -tags ros2: cgo and Cyclone DDS
# The version, commit and date come from git (packaging/version.sh) and go into the binary.
#
# usage: packaging/build.sh [TARGET...]   TARGET: fleetgate-amd64 fleetgate-arm64 fleetgate-ros2-amd64
#                                        (default: all three)
# environment, for the package test (packaging/package_test.go) more than for people:
#   DIST            where the packages go (default: dist)
#   SRC             the source tree to build the binary from (default: this checkout)
#   VERSION COMMIT DATE   instead of git's
#   DEV_BUILD=1     build the binary as a plain `go build` does (cgo as the machine has it, no
#                   -trimpath), which finds the build cache of the tests' own binary: seconds
#                   instead of minutes. The package test uses it; a release never does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dist=${DIST:-dist}
src=${SRC:-$root}
version=${VERSION:-$(packaging/version.sh)}
if [ -z "${COMMIT:-}" ]; then
	COMMIT=$(git rev-parse HEAD)
	[ -z "$(git status --porcelain)" ] || COMMIT+="+dirty"
fi
date=${DATE:-$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)}
# The packages' files carry the commit's time, not the build's (reproducible packages).
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
go_build_flags=-trimpath
[ "${DEV_BUILD:-}" != 1 ] || go_build_flags=""
ldflags="-s -w -X main.buildVersion=$version -X main.buildCommit=$COMMIT -X main.buildDate=$date"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fleetgate-amd64 fleetgate-arm64 fleetgate-ros2-amd64)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dist"
for target in "${targets[@]}"; do
	case $target in
	fleetgate-amd64 | fleetgate-arm64)
		name=fleetgate other=fleetgate-ros2 arch=${target#fleetgate-} cgo=0 tags=()
		[ "${DEV_BUILD:-}" != 1 ] || cgo=$(go env CGO_ENABLED)
		description="This build has no ROS 2 (fleetgate-ros2 has it)."
		;;
	fleetgate-ros2-amd64)
		name=fleetgate-ros2 other=fleetgate arch=amd64 cgo=1 tags=(-tags ros2)
		description="This build joins ROS 2 graphs (fleetgate agent --ros2) through Cyclone DDS."
		;;
	*)
		echo "packaging/build.sh: unknown target $target (fleetgate-amd64, fleetgate-arm64, fleetgate-ros2-amd64)" >&2
		exit 2
		;;
	esac
	bin="$work/$target/fleetgate"
	echo "building $target $version"
	(cd "$src" && CGO_ENABLED=$cgo GOOS=linux GOARCH=$arch go build $go_build_flags "${tags[@]}" -ldflags "$ldflags" -o "$bin" ./cmd/fleetgate)
	depends=""
	if [ "$name" = fleetgate-ros2 ]; then
		depends=$(packaging/depends.sh "$bin")
	fi
	PKG_NAME=$name PKG_OTHER=$other PKG_ARCH=$arch PKG_VERSION=$version PKG_BINARY=$bin \
		PKG_DEPENDS=$depends PKG_DESCRIPTION=$description \
		go tool nfpm package --config packaging/nfpm.yaml --packager deb --target "$dist/"
done
