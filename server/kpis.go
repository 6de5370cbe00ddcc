package server

import (
	"context"
	"sync"

	"github.com/fleetgate/fleetgate/internal/kpi"
	"github.com/fleetgate/fleetgate/server/api"
)

// openKPIs makes the custom KPI hub behind the fleet KPI sockets (W1 on the cloud, W2 on an
// agent). The same hub serves both: on the cloud its robots are the agents' RemoteRobots,
// whose KPIs answer from the values the agents push each second.
func (s *Server) openKPIs() {
	s.kpis = kpi.New(kpi.Config{Source: api.KPISource(s.gw), Logger: s.log})
}

// runKPIs ticks the hub until ctx ends; wg is done once its sockets are closed (1001), so
// the hub stops before the store closes.
func (s *Server) runKPIs(ctx context.Context, wg *sync.WaitGroup) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.kpis.Run(ctx)
	}()
}

// KPIs is the custom KPI hub, for in-process callers and tests.
func (s *Server) KPIs() *kpi.Hub { return s.kpis }
