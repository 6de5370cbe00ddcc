package server

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The house's floors and the rules that keep them (DESIGN.md section 2, docs/architecture.md).
// Packages are named inside the module; its root package, the domain's types and its coded
// error (every layer's vocabulary), is "".

// room is a group of packages with one job; a floor holds one or more rooms side by side.
type room struct {
	name, job string
	pkgs      []string
}

// floors are the house, top to bottom. A package may import packages of its own room and of
// the floors below, never a floor above (nothing runs back up) nor another room of its own
// floor: the core and the robot sources, side by side, know nothing of each other. Every
// package of the module is in one room; docs/packages.md draws them.
var floors = [][]room{
	{{"binaries", "the fleetgate command, the bench tools, the docs' link check",
		[]string{"cmd/fleetgate", "bench/gateway", "bench/loadclient", "bench/w1client", "bench/kpiclient", "docs", "packaging"}}},
	{{"composition root", "builds everything and runs the server; real servers for tests",
		[]string{"server", "server/servertest"}}},
	{{"adapters", "HTTP, the panel and the store, around the core",
		[]string{"server/api", "server/uplink", "web", "views", "static", "internal/store", "internal/store/postgres", "internal/store/storetest"}}},
	{
		{"core", "one method per operation: roles, scopes, leases, the store's interfaces",
			[]string{"internal/gateway"}},
		{"robot sources", "robots that implement the robot contract: simulated, ROS 1, ROS 2, cameras, behind the agent link, on another replica",
			[]string{"internal/source/sim", "internal/source/ros1", "internal/source/ros1/rosnode", "internal/source/ros1/tcpros",
				"internal/source/ros1/xmlrpc", "internal/source/ros1/rostest", "internal/source/ros2", "internal/source/ros2/dds",
				"internal/source/ros2/ros2test", "internal/source/rosmsg", "internal/source/camera", "internal/source/camera/scale",
				"internal/source/camera/gstreamer", "internal/source/camera/cameratest",
				"internal/source/rosgraph", "internal/link", "internal/link/cloud", "internal/cluster"}},
	},
	{{"robot contract and live engines", "the robot contract and its door, live sessions, teleop policy, the KPI hub, the recorder, the alert tracker and its webhooks",
		[]string{"internal/fleet", "internal/fleet/fleettest", "internal/door", "internal/door/doortest", "internal/live",
			"internal/live/output", "internal/live/teleop", "internal/live/foxglove", "internal/kpi", "internal/record",
			"internal/alert", "internal/webhook", "internal/video", "internal/video/videotest"}}},
	{{"libraries", "one job each, knowing nothing of robots' rules",
		[]string{"internal/clock", "internal/clock/clocktest", "internal/logtest", "internal/edge", "internal/limit", "internal/mcap", "internal/mcap/mcaptest",
			"internal/blob", "internal/clockstrip", "internal/hoststat", "internal/netshape", "internal/cluster/natstest", "internal/store/postgres/pgtest"}}},
	{{"vocabulary", "the root package's domain types and coded error, the message catalog, the wire types",
		[]string{"", "internal/msgs", "proto/catalogpb", "proto/streampb", "proto/linkpb", "proto/clusterpb", "proto/foxglovepb"}}},
}

// rule states what one package imports of this module, exactly: a new import is a decision
// made here, and an allowance the code no longer uses is removed, so the rules say what the
// code does. mayNot names outside packages it must not depend on, even indirectly (an entry
// ending in "/" stands for every package under it).
type rule struct {
	pkg    string
	may    []string
	mayNot []string
	why    string
}

var (
	noSQL  = []string{"database/sql", "modernc.org/", "github.com/jackc/"}
	noHTTP = []string{"net/http", "github.com/labstack/", "github.com/coder/websocket"}
	noEcho = []string{"github.com/labstack/"}
)

const (
	whySource  = "robot sources implement fleet.Robot over the root vocabulary and take commands from the door; they know nothing of the core, the store or HTTP"
	whyBench   = "bench tools run the real thing from outside"
	whyLibrary = "a library with one job knows nothing of robots or gateways"
)

