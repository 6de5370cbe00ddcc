// Package logtest holds what tests need to read a log while the code under test writes it.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer is a log destination (an slog handler's, a process's stderr) that a test reads while
// other goroutines write it. The zero value is ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
