//go:build ros2

package main

// buildTags are the tags the tests build the binary with: those of the test binary.
var buildTags = []string{"-tags", "ros2"}