var rules = []rule{
	// Binaries.
	{"cmd/fleetgate", []string{"", "internal/cluster", "internal/gateway", "internal/live/teleop", "internal/record", "internal/source/camera", "internal/source/camera/gstreamer",
		"internal/source/ros1", "internal/source/ros2", "internal/source/ros2/dds", "internal/store", "internal/store/postgres", "server"}, nil,
		"the command turns flags into the server's configuration; the offline admin commands open the core on the store (backup and restore: its file)"},
	{"bench/gateway", []string{"", "internal/fleet/fleettest", "proto/catalogpb", "server"}, nil, whyBench},
	{"bench/loadclient", nil, nil, whyBench + ": it speaks only the wire"},
	{"bench/w1client", nil, nil, whyBench + ": it speaks only the wire"},
	{"bench/kpiclient", nil, nil, whyBench + ": it speaks only the wire"},
	{"docs", nil, nil, "the docs' package holds only their test"},
	{"packaging", nil, nil, "the Debian packages' directory holds only their test"},

	// The composition root.
	{"server", []string{"", "internal/alert", "internal/blob", "internal/cluster", "internal/door", "internal/fleet", "internal/gateway", "internal/hoststat",
		"internal/kpi", "internal/link", "internal/link/cloud", "internal/live", "internal/live/teleop", "internal/record",
		"internal/source/camera", "internal/source/ros1", "internal/source/ros2", "internal/source/sim", "internal/store",
		"internal/store/postgres", "internal/video", "internal/webhook", "server/api", "server/uplink", "web"}, nil,
		"the composition root builds the core, its adapters and the robot sources"},
	{"server/servertest", []string{"", "internal/gateway", "internal/store", "internal/store/postgres/pgtest", "server"}, nil,
		"real servers for tests, seeded through the core and the store"},

	// Adapters. server/api and web take the core's services; part 1 of issue 30 narrows them
	// to small interfaces, and their rows then lose internal/fleet, internal/kpi, internal/live...
	{"server/api", []string{"", "internal/edge", "internal/fleet", "internal/gateway", "internal/kpi", "internal/live",
		"internal/live/foxglove", "internal/live/output", "internal/live/teleop"}, noSQL,
		"the API reaches data only through the core, never the store or a robot source"},
	{"server/uplink", []string{"", "internal/clock", "internal/fleet", "internal/link", "internal/live", "internal/live/output",
		"internal/live/teleop", "internal/source/camera/scale", "internal/video", "proto/catalogpb", "proto/linkpb"}, concat(noSQL, noEcho),
		"the agent's end of the link: an adapter over the agent's core (uplink.Core), which it declares; it knows no gateway, registry or door, and shrinks JPEG pictures to fit the uplink (camera/scale)"},
	{"web", []string{"", "internal/edge", "internal/gateway", "static", "views"}, noSQL,
		"the panel reaches data only through the core, never the store or a robot source"},
	{"views", []string{"", "static"}, concat(noSQL, noEcho, []string{"github.com/alexedwards/scs/", "github.com/coder/websocket"}),
		"templ components are pure functions of their arguments"},
	{"static", nil, nil, "the embedded assets"},
	{"internal/store", []string{"", "internal/gateway"}, []string{"github.com/jackc/"},
		"the store implements the core's interfaces; its shared queries know no driver but SQLite's (PostgreSQL's stays in internal/store/postgres)"},
	{"internal/store/postgres", []string{"internal/store"}, nil, "the PostgreSQL backend of the same store (beside SQLite's)"},
	{"internal/store/storetest", []string{"", "internal/gateway", "internal/store"}, nil, "the conformance suite both backends run"},

	// The core.
	{"internal/gateway", []string{"", "internal/alert", "internal/door", "internal/fleet", "internal/kpi", "internal/limit", "internal/live", "internal/live/teleop",
		"internal/mcap", "internal/msgs", "internal/video", "proto/catalogpb"}, concat(noSQL, []string{"net/http", "github.com/labstack/"}),
		"the core knows no HTTP and no SQL driver; it is above the robot contract and the live sessions, and states the interfaces it needs"},

	// Robot sources.
	{"internal/source/sim", []string{"", "internal/clockstrip", "internal/door", "internal/fleet", "internal/hoststat", "internal/msgs", "proto/catalogpb"}, noSQL, whySource},
	{"internal/source/camera", []string{"", "internal/clock", "internal/fleet", "internal/source/camera/scale", "internal/video", "proto/catalogpb"}, concat(noSQL, noEcho), whySource},
	{"internal/source/camera/scale", nil, nil, whyLibrary},
	{"internal/source/camera/gstreamer", nil, nil, "GStreamer's RTSP server as a peer (the demo, tests)"},
	{"internal/source/camera/cameratest", []string{"internal/source/camera/gstreamer"}, nil, "cameras for tests"},
	{"internal/source/ros1", []string{"", "internal/fleet", "internal/hoststat", "internal/source/ros1/rosnode", "internal/source/rosgraph",
		"internal/source/rosmsg"}, noSQL, whySource + " (the ROS node's own XML-RPC server aside)"},
	{"internal/source/ros1/rosnode", []string{"internal/source/ros1/tcpros", "internal/source/ros1/xmlrpc"}, noSQL, "a ROS 1 node carries bytes and knows nothing of robots"},
	{"internal/source/ros1/tcpros", nil, nil, whyLibrary},
	{"internal/source/ros1/xmlrpc", nil, nil, whyLibrary},
	{"internal/source/ros1/rostest", []string{"internal/source/ros1/xmlrpc"}, nil, "a real ROS master for tests"},
	{"internal/source/ros2", []string{"", "internal/fleet", "internal/hoststat", "internal/source/ros2/dds", "internal/source/rosgraph",
		"internal/source/rosmsg"}, concat(noSQL, []string{"net/http"}), whySource},
	{"internal/source/rosgraph", []string{"", "internal/door", "internal/fleet", "internal/hoststat", "internal/msgs", "internal/source/rosmsg", "internal/video", "proto/catalogpb"}, noSQL,
		"the ROS-graph robot written once for ROS 1 and ROS 2 (topics as streams, metrics, teleop input, battery and pose) over a transport each implements"},
	{"internal/source/ros2/dds", nil, concat(noSQL, []string{"net/http"}), "the DDS transport carries bytes and knows nothing of robots"},
	{"internal/source/ros2/ros2test", nil, nil, "ROS 2 peers for tests"},
	{"internal/source/rosmsg", []string{"proto/catalogpb"}, []string{"net", "net/http"}, "ROS message codecs (ROS 1 and CDR) are pure functions of bytes and the catalog"},
	{"internal/link", []string{"", "internal/door", "internal/edge", "internal/fleet", "proto/catalogpb", "proto/linkpb"}, concat(noSQL, noEcho),
		"the agent link's wire protocol, shared by both ends"},
	{"internal/link/cloud", []string{"", "internal/blob", "internal/fleet", "internal/link", "internal/video", "proto/linkpb"}, concat(noSQL, noEcho),
		"the agent link is a robot source on the cloud; it states what it needs from the core (cloud.Core)"},
	{"internal/cluster", []string{"", "internal/door", "internal/fleet", "internal/link", "internal/link/cloud", "proto/clusterpb", "proto/linkpb"},
		concat(noSQL, noEcho), "the replicas' cluster is the core's Presence over NATS: robots held elsewhere are robot sources; it knows nothing of the core or the store"},

	// The robot contract and the live engines.
	{"internal/fleet", []string{"", "internal/msgs"}, concat(noSQL, []string{"net/http"}), "the robot contract is below the core"},
	{"internal/fleet/fleettest", []string{"", "internal/door", "internal/fleet", "proto/catalogpb"}, nil, "scriptable robots for tests"},
	{"internal/door", []string{"", "internal/clock", "internal/fleet", "internal/live/teleop", "internal/msgs"}, concat(noSQL, noHTTP),
		"the one way to a robot's input streams: the teleop policy over the robot contract, below the core, no HTTP"},
	{"internal/door/doortest", []string{"", "internal/door", "internal/fleet"}, concat(noSQL, noHTTP), "sources' tests send commands through a door"},
	{"internal/live", []string{"", "internal/fleet", "internal/kpi", "internal/live/foxglove", "internal/live/output", "internal/live/teleop",
		"internal/msgs"}, concat(noSQL, noHTTP),
		"live sessions run over a connection interface on grants the core hands out: no HTTP, no socket library, no core"},
	{"internal/live/output", []string{"", "internal/msgs", "proto/catalogpb", "proto/foxglovepb", "proto/streampb"}, concat(noSQL, noHTTP),
		"W3 and Foxglove output frames are built from samples alone"},
	{"internal/live/foxglove", []string{"internal/mcap", "proto/catalogpb", "proto/foxglovepb"}, concat(noSQL, noHTTP),
		"the Foxglove protocol's framing and schemas are pure: the session is internal/live's"},
	{"internal/live/teleop", []string{"", "internal/clock", "internal/msgs", "proto/catalogpb"}, concat(noSQL, noHTTP),
		"the teleop policy is pure: commands, limits, the rate cap and the deadman"},
	{"internal/kpi", []string{"", "internal/fleet", "internal/msgs"}, concat(noSQL, []string{"net/http"}),
		"the KPI hub states what it needs (Source); the core and the HTTP layer are above it"},
	{"internal/record", []string{"", "internal/clock", "internal/fleet", "internal/mcap", "internal/msgs", "internal/video", "proto/catalogpb", "proto/foxglovepb"}, concat(noSQL, []string{"net/http"}),
		"the recorder is a subscriber of the robot contract, below the core and the HTTP layers"},

	{"internal/video", []string{"", "internal/fleet", "proto/catalogpb"}, concat(noSQL, noHTTP),
		"camera streams as H.264 (ffmpeg's libx264, or the camera's own), subscribers of the robot contract, below the core"},
	{"internal/video/videotest", nil, concat(noSQL, noHTTP), "H.264 decoded for tests by Debian's ffmpeg, knowing nothing of robots"},
	{"internal/alert", []string{""}, concat(noSQL, noHTTP),
		"the alert tracker keeps what the core derives: no robots, no store, no HTTP"},
	{"internal/webhook", []string{"", "internal/clock"}, concat(noSQL, noEcho),
		"the webhook sender posts what the core escalates: HTTP out, nothing of the core or the store"},

	// Libraries.
	{"internal/edge", []string{"", "proto/linkpb"}, concat(noSQL, noEcho),
		"the one table from the domain's codes to each wire's answer (HTTP status and problem code, close code, link kind): the codes and the wires, nothing of the core"},
	{"internal/clock", nil, nil, whyLibrary},
	{"internal/clock/clocktest", []string{"internal/clock"}, nil, "a clock for tests"},
	{"internal/logtest", nil, nil, "a log buffer for tests"},
	{"internal/limit", nil, nil, whyLibrary},
	{"internal/mcap", nil, nil, "the MCAP format knows nothing of robots or gateways"},
	{"internal/mcap/mcaptest", nil, nil, "MCAP readers for tests"},
	{"internal/blob", nil, noSQL, whyLibrary},
	{"internal/hoststat", []string{""}, noSQL, "the host's load, in the root vocabulary's metrics"},
	{"internal/clockstrip", nil, concat(noSQL, noHTTP), "a time burned into a picture and read back, knowing nothing of robots or codecs"},
	{"internal/netshape", []string{"internal/clock"}, concat(noSQL, noHTTP), "a shaped network link for tests and benchmarks, knowing nothing of robots or gateways"},
	{"internal/cluster/natstest", nil, nil, "a real nats-server for tests, knowing nothing of the cluster"},
	{"internal/store/postgres/pgtest", nil, nil, "a real PostgreSQL server for tests, knowing nothing of the store"},

	// The vocabulary.
	{"", nil, concat(noSQL, noHTTP), "the root package of types imports nothing of this module: every layer shares its words"},
	{"internal/msgs", []string{"proto/catalogpb"}, nil, "catalog helpers depend on the generated catalog only"},
	{"proto/catalogpb", nil, nil, "generated wire types"},
	{"proto/streampb", []string{"proto/catalogpb"}, nil, "generated wire types"},
	{"proto/linkpb", []string{"proto/catalogpb"}, nil, "generated wire types"},
	{"proto/clusterpb", []string{"proto/linkpb"}, nil, "generated wire types"},
	{"proto/foxglovepb", nil, nil, "generated wire types (Foxglove's own schemas)"},
}

