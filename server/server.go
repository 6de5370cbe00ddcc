// Package server is the composition root: it opens the store, bootstraps it, builds the
// gateway core and the HTTP routes, and runs the http.Server until it is told to stop.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/blob"
	"github.com/fleetgate/fleetgate/internal/cluster"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/kpi"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/link/cloud"
	"github.com/fleetgate/fleetgate/internal/live"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/record"
	"github.com/fleetgate/fleetgate/internal/store"
	"github.com/fleetgate/fleetgate/internal/store/postgres"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/internal/webhook"
	"github.com/fleetgate/fleetgate/server/api"
	"github.com/fleetgate/fleetgate/server/uplink"
	"github.com/fleetgate/fleetgate/web"
)

// Mode says which gateway a server is.
type Mode string

const (
	ModeCloud Mode = "cloud" // fleetgate serve
	ModeAgent Mode = "agent" // fleetgate agent: the local gateway of local-fleet
)

// Config is everything a server needs; cmd/fleetgate fills it from flags and environment.
type Config struct {
	Mode Mode
	// TeleopDelay is the speed governor's policy (docs/reliability.md, "The governor"):
	// --teleop-delay-full, --teleop-delay-quarter and --teleop-delay-stop.
	TeleopDelay teleop.DelayPolicy
	Listen      string
	DataDir     string
	// Database is a PostgreSQL URL (postgres://...) that keeps the cloud's store in
	// PostgreSQL, shared by its replicas; empty: SQLite in DataDir (always so for an agent).
	Database string
	// NATS is the NATS server (nats://..., JetStream on) that joins this cloud process to
	// its replicas, with Replica naming it; empty: this process is the whole cloud.
	NATS    string
	Replica string
	// NATSAuth is how the replica logs in to NATS and checks the server (TLS).
	NATSAuth      cluster.Auth
	PublicURL     string
	AdminToken    string
	TokenTTL      time.Duration
	TLSCert       string
	TLSKey        string
	MetricsListen string
	// AlertBattery is the battery charge, in percent, under which robots show an alert
	// (default 20).
	AlertBattery float64
	Version      string
	Logger       *slog.Logger
	// Stdout receives the one-time admin token line on a fresh data directory.
	Stdout io.Writer
	// Sim configures simulated robots; the agent hosts them (the cloud ignores it).
	Sim SimConfig
	// ROS1 are the ROS 1 robots an agent hosts, one per master (the cloud ignores it).
	ROS1 []ROS1Config
	// ROS2 is an agent's gateway to the ROS 2 graph (nil: none; the cloud ignores it).
	ROS2 *ROS2Config
	// RecordingsQuota bounds the bytes of an agent's recordings (0: record.DefaultQuota).
	RecordingsQuota int64
	// RecordingsRobotQuota bounds the bytes of one robot's recordings (0: half of
	// RecordingsQuota).
	RecordingsRobotQuota int64
	// RecordingsRetention is the age past which the cloud deletes its copies of recordings,
	// and RecordingsCloudQuota the bytes of them it keeps per organization, the oldest
	// deleted first (0: no limit; the agent ignores both).
	RecordingsRetention  time.Duration
	RecordingsCloudQuota int64
	// FlightBuffer, FlightBufferMax and FlightAfter are the flight recorder's (an agent's):
	// how far back each robot's buffer reaches (0: no flight recorder), its byte cap per
	// robot (0: record.DefaultFlightMaxBytes) and how long a flight recording goes on after
	// its trigger (0: record.DefaultFlightAfter).
	FlightBuffer    time.Duration
	FlightBufferMax int64
	FlightAfter     time.Duration
	// Cloud is the cloud gateway's URL an agent links to, with AgentKey; empty: the agent
	// runs alone.
	Cloud    string
	AgentKey string
	// AgentMaxRobots is how many robot records one agent may hold on the cloud; the robots it
	// announces beyond them are refused (0: gateway.DefaultAgentMaxRobots).
	AgentMaxRobots int
	// DemoAgents is how many simulated agents a cloud runs in-process, each linked over
	// loopback and hosting one simulated robot (fleetgate serve --demo N).
	DemoAgents int
	// NoCloudLive turns the cloud's live view off: W3 through the agent link (an extension,
	// on by default) answers the contract's 404 then, and agents open no live connection.
	NoCloudLive bool
	// LinkLiveBudget caps an agent's live samples to the cloud, in bytes per second (0: none).
	LinkLiveBudget int64
	// LinkCongestion is the TCP congestion control of the agent link's sockets ("": the
	// system's); LinkNoLanes sends bulk as fast as the link takes it (for comparison).
	LinkCongestion string
	LinkNoLanes    bool
	// KioskFrameAncestors is the one origin allowed to frame the panel's kiosk pages.
	KioskFrameAncestors string
	// TimeZone is the site's time zone (an IANA name, --timezone): every time the panel
	// shows and the kiosk's clock are in it; empty: the host's local zone.
	TimeZone string
	// TrustedProxies are the proxies in front of this gateway (--trusted-proxy): from a peer
	// in one of them, X-Forwarded-For names the client (clientaddr.go); none: never believed.
	TrustedProxies []netip.Prefix
	// CORSOrigins are the origins whose pages may call the API (/apigateway/...) from a
	// browser with a bearer token (--cors-origin); none: same-origin only.
	CORSOrigins []string
	// Panel adjusts the panel (tests inject its clock and timeouts); nil: defaults.
	Panel *web.Config
	// Cameras configures the agent's cameras (the cloud ignores it).
	Cameras CameraConfig
}

