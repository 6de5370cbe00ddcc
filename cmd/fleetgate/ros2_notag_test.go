//go:build !ros2

package main

import (
	"strings"
	"testing"
)

// --ros2 on a binary built without the tag is a clear usage error that says how to get one.
func TestROS2WithoutTagExit2(t *testing.T) {
	_, stderr, code := runCLI(t, nil, "agent", "--data", t.TempDir(), "--ros2")
	if code != exitUsage || !strings.Contains(stderr, "make agent-ros2") {
		t.Errorf("exit code %d, stderr %q; want %d and a word on make agent-ros2", code, stderr, exitUsage)
	}
}