// gatewayType names the packages that may name the core's concrete type, gateway.Gateway:
// the composition root and the command that opens the core offline. An adapter takes the
// service it uses or an interface it declares. server/api and web still take *Gateway until
// part 1 of issue 30 (adapters take what they use) lands; then their entries go.
var gatewayType = []string{"cmd/fleetgate", "server"}

func TestDependencyRules(t *testing.T) {
	m := loadModule(t)
	byPkg := map[string]rule{}
	for _, r := range rules {
		if _, dup := byPkg[r.pkg]; dup {
			t.Errorf("two rules for %q", r.pkg)
		}
		byPkg[r.pkg] = r
	}
	where := roomsOf(t)
	for _, own := range m.own {
		if _, ok := byPkg[own]; !ok {
			t.Errorf("%s has no rule: give it a line in server/deps_test.go stating what it imports", m.path(own))
		}
		if _, ok := where[own]; !ok {
			t.Errorf("%s is in no room of the floors: put it in one in server/deps_test.go", m.path(own))
		}
	}
	for pkg := range where {
		if !slices.Contains(m.own, pkg) {
			t.Errorf("the floors name %q, which is not a package of this module: update them", pkg)
		}
	}

	for _, r := range rules {
		p, ok := m.pkgs[m.path(r.pkg)]
		if !ok {
			t.Errorf("the rule of %q names a package this module does not have: update the rule", r.pkg)
			continue
		}
		// The rule itself keeps to the floors.
		for _, dep := range r.may {
			if err := where.allows(r.pkg, dep); err != nil {
				t.Errorf("the rule of %s: %v", m.name(r.pkg), err)
			}
		}
		// Every import of the module is in the rule, and the rule allows nothing more.
		imported := map[string]bool{}
		for _, imp := range p.Imports {
			own, ok := m.ownName(imp)
			if !ok {
				continue
			}
			imported[own] = true
			if !slices.Contains(r.may, own) {
				t.Errorf("%s imports %s, which the rule of %s does not allow: %s", m.importSite(p, imp), m.name(own), m.name(r.pkg), r.why)
			}
		}
		for _, dep := range r.may {
			if !imported[dep] {
				t.Errorf("the rule of %s allows %s, which it does not import: remove it, so that the rule says what the code does", m.name(r.pkg), m.name(dep))
			}
		}
		// Outside packages it must not reach, even through another package.
		for _, chain := range m.reaches(p.ImportPath, r.mayNot) {
			t.Errorf("%s depends on %s: %s\n\tthe imports: %s", m.name(r.pkg), chain[len(chain)-1], r.why, m.explain(chain))
		}
	}

	// Nobody but the composition root takes the core's concrete type.
	names := m.namesOf(t, m.path("internal/gateway"), "Gateway")
	for _, own := range m.own {
		allowed := slices.Contains(gatewayType, own)
		switch site, named := names[own]; {
		case named && !allowed:
			t.Errorf("%s names gateway.Gateway: only the composition root may; take the service you use, or declare the small interface you consume", site)
		case !named && allowed:
			t.Errorf("%s no longer names gateway.Gateway: remove it from gatewayType in server/deps_test.go", m.name(own))
		}
	}
}