// Server is one running gateway.
type Server struct {
	cfg     Config
	log     *slog.Logger
	db      *store.DB
	gw      *gateway.Gateway
	door    *door.Door // the one way to the input streams of the robots hosted here
	journal *journal   // the door's changes, as teleop entries of the event log
	// zone is the site's time zone, named zoneName for browsers (panel.go).
	zone     *time.Location
	zoneName string
	// webhooks posts the alerts nobody acknowledged in time (alerts.go).
	webhooks *webhook.Sender
	echo     *echo.Echo
	http     *http.Server
	ln       net.Listener
	metrics  *http.Server
	metLn    net.Listener
	ready    atomic.Bool

	registry *fleet.Registry
	cluster  *cluster.Node   // the cloud's replicas over NATS; nil: one process
	cutOff   *cutOffWatch    // whether this replica reaches neither NATS nor the store; nil: one process
	sessions *live.Sessions  // W3
	kpis     *kpi.Hub        // W1/W2
	acceptor *cloud.Acceptor // the cloud's end of the agent link
	events   *eventOutbox    // a linked agent's event log, forwarded to the cloud
	uplink   *uplink.Agent   // the agent's end, when linked to a cloud
	logFile  *os.File
	// tlsFingerprint is the SHA-256 of the local gateway's certificate (agent mode).
	tlsFingerprint string
	// closers stop the robot sources, newest first, before the store closes.
	closers []func()
	cams    *cameras // the agent's camera source
	// recorder records the robots an agent hosts (internal/record).
	recorder *record.Recorder
	// video is the process's H.264 encoders: one per camera serves its viewers (the gateway)
	// and its recordings.
	video *video.Encoders
}

// DatabaseFile is the store's file inside a data directory.
func DatabaseFile(dataDir string) string { return filepath.Join(dataDir, "fleetgate.db") }

