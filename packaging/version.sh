#!/usr/bin/env bash
# packaging/version.sh [REV]: the version of fleetgate built from REV (default: the work tree),
# from git, as both the binary (fleetgate version) and its Debian package say it:
#   the tag v1.2.0                    1.2.0
#   3 commits after v1.2.0            1.2.0+3.gabc1234
#   a pre-release tag v1.3.0-rc1      1.3.0~rc1 (before 1.3.0, as Debian orders them)
#   no tag yet, 354 commits           0.0.0+354.gabc1234
#   the work tree with changes        ... .dirty
# The commit count keeps Debian's order along the history, so an upgrade is an upgrade.
set -euo pipefail
rev=${1:-HEAD}
if desc=$(git describe --tags --match 'v[0-9]*' --abbrev=7 "$rev" 2>/dev/null); then
	:
else
	desc="v0.0.0-$(git rev-list --count "$rev")-g$(git rev-parse --short=7 "$rev")"
fi
re='^v([0-9][0-9A-Za-z.]*)(-([A-Za-z][0-9A-Za-z.]*))?(-([0-9]+)-g([0-9a-f]+))?$'
if ! [[ $desc =~ $re ]]; then
	echo "packaging/version.sh: cannot make a version of $desc" >&2
	exit 1
fi
version=${BASH_REMATCH[1]}
[ -z "${BASH_REMATCH[3]}" ] || version+="~${BASH_REMATCH[3]}"
[ -z "${BASH_REMATCH[4]}" ] || version+="+${BASH_REMATCH[5]}.g${BASH_REMATCH[6]}"
if [ $# -eq 0 ] && [ -n "$(git status --porcelain)" ]; then
	version+=".dirty"
fi
echo "$version"
