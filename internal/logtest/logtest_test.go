package logtest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestBufferTakesConcurrentWrites: lines written from many goroutines while they also read
// all arrive whole (with -race: the reads and writes do not race).
func TestBufferTakesConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				fmt.Fprintf(&b, "writer %d line %d\n", i, j)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != 400 {
		t.Errorf("%d lines, want 400", n)
	}
}
