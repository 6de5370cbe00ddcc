//go:build ros2

package dds

/*
#include <stdint.h>
#include <stddef.h>
*/
import "C"

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// cycloneLog is where Cyclone DDS's log lines go: the log of the latest participant opened
// (one agent opens one). The sink is the library's, one per process.
var cycloneLog logSink

// Cyclone's log categories (dds/ddsrt/log.h).
const (
	cycloneFatal   = 1
	cycloneError   = 2
	cycloneWarning = 4
)

// maxCycloneLines bounds the lines taken from Cyclone a minute: a peer that sends an
// oversize sample at 30 Hz is worth one line, not thirty a second.
const maxCycloneLines = 10

type logSink struct {
	mu         sync.Mutex
	log        *slog.Logger
	window     time.Time // start of the minute being counted
	lines      int       // lines logged in it
	suppressed int       // lines left out since the last one logged
}

func (s *logSink) use(l *slog.Logger) {
	s.mu.Lock()
	s.log = l
	s.mu.Unlock()
}

//export fleetgateCycloneLog
func fleetgateCycloneLog(priority C.uint32_t, msg *C.char, size C.size_t) {
	cycloneLog.write(uint32(priority), C.GoStringN(msg, C.int(size)))
}

func (s *logSink) write(priority uint32, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return
	}
	if now := time.Now(); now.Sub(s.window) >= time.Minute {
		s.window, s.lines = now, 0
	}
	if s.lines >= maxCycloneLines {
		s.suppressed++
		return
	}
	s.lines++
	level := slog.LevelDebug
	switch {
	case priority&(cycloneFatal|cycloneError) != 0:
		level = slog.LevelError
	case priority&cycloneWarning != 0:
		level = slog.LevelWarn
	}
	attrs := []any{"component", "cyclonedds"}
	if s.suppressed > 0 {
		attrs = append(attrs, "lines_left_out", s.suppressed)
		s.suppressed = 0
	}
	s.log.Log(context.Background(), level, "DDS: "+msg, attrs...)
}
