package server

import (
	"context"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate/internal/gateway"
)

// retentionPeriod is how often the cloud applies its recordings' retention (and once at
// start): a copy outlives its age by at most this, and a download's hold by as much.
var retentionPeriod = time.Minute

// runRetention deletes the cloud's copies of recordings past --recordings-retention or
// beyond --recordings-cloud-quota, until ctx ends.
func (s *Server) runRetention(ctx context.Context, wg *sync.WaitGroup) {
	rule := gateway.RecordingRetention{MaxAge: s.cfg.RecordingsRetention, OrgQuota: s.cfg.RecordingsCloudQuota}
	if s.cfg.Mode != ModeCloud || (rule.MaxAge <= 0 && rule.OrgQuota <= 0) {
		return
	}
	wg.Go(func() {
		t := time.NewTicker(retentionPeriod)
		defer t.Stop()
		for {
			if n, err := s.gw.ApplyRetention(ctx, rule); err != nil && ctx.Err() == nil {
				s.log.Warn("applying the recordings' retention failed", "err", err)
			} else if n > 0 {
				s.log.Info("recordings deleted by retention", "count", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}
