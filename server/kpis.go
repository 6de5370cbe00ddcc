package server

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate/internal/kpi"
)

// openKPIs makes the custom KPI hub behind the fleet KPI sockets (W1 on the cloud, W2 on an
// agent). The same hub serves both: on the cloud its robots are the agents' RemoteRobots,
// whose KPIs answer from the values the agents push each second.
func (s *Server) openKPIs() {
	s.kpis = kpi.New(kpi.Config{Source: s.gw.KPISource(), Logger: s.log})
}

// runKPIs ticks the hub until ctx ends; wg is done once its sockets are closed (1001), so
// the hub stops before the store closes.
func (s *Server) runKPIs(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.kpis.Run(ctx)
	}()
	if s.cluster != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.phaseKPIs(ctx)
		}()
	}
}

// phaseKPIs spreads the replicas' KPI ticks over the second: the i-th of n replicas (by name)
// ticks i/n of a period after the others' turns. Replicas that share a host then fan out one
// after another instead of waking together; on hosts of their own it costs nothing. It follows
// replicas as they come and go.
func (s *Server) phaseKPIs(ctx context.Context) {
	t := time.NewTicker(kpi.Period)
	defer t.Stop()
	for {
		names := s.cluster.Replicas()
		i := slices.Index(names, s.cluster.Replica())
		s.kpis.SetPhase(kpi.Period * time.Duration(i) / time.Duration(len(names)))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// KPIs is the custom KPI hub, for in-process callers and tests.
func (s *Server) KPIs() *kpi.Hub { return s.kpis }
