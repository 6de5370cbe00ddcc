package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server"
)

// runDemo starts the cloud gateway and a local gateway in one process, the agent linked to
// the cloud, sharing one admin API token, with data under <data>/cloud and <data>/agent.
func runDemo(ctx context.Context, args []string, stdout io.Writer) error {
	var g gatewayFlags
	fs := newFlagSet("demo")
	g.register(fs, ":8080")
	agentListen := fs.String("agent-listen", ":19992", "address of the local gateway")
	var sim simFlags
	sim.register(fs, 3)
	var cams cameraFlags
	cams.register(fs)
	cloudLive := fs.Bool("cloud-live", true, "live view and teleoperation through the cloud panel too (W3 over the agent link)")
	var recorder recorderFlags
	recorder.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := recorder.check(); err != nil {
		return err
	}
	if err := g.check(); err != nil {
		return err
	}
	if err := sim.check(); err != nil {
		return err
	}
	token, err := demoToken(g.data, g.adminToken)
	if err != nil {
		return err
	}
	cloudCfg := g.config(server.ModeCloud, io.Discard)
	cloudCfg.DataDir, cloudCfg.AdminToken = filepath.Join(g.data, "cloud"), token
	agentCfg := g.config(server.ModeAgent, io.Discard)
	agentCfg.DataDir, agentCfg.AdminToken, agentCfg.Listen = filepath.Join(g.data, "agent"), token, *agentListen
	agentCfg.MetricsListen = "" // one metrics listener per address: the cloud's
	agentCfg.Sim = sim.config()
	agentCfg.Cameras = cams.config()
	if len(cams.cameras) == 0 {
		// The demo's own camera: GStreamer's test pattern over RTSP, on the first robot.
		demoCam, stop := startDemoCamera(ctx, agentCfg.Logger, sim.count > 0)
		defer stop()
		if demoCam != nil {
			agentCfg.Cameras.Cameras = append(agentCfg.Cameras.Cameras, *demoCam)
		}
	}
	cloudCfg.NoCloudLive, agentCfg.NoCloudLive = !*cloudLive, !*cloudLive
	recorder.apply(&agentCfg)

	for _, dir := range []string{cloudCfg.DataDir, agentCfg.DataDir} {
		release, err := lockGatewayData(dir)
		if err != nil {
			return err
		}
		defer release()
	}
	cloud, err := server.Open(ctx, cloudCfg)
	if err != nil {
		return fmt.Errorf("cloud gateway: %w", err)
	}
	// The agent links to this cloud as any agent would: provisioned once, its key kept.
	key, err := server.DemoAgentKey(ctx, cloud.Gateway(), filepath.Join(cloudCfg.DataDir, "demo-agent-key"), "demo-agent")
	if err != nil {
		cloud.Close()
		return err
	}
	agentCfg.Cloud, agentCfg.AgentKey = cloud.URL(), key
	agent, err := server.Open(ctx, agentCfg)
	if err != nil {
		cloud.Close()
		return fmt.Errorf("local gateway: %w", err)
	}
	fmt.Fprintf(stdout, "fleetgate demo\n  cloud gateway: %s\n  local gateway: %s\n  admin API token (both): %s\n",
		cloud.URL(), agent.URL(), token)
	fmt.Fprintf(stdout, "panel: open %s and log in with the admin API token (the \"API token\" form)\n", cloud.URL())
	fmt.Fprintf(stdout, "try: curl -s -X POST %s/apigateway/v2/auth/login -H 'content-type: application/json' -d '{\"userToken\":\"%s\"}'\n", cloud.URL(), token)

	errs := make(chan error, 2)
	go func() { errs <- cloud.Run(ctx) }()
	go func() { errs <- agent.Run(ctx) }()
	return errors.Join(<-errs, <-errs)
}

// demoToken is the admin token the demo prints: the --admin-token when given, else the
// one kept in <data>/demo-admin-token from an earlier run, else a new one kept there.
func demoToken(dataDir, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	path := filepath.Join(dataDir, "demo-admin-token")
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); gateway.ValidAPITokenFormat(t) {
			return t, nil
		}
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", err
	}
	t := gateway.NewAPIToken()
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", err
	}
	return t, nil
}