func concat(lists ...[]string) []string { return slices.Concat(lists...) }

const module = "github.com/fleetgate/fleetgate"

// modulePackage is what `go list -json` says of one package.
type modulePackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Module     *struct{ Path string }
}

// moduleGraph is every package of the module and everything they import (the standard
// library and other modules too), without tests, in the default build.
type moduleGraph struct {
	pkgs map[string]*modulePackage // by import path
	own  []string                  // the module's packages, by name ("" for the root), sorted
}

var (
	loadOnce   sync.Once
	loaded     *moduleGraph
	loadFailed error
)

// loadModule lists the module once for the tests of this file and the package map's.
func loadModule(t *testing.T) *moduleGraph {
	t.Helper()
	loadOnce.Do(func() { loaded, loadFailed = listModule() })
	if loadFailed != nil {
		t.Fatal(loadFailed)
	}
	return loaded
}

func listModule() (*moduleGraph, error) {
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,GoFiles,CgoFiles,Imports,Module", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		return nil, fmt.Errorf("go list %s/...: %v\n%s", module, err, stderr)
	}
	m := &moduleGraph{pkgs: map[string]*modulePackage{}}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p modulePackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list's output: %v", err)
		}
		m.pkgs[p.ImportPath] = &p
		if p.Module != nil && p.Module.Path == module {
			own, _ := m.ownName(p.ImportPath)
			m.own = append(m.own, own)
		}
	}
	slices.Sort(m.own)
	return m, nil
}

