// Package views is the panel's HTML: templ components that are pure functions of their
// arguments (no I/O), and the small formatting helpers they share.
package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
)

// Nav is what every page's frame shows: who is logged in and where they are.
type Nav struct {
	Title    string
	Active   string // "robots", "fleet", "events", "recordings", "settings", "admin"
	Email    string
	OrgAdmin bool
	// NeedsPassword asks the user to set a password (the bootstrap admin's first login).
	NeedsPassword bool
	// UserID is the signed-in user's: pages offer no action against one's own account.
	UserID string
	// Quiet leaves out the page-wide notices (the operate screen keeps its one screen).
	Quiet bool
	// Where says which gateway this is: the cloud, or a local gateway and its link.
	Where string
}

// HumanSize is a byte count as a person reads it: 1.5 MiB.
func HumanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// When is a time in the site's zone to the second, "never" for the zero time.
func When(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return inZone(t).Format("2006-01-02 15:04:05 MST")
}

// Day is a date, "never" for the zero time.
func Day(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return inZone(t).Format("2 January 2006")
}

// RoleName is a role in words.
func RoleName(r fleetgate.Role) string { return r.String() }

// Roles are the roles an admin can give, in order.
var Roles = []fleetgate.Role{fleetgate.RoleNone, fleetgate.RoleOperator, fleetgate.RoleDeveloper, fleetgate.RoleAdmin}

func itoa(n int) string { return fmt.Sprint(n) }

func roleValue(r fleetgate.Role) string { return fmt.Sprint(int(r)) }

func scopeWords(t fleetgate.APIToken) string {
	switch {
	case t.Scope == fleetgate.ScopeRead && t.FleetID != "":
		return "kiosk (read-only, one fleet)"
	case t.Scope == fleetgate.ScopeRead:
		return "read-only"
	default:
		return "full"
	}
}

func classes(cs ...string) string { return strings.Join(strings.Fields(strings.Join(cs, " ")), " ") }
