package server

import (
	"context"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/store"
)

// Sockets re-check their token each period (a second), agent links their key. A revocation made through this
// process takes effect on them at once instead, and, with replicas, on every replica's
// sockets: the store below tells the server of every write that can take access away, and
// the server has its sockets re-check now and tells the other replicas to do the same. The
// periodic checks stay, for what no write here announces (the offline CLI, another process
// without NATS).

// revokingStore is the store, telling of the writes that can take access away.
type revokingStore struct {
	*store.DB
	revoked func()
}

func (r revokingStore) told(err error) error {
	if err == nil {
		r.revoked()
	}
	return err
}

func (r revokingStore) RevokeAPIToken(ctx context.Context, id string, at time.Time) error {
	return r.told(r.DB.RevokeAPIToken(ctx, id, at))
}

func (r revokingStore) SetMembership(ctx context.Context, m fleetgate.Membership) error {
	return r.told(r.DB.SetMembership(ctx, m))
}

func (r revokingStore) SetUserDisabled(ctx context.Context, userID string, at time.Time) error {
	return r.told(r.DB.SetUserDisabled(ctx, userID, at))
}

func (r revokingStore) SetPasswordHash(ctx context.Context, userID, hash string, mustChange bool) error {
	return r.told(r.DB.SetPasswordHash(ctx, userID, hash, mustChange))
}

func (r revokingStore) RevokeAgent(ctx context.Context, id string, at time.Time) error {
	return r.told(r.DB.RevokeAgent(ctx, id, at))
}

func (r revokingStore) DeleteRobot(ctx context.Context, id string) error {
	return r.told(r.DB.DeleteRobot(ctx, id))
}

// tokensChanged has this replica's sockets re-check their tokens now, and, when the change
// was made here, every other replica's.
func (s *Server) tokensChanged(here bool) {
	if s.gw == nil {
		return
	}
	s.gw.TokensChanged()
	if s.sessions != nil {
		s.sessions.CheckNow()
	}
	if s.kpis != nil {
		s.kpis.CheckNow()
	}
	if s.acceptor != nil {
		s.acceptor.CheckNow()
	}
	if here && s.cluster != nil {
		s.cluster.PublishTokensChanged()
	}
}
