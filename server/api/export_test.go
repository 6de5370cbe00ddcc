package api

import "time"

// SetControllerPing shortens the controller pings for a test; the returned func restores them.
func SetControllerPing(every, timeout time.Duration) (restore func()) {
	oldEvery, oldTimeout := controllerPingEvery.get(), controllerPingTimeout.get()
	controllerPingEvery.Store(int64(every))
	controllerPingTimeout.Store(int64(timeout))
	return func() {
		controllerPingEvery.Store(int64(oldEvery))
		controllerPingTimeout.Store(int64(oldTimeout))
	}
}
