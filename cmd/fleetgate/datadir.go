package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile is the file in a data directory that gateways and restore take a lock on.
const lockFile = "fleetgate.lock"

// errDataDirBusy is lockDataDir's answer when the lock is held the other way.
var errDataDirBusy = errors.New("the data directory is in use")

// lockDataDir takes the lock of a data directory (creating both when needed): shared by the
// gateways that run on it, exclusive for a restore, so that a restore never replaces the files
// under a running gateway and a gateway never starts on half-restored files. flock's lock
// goes with the process: a gateway that was killed holds none.
func lockDataDir(dir string, exclusive bool) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the data directory's lock: %w", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errDataDirBusy
		}
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// lockGatewayData takes the shared lock of a gateway's data directory.
func lockGatewayData(dir string) (release func(), err error) {
	release, err = lockDataDir(dir, false)
	if errors.Is(err, errDataDirBusy) {
		return nil, fmt.Errorf("%s is being restored (fleetgate restore holds %s): start the gateway when it is done", dir, filepath.Join(dir, lockFile))
	}
	return release, err
}
