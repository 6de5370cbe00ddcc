#!/bin/sh
# fleetgate postrm. Removing keeps the data (/var/lib/fleetgate) and the settings
# (/etc/fleetgate, conffiles); purging removes both, and the units' enablement. The user
# fleetgate stays even then (Debian's practice: files elsewhere, backups say, may still be
# its own); `userdel fleetgate` removes it.
set -e

case "$1" in
remove)
	if [ -d /run/systemd/system ]; then
		systemctl daemon-reload >/dev/null || true
	fi
	;;
purge)
	# The other flavour (fleetgate, fleetgate-ros2) replaced this one and uses the data.
	if [ -e /usr/bin/fleetgate ]; then
		exit 0
	fi
	rm -rf /var/lib/fleetgate
	rm -f /etc/systemd/system/multi-user.target.wants/fleetgate-cloud.service \
		/etc/systemd/system/multi-user.target.wants/fleetgate-agent.service
	if [ -d /run/systemd/system ]; then
		systemctl daemon-reload >/dev/null || true
	fi
	;;
esac