// Open prepares a server: data directory, store, bootstrap, routes and listeners. The
// listeners are bound here so that Addr is known before Run.
func Open(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	if cfg.Database != "" && cfg.Mode != ModeCloud {
		return nil, errors.New("--db is for the cloud gateway (fleetgate serve); an agent keeps its store in its data directory")
	}
	if cfg.NATS != "" && (cfg.Mode != ModeCloud || !strings.HasPrefix(cfg.Database, "postgres")) {
		return nil, errors.New("--nats joins cloud replicas, which share their store: it needs fleetgate serve --db postgres://...")
	}
	zone, zoneName, err := siteZone(cfg.TimeZone)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, zone: zone, zoneName: zoneName}
	if len(cfg.TrustedProxies) > 0 {
		s.log.Info("X-Forwarded-For names the client when the peer is a trusted proxy", "trusted_proxies", fmt.Sprint(cfg.TrustedProxies))
	}
	db, err := OpenStore(ctx, cfg.DataDir, cfg.Database)
	if err != nil {
		return nil, err
	}
	s.db = db
	if cfg.Database != "" {
		s.log.Info("store in PostgreSQL", "db", db.Path())
	}
	if cfg.Mode == ModeAgent {
		// The agent's log is one of the resources its robots offer.
		if err := s.teeLog(); err != nil {
			db.Close()
			return nil, err
		}
	}
	signer, err := s.openSigner(ctx)
	if err != nil {
		s.closeFiles()
		return nil, fmt.Errorf("download signing key: %w", err)
	}
	s.registry = fleet.NewRegistry(tracker{s}, s.log, nil)
	var archive *cloud.Archive
	if cfg.Mode == ModeCloud {
		dir, err := blob.OpenDir(ResourceDir(cfg.DataDir))
		if err != nil {
			s.closeFiles()
			return nil, err
		}
		archive = cloud.NewArchive(dir)
	}
	var presence gateway.Presence = s.registry
	if cfg.NATS != "" {
		if err := s.openCluster(ctx, archive); err != nil {
			s.closeFiles()
			return nil, err
		}
		presence = s.cluster
	}
	revoking := revokingStore{DB: db, revoked: func() { s.tokensChanged(true) }}
	s.journal = newJournal(s.log)
	s.door = door.New(door.Config{Log: s.log, Journal: s.doorChanged, Published: s.commandSent, Delay: cfg.TeleopDelay,
		// The core is made after the door; it is set before any session can begin.
		Delays: func(ctx context.Context, robotID string) teleop.DelayPolicy {
			return s.gw.TeleopDelayPolicy(ctx, robotID)
		}})
	s.webhooks = webhook.New(webhook.Config{Log: s.log})
	s.video = video.New()
	gwCfg := gateway.Config{
		Video:              s.video,
		Door:               s.door,
		Store:              revoking,
		Presence:           presence,
		Signer:             signer,
		BearerTTL:          cfg.TokenTTL,
		LatestAgentVersion: cfg.Version,
		Logger:             s.log,
		AlertRules:         gateway.AlertRules{BatteryBelow: cfg.AlertBattery},
		AgentMaxRobots:     cfg.AgentMaxRobots,
		AlertJournal:       s.alertChanged,
		Escalator:          escalations{s.webhooks},
		TeleopDelay:        cfg.TeleopDelay,
		// The acceptor is made after the core; it is set before anything is served.
		AgentLinks: func(agentID string) (time.Time, bool) {
			if s.acceptor == nil {
				return time.Time{}, false
			}
			if at, ok := s.acceptor.LastHeard(agentID); ok || s.cluster == nil {
				return at, ok
			}
			return s.cluster.AgentLastHeard(agentID)
		},
	}
	if archive != nil {
		gwCfg.Archive = archive // a nil *cloud.Archive in the interface would not be nil
	}
	if cfg.Mode == ModeAgent {
		if s.cams, err = openCameras(cfg.Cameras, s.log); err != nil {
			s.closeFiles()
			return nil, err
		}
		gwCfg.Cameras = s.cams.gatewayCameras()
	}
	if cfg.Mode == ModeAgent && cfg.Cloud != "" {
		s.events = newEventOutbox()
		gwCfg.EventPosted = s.events.notify
	}
	s.gw = gateway.New(gwCfg)
	if s.cluster != nil {
		s.gw.ShareLoginFailures(func(f gateway.LoginFailure) {
			s.cluster.PublishLoginFailure(f.Limit, f.Key, f.At, f.Forgiven)
		})
	}
	if s.events != nil {
		s.events.gw = s.gw
	}
	s.journal.record = s.gw.RecordEvent
	s.openKPIs()
	if err := s.openLink(archive); err != nil {
		s.closeFiles()
		return nil, err
	}
	if err := s.bootstrap(ctx); err != nil {
		s.closeFiles()
		return nil, err
	}

	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.echo = s.routes(newHTTPMetrics(registry))

	if err := s.listen(registry); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

// closeFiles closes the store and the log file.
func (s *Server) closeFiles() error {
	if s.cluster != nil {
		s.cluster.Close() // after the links ended (Run): their claims are released
	}
	err := s.db.Close()
	if s.logFile != nil {
		s.logFile.Close()
	}
	return err
}

// OpenStore opens the store: the PostgreSQL database at database when it is a URL, else
// SQLite in the data directory. The data directory is created (mode 0700: it holds token
// hashes and keys) when it does not exist, for the files a server keeps beside the store.
func OpenStore(ctx context.Context, dataDir, database string) (*store.DB, error) {
	if dataDir == "" {
		return nil, errors.New("a data directory is required (--data)")
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating data directory: %w", err)
	}
	if database != "" {
		return postgres.Open(ctx, database)
	}
	return store.Open(ctx, DatabaseFile(dataDir))
}

