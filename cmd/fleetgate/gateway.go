package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/store/postgres"
	"github.com/fleetgate/fleetgate/server"
)

// dbUsage describes --db, of serve and of the offline commands.
const dbUsage = "PostgreSQL URL (postgres://user@host:port/database; the password is better in PGPASSWORD) to keep the cloud's store in, shared by replicas; empty: SQLite in the data directory"

// checkDatabase checks --db before anything opens: a usage error, not a failed start.
func checkDatabase(database string) error {
	if database == "" {
		return nil
	}
	if err := postgres.CheckURL(database); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// trustedProxyFlag adds the proxies of --trusted-proxy to dst: CIDRs (10.0.0.0/8) or single
// addresses, comma-separated or repeated.
func trustedProxyFlag(dst *[]netip.Prefix) func(string) error {
	return func(v string) error {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			p, err := netip.ParsePrefix(s)
			if err != nil {
				addr, aerr := netip.ParseAddr(s)
				if aerr != nil {
					return fmt.Errorf("%q is neither a CIDR (10.0.0.0/8, fd00::/8) nor an address", s)
				}
				p = netip.PrefixFrom(addr, addr.BitLen())
			}
			if p.Bits() == 0 {
				// Every peer a proxy: anyone could choose the address the login limits count.
				return fmt.Errorf("%q trusts every address; name the proxies' own addresses", s)
			}
			*dst = append(*dst, p.Masked())
		}
		return nil
	}
}

// corsOriginFlag adds the origins of --cors-origin to dst, comma-separated or repeated, each
// as browsers write it in the Origin header (lower case, no default port), so that the
// middleware compares strings.
func corsOriginFlag(dst *[]string) func(string) error {
	return func(v string) error {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			if !validOrigin(s) {
				return fmt.Errorf("%q is not an origin: http(s)://host[:port], no path", s)
			}
			u, _ := url.Parse(strings.ToLower(s))
			if port := u.Port(); u.Scheme == "http" && port == "80" || u.Scheme == "https" && port == "443" {
				u.Host = u.Hostname()
				if strings.Contains(u.Host, ":") {
					u.Host = "[" + u.Host + "]"
				}
			}
			*dst = append(*dst, u.Scheme+"://"+u.Host)
		}
		return nil
	}
}

// gatewayFlags are the flags common to serve, agent and demo.
type gatewayFlags struct {
	listen        string
	data          string
	publicURL     string
	adminToken    string
	tokenTTL      time.Duration
	tlsCert       string
	tlsKey        string
	logFormat     string
	metricsListen string
	// kioskFrameAncestors is the one origin allowed to frame kiosk pages.
	kioskFrameAncestors string
	// alertBattery is the charge, in percent, under which a robot shows a battery alert.
	alertBattery float64
	// timezone is the site's time zone, of every time the panel shows.
	timezone string
}

func (g *gatewayFlags) register(fs *flag.FlagSet, defaultListen string) {
	fs.StringVar(&g.listen, "listen", defaultListen, "address to serve the API and panel on")
	fs.StringVar(&g.data, "data", "./fleetgate-data", "data directory (database, keys, files)")
	fs.StringVar(&g.publicURL, "public-url", "", "base URL for absolute links such as downloads (default: from the request)")
	fs.StringVar(&g.adminToken, "admin-token", "", "the admin's API token on a new data directory (fgt_ + 32 letters or digits)")
	fs.DurationVar(&g.tokenTTL, "token-ttl", time.Hour, "lifetime of bearer tokens minted by login")
	fs.StringVar(&g.tlsCert, "tls-cert", "", "TLS certificate file (PEM)")
	fs.StringVar(&g.tlsKey, "tls-key", "", "TLS private key file (PEM)")
	fs.StringVar(&g.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&g.metricsListen, "metrics-listen", "", "address to serve Prometheus /metrics on (off when empty)")
	fs.StringVar(&g.kioskFrameAncestors, "kiosk-frame-ancestors", "", "an origin (https://host[:port]) allowed to frame kiosk pages; other pages are never framed")
	fs.StringVar(&g.timezone, "timezone", "", "the site's time zone (an IANA name such as Europe/Berlin) of every time the panel and the kiosk's clock show (default: the host's local zone)")
	fs.Float64Var(&g.alertBattery, "alert-battery", gateway.DefaultAlertRules.BatteryBelow, "battery charge in percent under which a robot shows an alert (critical under half of it)")
}

