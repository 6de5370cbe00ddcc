package output

import (
	"sync"

	"github.com/fleetgate/fleetgate"
)

// Feeds shares one Feed among every client of the same robot stream, so a sample is encoded
// once however many clients watch it. Safe for concurrent use.
type Feeds struct {
	mu    sync.Mutex
	feeds map[feedKey]*sharedFeed
}

type feedKey struct {
	robotID string
	stream  fleetgate.StreamKey
}

type sharedFeed struct {
	feed *Feed
	refs int
}

// Get returns the feed of a robot's stream; call release when the client leaves.
func (fs *Feeds) Get(robotID string, stream fleetgate.Stream) (feed *Feed, release func()) {
	key := feedKey{robotID, stream.Key()}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.feeds == nil {
		fs.feeds = map[feedKey]*sharedFeed{}
	}
	sf := fs.feeds[key]
	if sf == nil {
		sf = &sharedFeed{feed: NewFeed(stream)}
		fs.feeds[key] = sf
	}
	sf.refs++
	var once sync.Once
	return sf.feed, func() {
		once.Do(func() {
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if sf.refs--; sf.refs == 0 {
				delete(fs.feeds, key)
			}
		})
	}
}

// Len is the number of streams with clients, for tests and metrics.
func (fs *Feeds) Len() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.feeds)
}
