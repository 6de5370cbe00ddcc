//go:build !ros2

package dds

import (
	"errors"
	"testing"
)

// A binary built without the tag says how to get ROS 2 support instead of failing obscurely.
func TestOpenWithoutTag(t *testing.T) {
	if _, err := Open(Config{}); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("Open: %v, want ErrNotBuilt", err)
	}
}