// check validates what the flag package cannot.
func (g *gatewayFlags) check() error {
	if g.adminToken != "" && !gateway.ValidAPITokenFormat(g.adminToken) {
		return usagef("--admin-token must be fgt_ followed by 32 letters or digits")
	}
	if g.tokenTTL < time.Minute {
		return usagef("--token-ttl must be at least 1m")
	}
	if g.logFormat != "text" && g.logFormat != "json" {
		return usagef("--log-format must be text or json")
	}
	if g.alertBattery <= 0 || g.alertBattery > 100 {
		return usagef("--alert-battery must be a percentage above 0 and at most 100")
	}
	if (g.tlsCert == "") != (g.tlsKey == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	if g.timezone != "" {
		if _, err := time.LoadLocation(g.timezone); err != nil {
			return usagef("--timezone must name a time zone, such as Europe/Berlin or UTC")
		}
	}
	if g.kioskFrameAncestors != "" && !validOrigin(g.kioskFrameAncestors) {
		return usagef("--kiosk-frame-ancestors must be one origin: http(s)://host[:port], no path")
	}
	return nil
}

// validOrigin reports whether s is exactly an origin; it goes into a CSP header, so
// nothing else (spaces, semicolons, paths) may ride along.
func validOrigin(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil &&
		u.Path == "" && u.RawQuery == "" && u.Fragment == "" && !strings.ContainsAny(s, " ;,'\"\t")
}

func newLogger(format string, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func (g *gatewayFlags) config(mode server.Mode, stdout io.Writer) server.Config {
	return server.Config{
		Mode:                mode,
		Listen:              g.listen,
		DataDir:             g.data,
		PublicURL:           g.publicURL,
		AdminToken:          g.adminToken,
		TokenTTL:            g.tokenTTL,
		TLSCert:             g.tlsCert,
		TLSKey:              g.tlsKey,
		MetricsListen:       g.metricsListen,
		KioskFrameAncestors: g.kioskFrameAncestors,
		AlertBattery:        g.alertBattery,
		TimeZone:            g.timezone,
		Version:             version(),
		Logger:              newLogger(g.logFormat, os.Stderr),
		Stdout:              stdout,
	}
}

func runServe(ctx context.Context, args []string, stdout io.Writer) error {
	return runGateway(ctx, "serve", server.ModeCloud, ":8080", args, stdout)
}

func runAgent(ctx context.Context, args []string, stdout io.Writer) error {
	return runGateway(ctx, "agent", server.ModeAgent, ":19992", args, stdout)
}

// simFlags are the agent's simulated-robot flags.
type simFlags struct {
	count      int
	seed       int64
	cmdTimeout time.Duration
	clockStrip bool
}

func (s *simFlags) register(fs *flag.FlagSet, defaultCount int) {
	fs.IntVar(&s.count, "sim", defaultCount, "number of simulated robots to host (0: none)")
	fs.Int64Var(&s.seed, "sim-seed", 1, "seed of the simulated warehouse and start poses")
	fs.DurationVar(&s.cmdTimeout, "sim-cmd-timeout", time.Second, "a simulated robot brakes to a stop when no command arrived for this long")
	fs.BoolVar(&s.clockStrip, "sim-clock-strip", false, "burn each simulated camera picture's capture time into its bottom sixteenth as black and white blocks, for glass-to-glass latency benchmarks (make bench-uplink)")
}

// maxSimRobots keeps a typo from starting thousands of renderers.
const maxSimRobots = 64

func (s *simFlags) check() error {
	if s.count < 0 || s.count > maxSimRobots {
		return usagef("--sim must be between 0 and %d", maxSimRobots)
	}
	if s.cmdTimeout < 100*time.Millisecond || s.cmdTimeout > time.Minute {
		return usagef("--sim-cmd-timeout must be between 100ms and 1m")
	}
	return nil
}

func (s *simFlags) config() server.SimConfig {
	return server.SimConfig{Count: s.count, Seed: s.seed, CmdTimeout: s.cmdTimeout, ClockStrip: s.clockStrip}
}

func runGateway(ctx context.Context, name string, mode server.Mode, defaultListen string, args []string, stdout io.Writer) error {
	var g gatewayFlags
	var sim simFlags
	var cams cameraFlags
	var rosFlags ros1Flags
	var ros2 ros2Flags
	var natsCreds natsFlags
	var cloudURL, agentKey, database, natsURL, replica string
	var demoAgents int
	agentMaxRobots := gateway.DefaultAgentMaxRobots
	var liveBudget int64
	var linkCongestion string
	linkLanes := true
	var trustedProxies []netip.Prefix
	var corsOrigins []string
	var recorder recorderFlags
	var cloudQuota byteSize
	var retention time.Duration
	var teleopDelay teleop.DelayPolicy
	fs := newFlagSet(name)
	g.register(fs, defaultListen)
	cloudLive := fs.Bool("cloud-live", true, "live view and teleoperation through the cloud (W3 tunnelled over the agent link, an extension); false: the cloud answers 404 there")
	fs.Func("trusted-proxy", "proxies in front of this gateway (CIDRs or addresses, comma-separated): from them, X-Forwarded-For names the client for login limits and logs; default: nobody, the header is ignored", trustedProxyFlag(&trustedProxies))
	fs.Func("cors-origin", "origins (http(s)://host[:port], comma-separated) whose pages may call the API (/apigateway/...) from a browser with a bearer token: preflights and Access-Control-Allow-Origin, never credentials; the panel stays same-origin; default: none", corsOriginFlag(&corsOrigins))
	if mode == server.ModeAgent {
		// With no other robot source configured, the agent hosts one simulated robot.
		sim.register(fs, 1)
		cams.register(fs)
		rosFlags.register(fs)
		ros2.register(fs)
		fs.StringVar(&cloudURL, "cloud", "", "URL of the cloud gateway to link to (fleetgate serve), or the comma-separated URLs of its replicas, tried in turn; empty: run alone")
		fs.StringVar(&agentKey, "agent-key", "", "this agent's key from fleetgate agents add on the cloud (prefer FLEETGATE_AGENT_KEY: a flag shows in ps)")
		fs.Int64Var(&liveBudget, "link-live-budget", 0, "bytes per second of live samples the agent sends the cloud, shared fairly between the watched streams (0: no cap)")
		fs.StringVar(&linkCongestion, "link-congestion", "bbr", "TCP congestion control of the link's sockets: bbr (paces to the uplink, keeps its queue short), or another the kernel offers (cubic, reno); empty: the system's")
		fs.BoolVar(&linkLanes, "link-lanes", true, "send on the link in lanes: control, small live samples, pictures, then bulk (resources, recordings, the log) with what they leave; false sends bulk as fast as the link takes it, as before (to compare)")
		recorder.register(fs)
		fs.DurationVar(&teleopDelay.Full, "teleop-delay-full", teleop.DefaultDelayFull, "an operator's delay (picture age and command latency) up to which their robot may use its full speed limits")
		fs.DurationVar(&teleopDelay.Quarter, "teleop-delay-quarter", teleop.DefaultDelayQuarter, "the delay at which the limits are down to a quarter (linearly from --teleop-delay-full), and stay so")
		fs.DurationVar(&teleopDelay.Stop, "teleop-delay-stop", teleop.DefaultDelayStop, "the delay beyond which the robot is held at zero")
	} else {
		fs.StringVar(&database, "db", "", dbUsage)
		fs.StringVar(&natsURL, "nats", "", "NATS server(s) joining this process to the cloud's replicas, e.g. nats://10.0.0.5:4222 (JetStream on; needs --db postgres://... and credentials: --nats-user and FLEETGATE_NATS_PASSWORD, --nats-token, --nats-nkey-seed or --nats-cert, unless --nats-insecure); empty: one process")
		natsCreds.register(fs)
		fs.StringVar(&replica, "replica", "", "this replica's name among the others (letters, digits, - and _; default: host name and 4 random hex digits)")
		fs.IntVar(&demoAgents, "demo", 0, "run this many simulated agents in this process, each linked over loopback with one simulated robot")
		fs.IntVar(&agentMaxRobots, "agent-max-robots", agentMaxRobots, "robot records one agent may hold, offline ones included; the robots it announces beyond them are refused")
		fs.DurationVar(&retention, "recordings-retention", 0, "age past which the cloud deletes its copies of recordings, e.g. 720h (0: keeps them); a copy being downloaded waits for the download")
		fs.Var(&cloudQuota, "recordings-cloud-quota", "bytes of recordings' copies the cloud keeps per organization, e.g. 50GiB, the oldest deleted first (0: no quota)")
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := g.check(); err != nil {
		return err
	}
	if err := sim.check(); mode == server.ModeAgent && err != nil {
		return err
	}
	if err := rosFlags.check(); mode == server.ModeAgent && err != nil {
		return err
	}
	if err := ros2.check(); mode == server.ModeAgent && err != nil {
		return err
	}
	if err := recorder.check(); mode == server.ModeAgent && err != nil {
		return err
	}
	// The one default simulated robot is there only when no other source is configured.
	if (len(rosFlags.masters) > 0 || ros2.enabled) && !flagGiven(fs, "sim") {
		sim.count = 0
	}
	if err := checkDatabase(database); err != nil {
		return err
	}
	if (cloudURL == "") != (agentKey == "") {
		return usagef("--cloud and --agent-key go together")
	}
	if agentKey != "" && !strings.HasPrefix(agentKey, gateway.AgentKeyPrefix) {
		return usagef("--agent-key must be an agent key (%s...) from fleetgate agents add", gateway.AgentKeyPrefix)
	}
	if liveBudget < 0 {
		return usagef("--link-live-budget must be 0 (no cap) or a number of bytes per second")
	}
	if demoAgents < 0 || demoAgents > maxSimRobots {
		return usagef("--demo must be between 0 and %d", maxSimRobots)
	}
	if retention < 0 {
		return usagef("--recordings-retention must be 0 (keep) or an age such as 720h")
	}
	if agentMaxRobots < 1 {
		return usagef("--agent-max-robots must be at least 1")
	}
	if err := teleopDelay.Check(); err != nil {
		return usagef("--teleop-delay-full, --teleop-delay-quarter and --teleop-delay-stop: %v", err)
	}
	cfg := g.config(mode, stdout)
	cfg.TeleopDelay = teleopDelay
	cfg.Sim = sim.config()
	cfg.Cameras = cams.config()
	cfg.ROS1 = rosFlags.config()
	if mode == server.ModeAgent {
		cfg.ROS2 = ros2.config()
	}
	cfg.Cloud, cfg.AgentKey, cfg.DemoAgents = cloudURL, agentKey, demoAgents
	cfg.AgentMaxRobots = agentMaxRobots
	cfg.Database = database
	if err := natsCreds.check(fs, natsURL); err != nil {
		return err
	}
	if natsURL != "" {
		if database == "" {
			return usagef("--nats joins replicas that share one store: give --db postgres://... too")
		}
		if replica == "" {
			replica = defaultReplicaName()
		}
		cfg.NATS, cfg.NATSAuth, cfg.Replica = natsURL, natsCreds.auth, replica
	} else if replica != "" {
		return usagef("--replica names a replica: it goes with --nats")
	}
	cfg.NoCloudLive, cfg.LinkLiveBudget = !*cloudLive, liveBudget
	cfg.LinkCongestion, cfg.LinkNoLanes = linkCongestion, !linkLanes
	cfg.TrustedProxies = trustedProxies
	cfg.CORSOrigins = corsOrigins
	if mode == server.ModeAgent {
		recorder.apply(&cfg)
	}
	cfg.RecordingsRetention, cfg.RecordingsCloudQuota = retention, int64(cloudQuota)
	release, err := lockGatewayData(g.data)
	if err != nil {
		return err
	}
	defer release()
	srv, err := server.Open(ctx, cfg)
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}

func runVersion(_ context.Context, args []string, stdout io.Writer) error {
	if err := parse(newFlagSet("version"), args); err != nil {
		return err
	}
	fmt.Fprintln(stdout, stamp())
	return nil
}

// defaultReplicaName is the host's name, made fit for NATS subjects, with four random hex
// digits: two replicas on one host differ, and a restarted one starts afresh.
func defaultReplicaName() string {
	host, _ := os.Hostname()
	host = regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(host, "-")
	if len(host) > 50 {
		host = host[:50]
	}
	if host == "" {
		host = "replica"
	}
	var b [2]byte
	rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}
