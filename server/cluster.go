package server

import (
	"context"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate/internal/cluster"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/link/cloud"
)

// openCluster joins this cloud process to its replicas (--nats): the node becomes the core's
// Presence, forwarding what concerns robots held by another replica.
func (s *Server) openCluster(ctx context.Context, archive *cloud.Archive) error {
	cfg := cluster.Config{URL: s.cfg.NATS, Auth: s.cfg.NATSAuth, Replica: s.cfg.Replica, Local: s.registry, Logger: s.log,
		TokensChanged: func() { s.tokensChanged(false) },
		// The core is made after the node; nothing is served before it is.
		LoginFailure: func(limit, key string, at time.Time, forgiven bool) {
			if s.gw != nil {
				s.gw.ApplyLoginFailure(gateway.LoginFailure{Limit: limit, Key: key, At: at, Forgiven: forgiven})
			}
		}}
	if archive != nil {
		cfg.Archive = archive
	}
	node, err := cluster.Open(ctx, cfg)
	if err != nil {
		return err
	}
	s.cluster = node
	if archive != nil {
		shared, err := node.Files(ctx)
		if err != nil {
			node.Close()
			return err
		}
		archive.Share(shared)
	}
	s.log.Info("joined the cloud's replicas over NATS", "replica", node.Replica())
	return nil
}

// runCluster serves the other replicas until ctx ends, and watches whether this replica is
// cut off from both NATS and the store (cutOffWatch).
func (s *Server) runCluster(ctx context.Context, wg *sync.WaitGroup) {
	if s.cluster == nil {
		return
	}
	if s.acceptor != nil {
		s.cutOff = &cutOffWatch{busUp: s.cluster.Connected, pingDB: s.db.Ping, letGo: s.acceptor.LetGo, log: s.log}
		wg.Go(func() { s.cutOff.run(ctx) })
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.cluster.Run(ctx); err != nil {
			s.log.Error("cluster", "err", err)
		}
	}()
}