func (s *Server) bootstrap(ctx context.Context) error {
	opt := gateway.BootstrapOptions{FleetName: "default", AdminToken: s.cfg.AdminToken}
	if s.cfg.Mode == ModeAgent {
		opt.FleetID, opt.FleetName = fleetgate.LocalFleetID, fleetgate.LocalFleetID
	}
	token, created, err := s.gw.Bootstrap(ctx, opt)
	if fleetgate.ErrorCode(err) == fleetgate.EConflict {
		// Another replica on the same database bootstrapped it a moment ago: take the store
		// as that one left it.
		token, created, err = s.gw.Bootstrap(ctx, opt)
	}
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if created {
		s.log.Info("bootstrapped a new data directory", "data", s.cfg.DataDir, "admin", gateway.BootstrapAdminEmail, "fleet", opt.FleetName)
	}
	if token != "" {
		// Printed once, on stdout only: it never goes to the log.
		fmt.Fprintf(s.cfg.Stdout, "admin API token: %s\n", token)
	}
	return nil
}

func (s *Server) routes(metrics *httpMetrics) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// Never trust X-Forwarded-For unless a deployment says so: the login limit is per address.
	e.IPExtractor = clientAddress(s.cfg.TrustedProxies)
	e.HTTPErrorHandler = api.ErrorHandler(s.log)
	e.Use(api.SafeHeaders)
	e.Use(observe(s.log, metrics))
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.log.Error("panic", "route", c.Path(), "err", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(api.LimitBody)
	if len(s.cfg.CORSOrigins) > 0 {
		e.Use(api.CORS(s.cfg.CORSOrigins))
	}

	e.GET("/healthz", s.healthz)
	e.GET("/openapi.json", api.OpenAPI)
	if s.sessions == nil {
		s.sessions = live.NewSessions(s.log)
	}
	apiOpts := api.Options{PublicURL: s.cfg.PublicURL, LiveStreams: s.liveStreams(), Sessions: s.sessions,
		KPIs: s.kpis, LocalFleetOnly: s.cfg.Mode == ModeAgent}
	svc := s.apiServices()
	// Panel socket tokens are spent before any upgrade route authenticates them.
	e.Use(api.SpendSocketTokens(svc.Accounts))
	api.Register(e, svc, apiOpts)
	panel := s.mountPanel(e, svc, apiOpts)
	// echo's router answers an unknown address with ErrNotFound: the panel's page, unless
	// a program asked.
	e.HTTPErrorHandler = panelNotFound(e.HTTPErrorHandler, panel.NotFound)
	if s.acceptor != nil {
		e.GET(link.Path, s.agentLink)
		if !s.cfg.NoCloudLive {
			e.GET(link.LivePath, s.agentLive)
		}
	}
	e.GET(gateway.FilesPrefix+":resourceId", api.Files(s.gw.AgentService))
	e.HEAD(gateway.FilesPrefix+":resourceId", api.Files(s.gw.AgentService))
	return e
}

// apiServices hands each route group of the API the service of the core it uses: only here,
// at the composition root, are they one Gateway.
func (s *Server) apiServices() api.Services {
	return api.Services{
		Accounts:       s.gw.AccountService,
		Robots:         s.gw.RobotService,
		Fleets:         s.gw.RobotService,
		Resources:      s.gw.AgentService,
		Streams:        s.gw.StreamService,
		Metrics:        s.gw.StreamService,
		Events:         s.gw.EventService,
		Recordings:     s.gw.StreamService,
		Downloads:      s.gw.AgentService,
		Alerts:         s.gw.AlertService,
		TeleopSettings: s.gw.TeleopSettingsService,
		Supervisors:    s.gw.SupervisorService,
		Live:           s.gw.StreamService,
		Foxglove:       s.gw.StreamService,
		ToolTokens:     s.gw.AccountService,
		SecondStreams:  s.gw.NewLimitedStreams(),
	}
}

// liveStreams says whether this gateway serves W3: the local gateway does, and the cloud
// through the agent link unless its live view is off.
func (s *Server) liveStreams() bool {
	return s.cfg.Mode == ModeAgent || !s.cfg.NoCloudLive
}

func (s *Server) healthz(c echo.Context) error {
	if !s.ready.Load() {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "starting"})
	}
	if s.cutOff.CutOff() {
		// A balancer sends this replica's clients and agents to another meanwhile.
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "cut off", "reason": cutOffReason})
	}
	body := map[string]string{"status": "ok", "mode": string(s.cfg.Mode), "version": s.cfg.Version}
	if s.uplink != nil {
		// The local gateway is healthy either way; this says whether the cloud sees it.
		body["cloud"] = "unlinked"
		if s.uplink.Connected() {
			body["cloud"] = "linked"
		}
		// The link's TCP congestion control (bbr where the kernel offers it): on a site's
		// slow uplink it decides how long pictures and commands queue.
		if cc := s.uplink.Congestion(); cc != "" {
			body["linkCongestion"] = cc
		}
	}
	return c.JSON(http.StatusOK, body)
}

