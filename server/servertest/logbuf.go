package servertest

import (
	"bytes"
	"sync"
)

// lockedWriter lets the server's goroutines log into one buffer the test reads.
type lockedWriter struct {
	mu  sync.Mutex
	buf *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// Logs returns everything the server logged so far.
func (s *Server) Logs() string {
	s.logs.mu.Lock()
	defer s.logs.mu.Unlock()
	return s.logs.buf.String()
}
