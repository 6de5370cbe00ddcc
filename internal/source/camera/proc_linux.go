package camera

import "syscall"

// procAttr puts ffmpeg in a process group of its own, so that a stop reaches everything it
// runs, and has the kernel kill it when the agent dies: an agent that is killed must not
// leave cameras streaming to nobody.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup signals the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
