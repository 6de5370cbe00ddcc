package gateway

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/live"
)

// recheckShare is how long one token re-check answers for every socket of the same bearer. A
// wall of viewers often shares one token: each socket re-checks every second (live), and
// without sharing a thousand idle viewers cost a thousand store queries a second. It adds at
// most this to the second within which revocation ends a socket.
const recheckShare = 250 * time.Millisecond

// rechecks shares the socket token re-checks of one bearer (SocketRecheck).
type rechecks struct {
	mu      sync.Mutex
	byToken map[string]*recheck
	swept   time.Time // the last sweep of old entries
}

type recheck struct {
	done chan struct{} // closed when err is set
	at   time.Time     // when the check began (monotonic: a cache, not policy)
	err  error
}

// do returns the result of a check of bearer begun at most recheckShare ago, or runs check.
// A check that ended with its context is not shared.
func (rs *rechecks) do(ctx context.Context, bearer string, check func(context.Context) error) error {
	now := time.Now()
	rs.mu.Lock()
	if rs.byToken == nil {
		rs.byToken = map[string]*recheck{}
	}
	if r := rs.byToken[bearer]; r != nil && now.Sub(r.at) < recheckShare {
		rs.mu.Unlock()
		select {
		case <-r.done:
			return r.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// Forget the bearers of sockets gone, sweeping at most once per recheckShare: a sweep
	// under the lock at every check would cost thousands of distinct bearers a full scan each.
	if len(rs.byToken) >= 1024 && now.Sub(rs.swept) >= recheckShare {
		rs.swept = now
		for k, r := range rs.byToken {
			if now.Sub(r.at) >= recheckShare {
				delete(rs.byToken, k)
			}
		}
	}
	r := &recheck{done: make(chan struct{}), at: now}
	rs.byToken[bearer] = r
	rs.mu.Unlock()
	r.err = check(ctx)
	if errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded) {
		rs.mu.Lock()
		if rs.byToken[bearer] == r {
			delete(rs.byToken, bearer)
		}
		rs.mu.Unlock()
	}
	close(r.done)
	return r.err
}

// forget drops every shared result: the next check of each bearer asks the store.
func (rs *rechecks) forget() {
	rs.mu.Lock()
	rs.byToken = nil
	rs.mu.Unlock()
}

// TokensChanged tells the core that tokens may have been revoked (here or on another
// replica): socket re-checks no longer share results from before. The caller then has the
// sockets re-check now (live.Sessions.CheckNow, kpi.Hub.CheckNow).
func (ac *AccountService) TokensChanged() { ac.rechecks.forget() }

// SocketRecheck is a live session's token re-check: sockets outlive requests, and a revoked
// or expired token must end them (EUnauthorized, in the words of their close reason).
// Sockets of one bearer share a check made in the last recheckShare.
func (ac *AccountService) SocketRecheck(bearer string) live.Recheck {
	return func(ctx context.Context) error {
		return ac.rechecks.do(ctx, bearer, func(ctx context.Context) error {
			_, err := ac.Authenticate(ctx, bearer)
			if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
				return &fleetgate.Error{Code: fleetgate.EUnauthorized, Message: "token revoked or expired", Err: err}
			}
			return err
		})
	}
}
