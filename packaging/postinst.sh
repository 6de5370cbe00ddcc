#!/bin/sh
# fleetgate postinst: the system user fleetgate, its home /var/lib/fleetgate (under which
# systemd makes the units' state directories), and systemd told of the units. The units stay
# disabled: the operator enables the one this machine runs (docs/operations.md). An upgrade
# restarts the gateways that run, which migrate their store as they start.
set -e

if [ "$1" = configure ]; then
	if ! getent passwd fleetgate >/dev/null; then
		useradd --system --user-group --home-dir /var/lib/fleetgate --no-create-home \
			--shell /usr/sbin/nologin --comment "fleetgate gateway" fleetgate
	fi
	install -d -o fleetgate -g fleetgate -m 0750 /var/lib/fleetgate
	if [ -d /run/systemd/system ]; then
		systemctl daemon-reload >/dev/null || true
		if [ -n "$2" ]; then
			systemctl try-restart fleetgate-cloud.service fleetgate-agent.service >/dev/null || true
		fi
	fi
fi