// ownName is the name inside the module of the import path, if the module has it.
func (m *moduleGraph) ownName(path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

// path is the import path of a name inside the module.
func (m *moduleGraph) path(own string) string {
	if own == "" {
		return module
	}
	return module + "/" + own
}

// name is how messages call a package of the module.
func (m *moduleGraph) name(own string) string {
	if own == "" {
		return "the root package"
	}
	return own
}

// importSite is where package p imports path: file and line, relative to the module.
func (m *moduleGraph) importSite(p *modulePackage, path string) string {
	fset := token.NewFileSet()
	for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ImportsOnly)
		if err != nil {
			continue
		}
		for _, imp := range f.Imports {
			if v, _ := strconv.Unquote(imp.Path.Value); v == path {
				own, _ := m.ownName(p.ImportPath)
				return filepath.ToSlash(filepath.Join(own, fmt.Sprintf("%s:%d", name, fset.Position(imp.Pos()).Line)))
			}
		}
	}
	return p.ImportPath
}

// reaches returns, for each entry of forbidden that from depends on, the shortest chain of
// imports from from to a package it matches.
func (m *moduleGraph) reaches(from string, forbidden []string) [][]string {
	if len(forbidden) == 0 {
		return nil
	}
	reported := map[string]bool{}
	matching := func(dep string) (string, bool) {
		i := slices.IndexFunc(forbidden, func(e string) bool { return dep == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(dep, e)) })
		if i < 0 {
			return "", false
		}
		return forbidden[i], true
	}
	prev := map[string]string{from: ""}
	queue := []string{from}
	var chains [][]string
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if entry, ok := matching(cur); ok && cur != from && !reported[entry] {
			reported[entry] = true
			var chain []string
			for at := cur; at != ""; at = prev[at] {
				chain = append(chain, at)
			}
			slices.Reverse(chain)
			chains = append(chains, chain)
		}
		p := m.pkgs[cur]
		if p == nil {
			continue
		}
		for _, imp := range p.Imports {
			if _, seen := prev[imp]; !seen {
				prev[imp] = cur
				queue = append(queue, imp)
			}
		}
	}
	return chains
}

