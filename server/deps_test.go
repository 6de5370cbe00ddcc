package server

import (
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestDependencyRules keeps the layout's dependency rules (DESIGN.md section 2) true. Each
// layer lists the packages of this module it may depend on (directly or not), so a new
// dependency is a decision made here, and the outside packages it must not depend on. An entry
// ending in "/" stands for every package under it. Every package a rule names must exist: a
// rule about a package that was moved or renamed would otherwise pass forever. The module's
// root package (the domain's types and its coded error, every layer's vocabulary) is "".
func TestDependencyRules(t *testing.T) {
	const mod = "github.com/fleetgate/fleetgate/"
	// The robot contract and the catalog: what every layer above the wire may use. The door
	// is the contract's input side: sources take commands only from it, so it sits with the
	// contract, with the pure teleop policy it applies and its clock.
	contract := []string{"", "proto/catalogpb", "internal/msgs", "internal/fleet", "internal/door", "internal/live/teleop", "internal/clock"}
	// Live sessions: the KPI hub, the output encoders, the teleop policy.
	live := []string{"internal/kpi", "proto/streampb", "internal/live", "internal/live/"}
	core := concat(contract, live, []string{"internal/limit", "internal/mcap", "internal/gateway"})
	noSQL := []string{"database/sql", "modernc.org/", "github.com/jackc/"}
	noHTTP := []string{"net/http", "github.com/labstack/", "github.com/coder/websocket"}
	rules := []struct {
		pkg    string
		may    []string // packages of this module
		mayNot []string // outside packages
		why    string
	}{
		{"", nil, concat(noSQL, noHTTP), "the root package of types imports nothing of this module: every layer shares its words"},
		{"internal/gateway", concat(contract, live, []string{"internal/limit", "internal/mcap"}), concat(noSQL, []string{"net/http", "github.com/labstack/"}),
			"the core knows no HTTP and no SQL driver; it is above the robot contract and the live sessions"},
		{"internal/store", core, []string{"github.com/jackc/"},
			"the store implements the core's interfaces; its shared queries know no driver but SQLite's (PostgreSQL's stays in internal/store/postgres)"},
		{"internal/store/postgres", concat(core, []string{"internal/store"}), nil, "the PostgreSQL backend of the same store (beside SQLite's)"},
		{"internal/store/storetest", concat(core, []string{"internal/store"}), nil, "the conformance suite both backends run"},
		{"internal/store/postgres/pgtest", nil, nil, "a real PostgreSQL server for tests, knowing nothing of the store"},
		{"server/api", concat(core, []string{"internal/httpstatus"}), noSQL,
			"the API reaches data only through internal/gateway, never the store or a robot source"},
		{"web", concat(core, []string{"internal/httpstatus", "static", "views"}), noSQL,
			"the panel reaches data only through internal/gateway, never the store or a robot source"},
		{"views", []string{"", "static"}, concat(noSQL, []string{"github.com/labstack/", "github.com/alexedwards/scs/", "github.com/coder/websocket"}),
			"templ components are pure functions of their arguments: the root vocabulary's read models, never the core's types"},
		{"internal/httpstatus", core, concat(noSQL, noHTTP[1:]), "the core's codes as HTTP statuses, for the API and the panel alike: nothing more"},
		{"internal/source/sim", concat(contract, []string{"internal/hoststat"}), noSQL, "robot sources implement fleet.Robot and know nothing of the core or HTTP layers"},
		{"internal/source/camera", concat(contract, []string{"internal/source/camera/"}), concat(noSQL, []string{"github.com/labstack/"}),
			"robot sources implement fleet.Robot and know nothing of the core or HTTP layers"},
		{"internal/source/ros1", concat(contract, []string{"internal/hoststat", "internal/source/ros1/", "internal/source/rosmsg"}), noSQL,
			"robot sources implement fleet.Robot and know nothing of the core or HTTP layers (the ROS node's own XML-RPC server aside)"},
		{"internal/source/ros2", concat(contract, []string{"internal/hoststat", "internal/source/ros2/dds", "internal/source/rosmsg"}), concat(noSQL, []string{"net/http"}),
			"robot sources implement fleet.Robot and know nothing of the core or HTTP layers"},
		{"internal/source/ros2/dds", nil, concat(noSQL, []string{"net/http"}), "the DDS transport carries bytes and knows nothing of robots"},
		{"internal/source/rosmsg", []string{"proto/catalogpb"}, []string{"net", "net/http"}, "ROS message codecs (ROS 1 and CDR) are pure functions of bytes and the catalog"},
		{"internal/link", concat(contract, []string{"proto/linkpb"}), concat(noSQL, []string{"github.com/labstack/"}),
			"the agent link is a robot source on the cloud and a client on the agent; it states what it needs from the core (cloud.Core)"},
		{"internal/link/cloud", concat(contract, []string{"proto/linkpb", "internal/link", "internal/blob"}), concat(noSQL, []string{"github.com/labstack/"}),
			"the agent link is a robot source on the cloud; it states what it needs from the core (cloud.Core)"},
		{"internal/link/agent", concat(contract, live, []string{"proto/linkpb", "internal/link"}), concat(noSQL, []string{"github.com/labstack/"}),
			"the agent's end of the link serves the local robots; it knows nothing of the core"},
		{"internal/cluster", concat(contract, []string{"proto/linkpb", "proto/clusterpb", "internal/link", "internal/link/cloud", "internal/blob"}), concat(noSQL, []string{"github.com/labstack/"}),
			"the replicas' cluster is the core's Presence over NATS: robots held elsewhere are robot sources; it knows nothing of the core or the store"},
		{"internal/cluster/natstest", nil, nil, "a real nats-server for tests, knowing nothing of the cluster"},
		{"internal/fleet", []string{"", "proto/catalogpb", "internal/msgs"}, concat(noSQL, []string{"net/http"}), "the robot contract is below the core"},
		{"internal/msgs", []string{"proto/catalogpb"}, nil, "catalog helpers depend on the generated catalog only"},
		{"internal/limit", nil, nil, "a leaf package"},
		{"internal/mcap", nil, nil, "the MCAP format knows nothing of robots or gateways"},
		{"internal/record", concat(contract, []string{"internal/mcap"}), concat(noSQL, []string{"net/http"}),
			"the recorder is a subscriber of the robot contract, below the core and the HTTP layers"},
		{"internal/live", concat(contract, live), concat(noSQL, noHTTP),
			"live sessions run over a connection interface on grants the core hands out: no HTTP, no socket library, no core"},
		{"internal/live/teleop", []string{"", "proto/catalogpb", "internal/msgs", "internal/clock"}, concat(noSQL, noHTTP), "the teleop policy is pure: commands, limits, the rate cap and the deadman"},
		{"internal/door", contract, concat(noSQL, noHTTP), "the one way to a robot's input streams: the teleop policy over the robot contract, below the core, no HTTP"},
		{"internal/door/doortest", contract, concat(noSQL, noHTTP), "sources' tests send commands through a door"},
		{"internal/clock", nil, nil, "a leaf package"},
		{"internal/clock/clocktest", []string{"internal/clock"}, nil, "a clock for tests"},
		{"internal/kpi", contract, concat(noSQL, []string{"net/http"}), "the KPI hub states what it needs (Source); the core and the HTTP layer are above it"},
	}

	all, err := exec.Command("go", "list", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list %s...: %v", mod, err)
	}
	root := strings.TrimSuffix(mod, "/")
	own := func(pkg string) (string, bool) {
		if pkg == root {
			return "", true
		}
		return strings.CutPrefix(pkg, mod)
	}
	exists := func(entry string) bool {
		for _, p := range strings.Fields(string(all)) {
			p, _ = own(p)
			if p == entry || (strings.HasSuffix(entry, "/") && strings.HasPrefix(p, entry)) {
				return true
			}
		}
		return false
	}
	matches := func(dep string, entries []string) bool {
		return slices.ContainsFunc(entries, func(e string) bool { return dep == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(dep, e)) })
	}
	for _, r := range rules {
		for _, e := range append([]string{r.pkg}, r.may...) {
			if !exists(e) {
				t.Errorf("the rule of %s names %s, which is not a package of this module: update the rule", mod+r.pkg, e)
			}
		}
		out, err := exec.Command("go", "list", "-deps", strings.TrimSuffix(mod+r.pkg, "/")).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", r.pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if own, ok := own(dep); ok {
				if own != r.pkg && !matches(own, r.may) {
					t.Errorf("%s depends on %s, which its rule does not allow: %s", mod+r.pkg, own, r.why)
				}
			} else if matches(dep, r.mayNot) {
				t.Errorf("%s depends on %s: %s", mod+r.pkg, dep, r.why)
			}
		}
	}
}

