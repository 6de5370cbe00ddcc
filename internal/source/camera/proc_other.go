//go:build !linux

package camera

import (
	"os"
	"syscall"
)

// procAttr is the default elsewhere: process groups and the parent-death signal are Linux's
// (the agent's platform); a stop kills ffmpeg itself.
func procAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
