#!/usr/bin/env bash
# packaging/depends.sh BINARY: the Debian packages that provide the shared libraries a cgo
# binary links (libddsc.so.0debian: libddsc0debian on Debian 12, the runtime of Debian's
# cyclonedds; libc6), as a Depends field, each at least at the version built against. Asked
# of dpkg on the build machine, so the names are the real ones of the release built on.
set -euo pipefail
bin=$1
deps=()
for soname in $(objdump -p "$bin" | awk '$1 == "NEEDED" {print $2}'); do
	# (awk reads to the end: a reader that stops early would fail the pipe, pipefail being on)
	path=$(ldconfig -p | awk -v s="$soname" '$1 == s && /x86-64|x86_64|AArch64/ && !found {print $NF; found = 1}')
	if [ -z "$path" ]; then
		echo "packaging/depends.sh: $bin needs $soname, which this machine lacks" >&2
		exit 1
	fi
	# dpkg knows a file by the path its package ships, which merged /usr may hide behind
	# a symbolic link (/lib -> usr/lib): try the path, its target, each with and without /usr.
	real=$(readlink -f "$path")
	pkg=""
	for p in "$path" "$real" "${real#/usr}" "/usr${path#/usr}"; do
		pkg=$(dpkg -S "$p" 2>/dev/null | awk -F: 'NR == 1 {print $1}') && [ -n "$pkg" ] && break
	done
	if [ -z "$pkg" ]; then
		echo "packaging/depends.sh: no Debian package holds $path ($soname)" >&2
		exit 1
	fi
	upstream=$(dpkg-query -W -f '${Version}' "$pkg" | sed -E 's/^[0-9]+://; s/-[^-]*$//')
	deps+=("$pkg (>= $upstream)")
done
(IFS=,; echo "${deps[*]}" | sed 's/,/, /g')