func concat(lists ...[]string) []string { return slices.Concat(lists...) }

// TestOnlyTheRootKnowsTheGateway keeps gateway.Gateway, the core's services together, the
// composition root's (DESIGN.md section 12, "Edges"): an adapter takes the services it uses,
// as small interfaces it declares, so that its handlers can be tested over fakes and nothing
// hides which aggregate it reaches. Any use of the type in a package that may not know it
// fails: naming it, or holding or calling through a value of it got elsewhere. The packages
// checked are those that import the core or the server, and the adapters whatever they
// import; their test files are not (end-to-end tests may drive a whole gateway).
func TestOnlyTheRootKnowsTheGateway(t *testing.T) {
	const mod = "github.com/fleetgate/fleetgate/"
	const core = mod + "internal/gateway"
	// The composition roots and the harnesses that run one, and the core itself.
	mayKnow := []string{"server", "server/servertest", "cmd/", "bench/", "internal/gateway"}
	adapters := []string{"server/api", "web", "views"}

	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list %s...: %v", mod, err)
	}
	var check []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		pkg, _ := strings.CutPrefix(f[0], mod)
		known := slices.ContainsFunc(mayKnow, func(e string) bool { return pkg == e || (strings.HasSuffix(e, "/") && strings.HasPrefix(pkg, e)) })
		if !known && (slices.Contains(adapters, pkg) || slices.Contains(f[1:], core) || slices.Contains(f[1:], mod+"server")) {
			check = append(check, f[0])
		}
	}
	for _, a := range adapters {
		if !slices.Contains(check, mod+a) {
			t.Fatalf("adapter %s is not among the packages checked (%v): update the test", a, check)
		}
	}

	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedTypesInfo}, check...)
	if err != nil {
		t.Fatal(err)
	}
	isGateway := func(obj *types.TypeName) bool {
		return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == core && obj.Name() == "Gateway"
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("loading %s: %v", p.PkgPath, e)
		}
		bad := map[string]bool{} // lines, one error each
		line := func(pos token.Pos) string {
			at := p.Fset.Position(pos)
			return fmt.Sprintf("%s:%d", at.Filename, at.Line)
		}
		for id, obj := range p.TypesInfo.Uses {
			if tn, ok := obj.(*types.TypeName); ok && isGateway(tn) {
				bad[line(id.Pos())] = true
			}
		}
		for expr, tv := range p.TypesInfo.Types {
			if tv.Type != nil && mentions(tv.Type, isGateway) {
				bad[line(expr.Pos())] = true
			}
		}
		for _, pos := range slices.Sorted(maps.Keys(bad)) {
			t.Errorf("%s: %s uses gateway.Gateway, which only the composition root may know: take the services it uses, as a small interface declared beside the handler", pos, p.PkgPath)
		}
	}
}

// mentions reports whether t is, or is built of, a named type that is.
func mentions(t types.Type, is func(*types.TypeName) bool) bool {
	switch t := t.(type) {
	case *types.Alias:
		return mentions(types.Unalias(t), is)
	case *types.Named:
		if is(t.Obj()) {
			return true
		}
		for a := range t.TypeArgs().Types() {
			if mentions(a, is) {
				return true
			}
		}
		return false // a named type's own make-up is checked where it is declared
	case *types.Pointer:
		return mentions(t.Elem(), is)
	case *types.Slice:
		return mentions(t.Elem(), is)
	case *types.Array:
		return mentions(t.Elem(), is)
	case *types.Chan:
		return mentions(t.Elem(), is)
	case *types.Map:
		return mentions(t.Key(), is) || mentions(t.Elem(), is)
	case *types.Signature:
		return mentions(t.Params(), is) || mentions(t.Results(), is)
	case *types.Tuple:
		for v := range t.Variables() {
			if mentions(v.Type(), is) {
				return true
			}
		}
	case *types.Struct:
		for f := range t.Fields() {
			if mentions(f.Type(), is) {
				return true
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			if mentions(m.Type(), is) {
				return true
			}
		}
	}
	return false
}
