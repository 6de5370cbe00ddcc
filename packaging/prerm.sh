#!/bin/sh
# fleetgate prerm: a removed package's gateways stop. Not on an upgrade: postinst restarts
# them once the new binary is in place.
set -e

case "$1" in
remove | deconfigure)
	if [ -d /run/systemd/system ]; then
		systemctl stop fleetgate-cloud.service fleetgate-agent.service >/dev/null 2>&1 || true
	fi
	;;
esac