func (s *Server) listen(registry *prometheus.Registry) error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Listen, err)
	}
	s.ln = ln
	s.http = &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       api.WithConn,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	switch {
	case s.cfg.Mode == ModeAgent:
		// HTTP and HTTPS on the one port (localtls.go).
		cert, err := s.localCert()
		if err != nil {
			ln.Close()
			return err
		}
		s.http.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.ln = newDualListener(ln, s.http.TLSConfig)
	case s.cfg.TLSCert != "":
		cert, err := tls.LoadX509KeyPair(s.cfg.TLSCert, s.cfg.TLSKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("loading TLS certificate: %w", err)
		}
		s.http.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.ln = tls.NewListener(ln, s.http.TLSConfig)
	}
	if s.cfg.MetricsListen != "" {
		mln, err := net.Listen("tcp", s.cfg.MetricsListen)
		if err != nil {
			ln.Close()
			return fmt.Errorf("listen on %s for metrics: %w", s.cfg.MetricsListen, err)
		}
		s.metLn = mln
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
		// Go's profiles on the operators' address only, never the public one: what a replica
		// spends its CPU and memory on, under a real load.
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		s.metrics = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	}
	return nil
}

// Addr is the address the API listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// MetricsAddr is the metrics listener's address, nil when metrics are off.
func (s *Server) MetricsAddr() net.Addr {
	if s.metLn == nil {
		return nil
	}
	return s.metLn.Addr()
}

// localCert is the agent's certificate for HTTPS on its port: --tls-cert's, or the one it made
// itself (loadOrCreateLocalCert). Its fingerprint is logged, and shown on the admin page.
func (s *Server) localCert() (tls.Certificate, error) {
	var cert tls.Certificate
	var err error
	if s.cfg.TLSCert != "" {
		cert, err = tls.LoadX509KeyPair(s.cfg.TLSCert, s.cfg.TLSKey)
	} else {
		cert, err = loadOrCreateLocalCert(s.cfg.DataDir)
	}
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("loading TLS certificate: %w", err)
	}
	s.tlsFingerprint = certFingerprint(cert)
	s.log.Info("HTTP and HTTPS on the same port; the certificate's SHA-256 fingerprint", "sha256", s.tlsFingerprint)
	return cert, nil
}

// TLSFingerprint is the SHA-256 fingerprint of the local gateway's certificate ("" on a cloud).
func (s *Server) TLSFingerprint() string { return s.tlsFingerprint }

// URL is the server's base URL as a client on this machine reaches it (plain HTTP on a local
// gateway, which answers HTTPS on the same port too).
func (s *Server) URL() string {
	scheme := "http"
	if s.cfg.TLSCert != "" && s.cfg.Mode != ModeAgent {
		scheme = "https"
	}
	addr := s.ln.Addr().(*net.TCPAddr)
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "localhost"
	}
	return fmt.Sprintf("%s://%s", scheme, net.JoinHostPort(host, fmt.Sprint(addr.Port)))
}

// Gateway is the core, for in-process callers such as the demo.
func (s *Server) Gateway() *gateway.Gateway { return s.gw }