// explain writes a chain of imports with the file and line of each step in the module.
func (m *moduleGraph) explain(chain []string) string {
	steps := make([]string, 0, len(chain)-1)
	for i := range len(chain) - 1 {
		p := m.pkgs[chain[i]]
		if _, own := m.ownName(p.ImportPath); own {
			next := chain[i+1]
			if name, own := m.ownName(next); own {
				next = m.name(name)
			}
			steps = append(steps, m.importSite(p, chain[i+1])+" imports "+next)
		} else {
			steps = append(steps, chain[i]+" imports "+chain[i+1])
		}
	}
	return strings.Join(steps, "; ")
}

// namesOf finds, in the non-test files of the module's packages, where each names pkg.typ:
// the first place per package, as file:line.
func (m *moduleGraph) namesOf(t *testing.T, pkg, typ string) map[string]string {
	t.Helper()
	sites := map[string]string{}
	for _, own := range m.own {
		p := m.pkgs[m.path(own)]
		if !slices.Contains(p.Imports, pkg) {
			continue
		}
		fset := token.NewFileSet()
		for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			local := ""
			for _, imp := range f.Imports {
				if v, _ := strconv.Unquote(imp.Path.Value); v == pkg {
					local = filepath.Base(pkg)
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != typ {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == local {
					if _, found := sites[own]; !found {
						sites[own] = filepath.ToSlash(filepath.Join(own, fmt.Sprintf("%s:%d", name, fset.Position(sel.Pos()).Line)))
					}
				}
				return true
			})
		}
	}
	return sites
}

// place is where a package lives in the house: its floor (0 at the top) and room.
type place struct {
	floor int
	room  string
}

type placement map[string]place

// roomsOf places every package the floors name, once.
func roomsOf(t *testing.T) placement {
	t.Helper()
	where := placement{}
	for i, floor := range floors {
		for _, r := range floor {
			for _, pkg := range r.pkgs {
				if p, dup := where[pkg]; dup {
					t.Errorf("%q is in two rooms: %s and %s", pkg, p.room, r.name)
				}
				where[pkg] = place{i, r.name}
			}
		}
	}
	return where
}

// allows says why pkg may not import dep by the floors, or nil if it may.
func (w placement) allows(pkg, dep string) error {
	from, ok1 := w[pkg]
	to, ok2 := w[dep]
	switch {
	case !ok1 || !ok2:
		return nil // reported as a package in no room
	case to.floor < from.floor:
		return fmt.Errorf("%q (%s) may not import %q, a floor above (%s): nothing runs back up", pkg, from.room, dep, to.room)
	case to.floor == from.floor && to.room != from.room:
		return fmt.Errorf("%q (%s) may not import %q (%s): rooms side by side know nothing of each other", pkg, from.room, dep, to.room)
	}
	return nil
}
