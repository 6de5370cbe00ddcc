// Package servertest runs real fleetgate servers for tests: on 127.0.0.1:0, over a real
// SQLite file in t.TempDir() (or a PostgreSQL database: Database, or every cloud server
// with FLEETGATE_TEST_DB=postgres), stopped when the test ends. It also seeds data (users,
// organizations, memberships, tokens) straight into the store.
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/internal/store"
	"github.com/fleetgate/fleetgate/internal/store/postgres/pgtest"
	"github.com/fleetgate/fleetgate/server"
)

// AdminToken is the bootstrap admin's API token on every test server.
const AdminToken = "fgt_TestAdminToken0123456789abcdefgh"

// Server is a running test server.
type Server struct {
	*server.Server
	URL     string
	DataDir string
	// Store is a second handle on the server's database, for seeding and checking.
	Store *store.DB
	logs  *lockedWriter
	t     testing.TB
	stop  func() error
}

// Stop ends the server as SIGTERM does (its Run context is cancelled) and returns what Run
// returned; later calls, and the cleanup, return the same.
func (s *Server) Stop() error { return s.stop() }

// Option adjusts the config before the server opens.
type Option func(*server.Config)

// MustOpen starts a cloud gateway (unless an option says otherwise) and stops it at cleanup.
func MustOpen(t testing.TB, opts ...Option) *Server {
	t.Helper()
	dir := t.TempDir()
	logs := &lockedWriter{buf: &bytes.Buffer{}}
	cfg := server.Config{
		Mode:       server.ModeCloud,
		Listen:     "127.0.0.1:0",
		DataDir:    dir,
		AdminToken: AdminToken,
		TokenTTL:   time.Hour,
		Version:    "test",
		Logger:     slog.New(slog.NewTextHandler(logs, nil)),
		Stdout:     io.Discard,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Mode == server.ModeCloud && cfg.Database == "" && os.Getenv("FLEETGATE_TEST_DB") == "postgres" {
		// The HTTP suites on PostgreSQL: FLEETGATE_TEST_DB=postgres go test ./web/ ./server/...
		cfg.Database = pgtest.Start(t).NewDatabase(t)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.Open(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("open server: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	db, err := server.OpenStore(ctx, dir, cfg.Database)
	if err != nil {
		cancel()
		t.Fatalf("open store: %v", err)
	}
	s := &Server{Server: srv, URL: srv.URL(), DataDir: dir, Store: db, logs: logs, t: t}
	s.stop = sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			return errors.New("the server did not stop within 15 s")
		}
	})
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("server run: %v", err)
		}
		db.Close()
	})
	s.waitHealthy()
	return s
}

// Database makes MustOpen keep the cloud's store in the PostgreSQL database at url.
func Database(url string) Option { return func(c *server.Config) { c.Database = url } }

// Agent makes MustOpen start a local gateway.
func Agent(c *server.Config) { c.Mode = server.ModeAgent }

func (s *Server) waitHealthy() {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("server at %s not healthy within 10 s", s.URL)
}

// Login exchanges an API token for a bearer token (without the "bearer " scheme).
func (s *Server) Login(apiToken string) string {
	s.t.Helper()
	resp := s.Do(http.MethodPost, "/apigateway/v2/auth/login", "", `{"userToken":"`+apiToken+`"}`)
	if resp.Status != http.StatusOK {
		s.t.Fatalf("login: status %d: %s", resp.Status, resp.Body)
	}
	var out struct{ Token string }
	resp.JSON(s.t, &out)
	token, ok := strings.CutPrefix(out.Token, "bearer ")
	if !ok {
		s.t.Fatalf("login token %q does not start with \"bearer \"", out.Token)
	}
	return token
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %q: %v", r.Body, err)
	}
}

// Do sends a request; bearer may be empty, body "" sends none (JSON otherwise).
func (s *Server) Do(method, path, bearer, body string) Response {
	s.t.Helper()
	var header http.Header = http.Header{}
	if bearer != "" {
		header.Set("Authorization", "bearer "+bearer)
	}
	if body != "" {
		header.Set("Content-Type", "application/json")
	}
	return s.DoRaw(method, path, header, strings.NewReader(body))
}

// DoRaw sends a request with exactly these headers and body.
func (s *Server) DoRaw(method, path string, header http.Header, body io.Reader) Response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.URL+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// DefaultOrg returns the bootstrapped organization and its first fleet.
func (s *Server) DefaultOrg() (fleetgate.Organization, fleetgate.Fleet) {
	s.t.Helper()
	ctx := context.Background()
	org, err := s.Store.DefaultOrganization(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	fleets, err := s.Store.Fleets(ctx, org.ID)
	if err != nil || len(fleets) == 0 {
		s.t.Fatalf("fleets: %v (%d)", err, len(fleets))
	}
	return org, fleets[0]
}

// AddOrg creates another organization with one fleet.
func (s *Server) AddOrg(name string) (fleetgate.Organization, fleetgate.Fleet) {
	s.t.Helper()
	ctx := context.Background()
	org := fleetgate.Organization{ID: uuid.NewString(), Name: name}
	fleet := fleetgate.Fleet{ID: uuid.NewString(), OrgID: org.ID, Name: name + "-fleet"}
	s.must(s.Store.CreateOrganization(ctx, org))
	s.must(s.Store.CreateFleet(ctx, fleet))
	return org, fleet
}

// AddFleet creates a fleet in org.
func (s *Server) AddFleet(orgID, name string) fleetgate.Fleet {
	f := fleetgate.Fleet{ID: uuid.NewString(), OrgID: orgID, Name: name}
	s.must(s.Store.CreateFleet(context.Background(), f))
	return f
}

// AddRobot records a robot in fleet.
func (s *Server) AddRobot(fleet fleetgate.Fleet, name string) fleetgate.Robot {
	r := fleetgate.Robot{ID: uuid.NewString(), OrgID: fleet.OrgID, FleetID: fleet.ID, Name: name, CreatedAt: time.Now()}
	s.must(s.Store.CreateRobot(context.Background(), r))
	return r
}

// AddUser creates a user in org with the given roles on robots (robot id to role).
func (s *Server) AddUser(orgID, email string, orgAdmin bool, roles map[string]fleetgate.Role) fleetgate.User {
	ctx := context.Background()
	u := fleetgate.User{ID: uuid.NewString(), OrgID: orgID, Email: email, OrgAdmin: orgAdmin}
	s.must(s.Store.CreateUser(ctx, u))
	for robotID, role := range roles {
		s.must(s.Store.SetMembership(ctx, fleetgate.Membership{RobotID: robotID, UserID: u.ID, Role: role}))
	}
	return u
}

// AddToken mints an API token for a user; scope "" is full, fleetID "" unrestricted.
func (s *Server) AddToken(userID, scope, fleetID string) (secret string, token fleetgate.APIToken) {
	if scope == "" {
		scope = fleetgate.ScopeFull
	}
	secret = gateway.NewAPIToken()
	token = fleetgate.APIToken{ID: uuid.NewString(), UserID: userID, Name: "test", Scope: scope, FleetID: fleetID,
		Hash: gateway.HashSecret(secret), CreatedAt: time.Now()}
	s.must(s.Store.CreateAPIToken(context.Background(), token))
	return secret, token
}

func (s *Server) must(err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
}