// Run serves until ctx is cancelled, then shuts down gracefully: no new connections, and
// requests in flight get up to 10 s to finish. It closes the store before returning.
func (s *Server) Run(ctx context.Context) error {
	defer s.closeFiles()
	// runCtx ends only at stop(), not with ctx: the robot sources, which end with it, must
	// still take the zero commands that the shutdown sends to driven robots.
	runCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	defer s.stopRobots()
	if s.cfg.Mode == ModeAgent {
		if err := s.startRobots(runCtx); err != nil {
			s.ln.Close()
			if s.metLn != nil {
				s.metLn.Close()
			}
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	serve := func(srv *http.Server, ln net.Listener) {
		defer wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs <- err
		}
	}
	wg.Add(1)
	go serve(s.http, s.ln)
	if s.metrics != nil {
		wg.Add(1)
		go serve(s.metrics, s.metLn)
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.purgeBearerTokens(runCtx)
	}()
	wg.Go(func() { s.journal.run(runCtx) })
	s.runAlerts(runCtx, &wg)
	s.runLink(runCtx, &wg)
	s.runCluster(runCtx, &wg)
	s.runKPIs(runCtx, &wg)
	s.runRetention(runCtx, &wg)
	go func() {
		defer wg.Done()
		s.registry.KeepSeen(runCtx, keepSeenPeriod)
	}()
	s.ready.Store(true)
	s.log.Info("listening", "mode", s.cfg.Mode, "url", s.URL())
	if s.metLn != nil {
		s.log.Info("metrics listening", "url", "http://"+s.metLn.Addr().String())
	}

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errs:
	}
	s.ready.Store(false)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Hijacked WebSockets are not waited for by Shutdown: zero the controlled robots and
	// close the sockets (1001) first, while the robot sources, which end with runCtx, can
	// still take the zero.
	socketsErr := s.sessions.Shutdown(shutdownCtx)
	// Then every stream still driven (a REST upload's lease, a cloud operator's control) gets
	// its zero, and the door takes no more commands.
	s.door.Close()
	stop()
	shutdownErr := errors.Join(socketsErr, s.http.Shutdown(shutdownCtx))
	if s.metrics != nil {
		shutdownErr = errors.Join(shutdownErr, s.metrics.Shutdown(shutdownCtx))
	}
	wg.Wait()
	s.log.Info("stopped", "mode", s.cfg.Mode)
	return errors.Join(runErr, shutdownErr)
}

// purgeBearerTokens deletes expired bearer tokens hourly so the table stays small.
func (s *Server) purgeBearerTokens(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := s.gw.PurgeExpiredBearerTokens(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("purging expired bearer tokens failed", "err", err)
		} else if n > 0 {
			s.log.Debug("purged expired bearer tokens", "count", n)
		}
		s.purgeSessions(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// OpenOffline opens an existing store for the offline admin commands (the CLI), which may
// run while servers use it: SQLite's WAL allows it, and PostgreSQL is shared anyway. The
// store is the PostgreSQL database at database when given, else SQLite in dataDir. It
// refuses a store no server has initialised, instead of starting an empty one by a typo.
func OpenOffline(ctx context.Context, dataDir, database string) (*gateway.Gateway, func() error, error) {
	if database == "" {
		if _, err := os.Stat(DatabaseFile(dataDir)); err != nil {
			return nil, nil, fmt.Errorf("no fleetgate data in %s (start fleetgate serve or agent with --data %s once to create it)", dataDir, dataDir)
		}
		db, err := store.Open(ctx, DatabaseFile(dataDir))
		if err != nil {
			return nil, nil, err
		}
		return gateway.New(gateway.Config{Store: db}), db.Close, nil
	}
	db, err := postgres.Open(ctx, database)
	if err != nil {
		return nil, nil, err
	}
	if _, err := db.DefaultOrganization(ctx); err != nil {
		db.Close()
		if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
			return nil, nil, fmt.Errorf("no fleetgate data in %s (start fleetgate serve --db once to create it)", db.Path())
		}
		return nil, nil, err
	}
	return gateway.New(gateway.Config{Store: db}), db.Close, nil
}

// Close releases a server that was opened but never run.
func (s *Server) Close() error {
	s.ln.Close()
	if s.metLn != nil {
		s.metLn.Close()
	}
	return s.closeFiles()
}

// stopRobots stops the robot sources, newest first; their robots go offline with their
// last-seen time recorded.
func (s *Server) stopRobots() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// Sessions tracks the open live stream sessions (W3).
func (s *Server) Sessions() *live.Sessions { return s.sessions }

// Registry is the registry of connected robots, for in-process callers and tests.
func (s *Server) Registry() *fleet.Registry { return s.registry }

// Routes lists the server's HTTP routes (the route audit walks them).
func (s *Server) Routes() []*echo.Route { return s.echo.Routes() }

// openSigner is the signing key of download links: in the data directory, or, on a database
// that several replicas share (--db), in that database, so that a link one replica signed is
// valid at every other.
func (s *Server) openSigner(ctx context.Context) (*blob.Signer, error) {
	if s.cfg.Database == "" {
		return blob.LoadOrCreateSigner(filepath.Join(s.cfg.DataDir, "download-signing.key"))
	}
	key, err := s.db.SharedSecret(ctx, "download-signing-key", blob.NewSecretHex)
	if err != nil {
		return nil, err
	}
	return blob.SignerFromHex(key)
}
