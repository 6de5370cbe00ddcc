package server

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyRules keeps the layout's dependency rules (DESIGN.md section 2) true.
func TestDependencyRules(t *testing.T) {
	const mod = "github.com/fleetgate/fleetgate/"
	// An entry ending in "/" forbids every path under it; any other entry forbids that
	// package exactly (database/sql/driver is only interfaces, which google/uuid implements).
	// The agent link is a robot source on the cloud (RemoteRobot) and a client on the agent;
	// it states what it needs from the core (cloud.Core) and the server adapts the core to it.
	linkForbidden := []string{mod + "internal/gateway", mod + "internal/store", "database/sql", "modernc.org/",
		mod + "server", mod + "server/", mod + "web", "github.com/labstack/"}
	const linkWhy = "robot sources implement fleet.Robot and know nothing of the core or HTTP layers"
	rules := []struct {
		pkg       string
		forbidden []string
		why       string
	}{
		{"internal/gateway", []string{"net/http", "net/http/", "github.com/labstack/", "database/sql", "modernc.org/", "github.com/jackc/", mod + "internal/store", mod + "server", mod + "server/"},
			"the core knows no HTTP and no SQL driver"},
		{"server/api", []string{mod + "internal/store", "database/sql", "modernc.org/", "github.com/jackc/", mod + "internal/sim", mod + "internal/link", mod + "internal/ros1", mod + "internal/camera"},
			"the API reaches data only through internal/gateway, never the store or a robot source"},
		{"internal/sim", []string{mod + "internal/gateway", mod + "server", mod + "server/", mod + "web", mod + "internal/store"},
			"robot sources implement fleet.Robot and know nothing of the core or HTTP layers"},
		{"internal/camera", []string{mod + "internal/gateway", mod + "server", mod + "server/", mod + "web", mod + "internal/store", mod + "internal/live", mod + "internal/live/", "github.com/labstack/"},
			"robot sources implement fleet.Robot and know nothing of the core or HTTP layers"},
		{"internal/ros1", []string{mod + "internal/gateway", mod + "server", mod + "server/", mod + "web", mod + "internal/store", mod + "internal/live", mod + "internal/live/"},
			"robot sources implement fleet.Robot and know nothing of the core or HTTP layers (the ROS node's own XML-RPC server aside)"},
		{"internal/ros1/rosmsg", []string{mod + "internal/fleet", mod + "internal/gateway", mod + "server", "net", "net/http"},
			"ROS message codecs are pure functions of bytes and the catalog"},
		{"internal/link", linkForbidden, linkWhy},
		{"internal/link/cloud", linkForbidden, linkWhy},
		{"internal/link/agent", linkForbidden, linkWhy},
		{"internal/fleet", []string{mod + "internal/gateway", mod + "server", mod + "server/", "net/http", "database/sql"},
			"the robot contract is below the core"},
		{"internal/msgs", []string{mod + "internal/", mod + "server"}, "catalog helpers depend on the generated catalog only"},
		{"internal/limit", []string{mod}, "a leaf package"},
		{"internal/mcap", []string{mod}, "the MCAP format knows nothing of robots or gateways"},
		{"internal/record", []string{mod + "internal/gateway", mod + "internal/store", mod + "internal/sim", mod + "internal/link",
			mod + "server", mod + "server/", mod + "web", "net/http", "database/sql"},
			"the recorder is a subscriber of the robot contract, below the core and the HTTP layers"},
		{"internal/httpstatus", []string{mod + "internal/store", "database/sql", mod + "server", mod + "server/", mod + "web", "github.com/labstack/"},
			"the core's codes as HTTP statuses, for the API and the panel alike: nothing more"},
		{"internal/live", []string{mod + "internal/gateway", mod + "internal/store", mod + "server", mod + "server/", mod + "web", "net/http", "github.com/coder/websocket", "github.com/labstack/"},
			"live sessions run over a connection interface on grants the core hands out: no HTTP, no socket library, no core"},
		{"internal/live/teleop", []string{mod + "internal/gateway", mod + "internal/store", mod + "server", mod + "server/", "net/http", "github.com/coder/websocket"},
			"the teleop policy is pure: commands, limits, leases, the rate cap and the deadman"},
		{"internal/kpi", []string{mod + "internal/gateway", mod + "internal/store", mod + "server", mod + "server/", "net/http", "database/sql"},
			"the KPI hub states what it needs (Source); the core and the HTTP layer are above it"},
		{"web", []string{mod + "internal/store", "database/sql", "modernc.org/", "github.com/jackc/", mod + "internal/sim", mod + "internal/link", mod + "internal/ros1", mod + "internal/camera", mod + "server", mod + "server/"},
			"the panel reaches data only through internal/gateway, never the store or a robot source"},
		{"internal/store", []string{"github.com/jackc/", mod + "server", mod + "server/", mod + "web"},
			"the store's shared queries know no driver but SQLite's; PostgreSQL's stays in internal/store/postgres"},
		{"views", []string{"github.com/labstack/", "github.com/alexedwards/scs/", "github.com/coder/websocket", mod + "internal/store", "database/sql", mod + "web"},
			"templ components are pure functions of their arguments"},
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-deps", mod+r.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", r.pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == mod+r.pkg {
				continue
			}
			for _, f := range r.forbidden {
				if dep == f || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) {
					t.Errorf("%s imports %s: %s", r.pkg, dep, r.why)
				}
			}
		}
	}
}
