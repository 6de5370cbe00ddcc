package server

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/hoststat"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/link/cloud"
	"github.com/fleetgate/fleetgate/internal/source/sim"
	"github.com/fleetgate/fleetgate/server/uplink"
)

// ResourceDir is where the cloud keeps the copies of the agents' resource files.
func ResourceDir(dataDir string) string { return filepath.Join(dataDir, "resources") }

// openLink prepares this server's end of the agent link: the acceptor on the cloud, the
// dialer on an agent given a cloud URL.
func (s *Server) openLink(archive *cloud.Archive) error {
	switch s.cfg.Mode {
	case ModeCloud:
		// One announcement registers no more robots than the agent may hold in all.
		maxRobots := cmp.Or(s.cfg.AgentMaxRobots, gateway.DefaultAgentMaxRobots)
		cfg := cloud.Config{Core: s.gw, Registry: s.registry, Archive: archive, Logger: s.log, MaxRobots: maxRobots}
		if s.cluster != nil {
			cfg.Owners = s.cluster
		}
		s.acceptor = cloud.New(cfg)
		if s.cluster != nil {
			s.cluster.SetAgents(s.acceptor)
		}
	case ModeAgent:
		if s.cfg.Cloud == "" {
			return nil
		}
		up, err := uplink.New(uplink.Config{
			CloudURL: s.cfg.Cloud, Key: s.cfg.AgentKey, Version: s.cfg.Version, Logger: s.log,
			Core:       agentCore{robots: s.registry, StreamService: s.gw.StreamService, eventOutbox: s.events, settings: s.gw.TeleopSettingsService},
			LiveBudget: s.cfg.LinkLiveBudget, NoLive: s.cfg.NoCloudLive,
			Congestion: s.cfg.LinkCongestion, NoLanes: s.cfg.LinkNoLanes, Video: s.gw.StreamService.Video(),
		})
		if err != nil {
			return err
		}
		s.uplink = up
	}
	return nil
}

// runLink runs the link until ctx ends: the acceptor (and the demo agents) on the cloud, the
// dialer on a linked agent. The cloud's acceptor closes every link before wg is done, so
// robots go offline with their last-seen time recorded before the store closes.
func (s *Server) runLink(ctx context.Context, wg *sync.WaitGroup) {
	if s.acceptor != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.acceptor.Run(ctx)
		}()
		if s.cfg.DemoAgents > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.runDemoAgents(ctx); err != nil {
					s.log.Error("demo agents", "err", err)
				}
			}()
		}
	}
	if s.uplink != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.uplink.Run(ctx)
		}()
	}
}

// agentLink authenticates an agent's upgrade as every route authenticates its caller (a
// refusal is a problem document from api.ErrorHandler, with Retry-After when rate-limited)
// and hands the socket to the acceptor.
func (s *Server) agentLink(c echo.Context) error {
	r := c.Request()
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return fleetgate.Errorf(fleetgate.EInvalid, "the agent link is a WebSocket upgrade")
	}
	a, err := s.gw.AuthenticateAgent(r.Context(), r.Header.Get(link.KeyHeader), c.RealIP())
	if err != nil {
		if fleetgate.ErrorCode(err) == fleetgate.EUnauthorized {
			s.log.Warn("agent link refused: bad agent key", "remote", c.RealIP())
		}
		return err
	}
	s.acceptor.Serve(c.Response(), r, cloud.Agent{ID: a.ID, Name: a.Name, FleetID: a.FleetID, Remote: c.RealIP()})
	return nil
}

// agentLive authenticates an agent's live connection as agentLink does its link, and hands
// it to the acceptor, which joins it to the agent's link.
func (s *Server) agentLive(c echo.Context) error {
	r := c.Request()
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return fleetgate.Errorf(fleetgate.EInvalid, "the agent's live connection is a WebSocket upgrade")
	}
	a, err := s.gw.AuthenticateAgent(r.Context(), r.Header.Get(link.KeyHeader), c.RealIP())
	if err != nil {
		return err
	}
	s.acceptor.ServeLive(c.Response(), r, cloud.Agent{ID: a.ID, Name: a.Name, FleetID: a.FleetID, Remote: c.RealIP()})
	return nil
}

var _ gateway.ResourceArchive = (*cloud.Archive)(nil)

// LinkAcceptor is the cloud's end of the agent link (nil on an agent).
func (s *Server) LinkAcceptor() *cloud.Acceptor { return s.acceptor }

// Uplink is a linked agent's end of the link (nil otherwise).
func (s *Server) Uplink() *uplink.Agent { return s.uplink }

// DemoAgentKey returns the key of agent name for a demo, provisioning the agent on the
// cloud gw the first time and keeping its key in keyFile (the store keeps only a hash).
func DemoAgentKey(ctx context.Context, gw *gateway.Gateway, keyFile, name string) (string, error) {
	if b, err := os.ReadFile(keyFile); err == nil {
		if key := strings.TrimSpace(string(b)); key != "" {
			return key, nil
		}
	}
	_, key, err := gw.AddAgent(ctx, name, "")
	if fleetgate.ErrorCode(err) == fleetgate.EConflict {
		// The key file was lost: provision a sibling rather than guess.
		_, key, err = gw.AddAgent(ctx, name+"-"+gateway.NewSecret("", 6), "")
	}
	if err != nil {
		return "", fmt.Errorf("provisioning demo agent %s: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		return "", err
	}
	return key, nil
}

// runDemoAgents runs DemoAgents simulated agents in this process, each hosting one
// simulated robot and linked to this cloud over loopback, exactly as a remote agent is.
func (s *Server) runDemoAgents(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := 1; i <= s.cfg.DemoAgents; i++ {
		name := fmt.Sprintf("demo-agent-%d", i)
		dir := filepath.Join(s.cfg.DataDir, "demo-agents", name)
		key, err := DemoAgentKey(ctx, s.gw, filepath.Join(dir, "agent-key"), name)
		if err != nil {
			return err
		}
		log := s.log.With("demo_agent", name)
		robots := fleet.NewRegistry(nil, log, nil)
		simulation, err := sim.Start(ctx, sim.Config{
			Count: 1, Seed: s.cfg.Sim.Seed + int64(i), CmdTimeout: s.cfg.Sim.CmdTimeout, DataDir: dir,
			AgentVersion: s.cfg.Version, Host: hoststat.New(dir), Logger: log.With("source", "sim"),
		})
		if err != nil {
			return fmt.Errorf("%s: starting the simulation: %w", name, err)
		}
		rec, err := s.openRecorder(dir)
		if err != nil {
			simulation.Close()
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, r := range recordable(rec, simulation.Robots()) {
			robots.Add(ctx, r, fleetgate.LocalFleetID)
		}
		up, err := uplink.New(uplink.Config{CloudURL: s.URL(), Key: key, Version: s.cfg.Version, Logger: log,
			Core: demoAgentCore{robots: robots, door: door.New(door.Config{Log: log})}})
		if err != nil {
			rec.Close()
			simulation.Close()
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer simulation.Close()
			defer rec.Close()
			up.Run(ctx)
		}()
	}
	return nil
}
