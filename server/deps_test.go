package server

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
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
