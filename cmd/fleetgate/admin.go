package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/server"
)

// offline parses an admin subcommand's flags (always with --data and --db), checks them
// with check (which may be nil), and opens the store.
func offline(ctx context.Context, name string, args []string, define func(fs *flag.FlagSet), check func() error) (*gateway.Gateway, func() error, error) {
	fs := newFlagSet(name)
	data := fs.String("data", "./fleetgate-data", "data directory")
	db := fs.String("db", "", dbUsage)
	define(fs)
	if err := parse(fs, args); err != nil {
		return nil, nil, err
	}
	if err := checkDatabase(*db); err != nil {
		return nil, nil, err
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, nil, err
		}
	}
	return server.OpenOffline(ctx, *data, *db)
}

// required is a check that a string flag was given.
func required(flagName string, value *string) func() error {
	return func() error {
		if *value == "" {
			return usagef("--%s is required", flagName)
		}
		return nil
	}
}

// verbs are the verbs of the commands that have them ("token create", "agents add").
var verbs = map[string][]string{
	"token":  {"create"},
	"agents": {"add", "list", "revoke"},
	"robots": {"add", "list", "remove"},
	"events": {"list"},
	"record": {"start", "stop", "list", "snapshot"},
}

// subcommand splits "token create ..." into its verb and the rest.
func subcommand(group string, args []string) (string, []string, error) {
	verbs := verbs[group]
	if len(args) == 0 {
		return "", nil, usagef("fleetgate %s needs one of: %v", group, verbs)
	}
	for _, v := range verbs {
		if args[0] == v {
			return v, args[1:], nil
		}
	}
	return "", nil, usagef("fleetgate %s: unknown verb %q (one of: %v)", group, args[0], verbs)
}

func runToken(ctx context.Context, args []string, stdout io.Writer) error {
	_, rest, err := subcommand("token", args)
	if err != nil {
		return err
	}
	var in gateway.CreateAPITokenInput
	gw, closeDB, err := offline(ctx, "token create", rest, func(fs *flag.FlagSet) {
		fs.StringVar(&in.UserEmail, "user", "", "email of the user the token acts as (required)")
		fs.StringVar(&in.Name, "name", "cli", "a name to recognise the token by")
		fs.StringVar(&in.Scope, "scope", fleetgate.ScopeFull, "full, or read for view-only (kiosk) tokens")
		fs.StringVar(&in.Fleet, "fleet", "", "restrict the token to this fleet (id or name)")
	}, required("user", &in.UserEmail))
	if err != nil {
		return err
	}
	defer closeDB()
	secret, _, err := gw.CreateAPIToken(ctx, in)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, secret)
	return nil
}

func runAgents(ctx context.Context, args []string, stdout io.Writer) error {
	verb, rest, err := subcommand("agents", args)
	if err != nil {
		return err
	}
	switch verb {
	case "list":
		return listAgents(ctx, rest, stdout)
	case "revoke":
		return revokeAgent(ctx, rest, stdout)
	}
	var name, fleet string
	gw, closeDB, err := offline(ctx, "agents add", rest, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "agent name (required)")
		fs.StringVar(&fleet, "fleet", "", "fleet its robots join, id or name; created when new (default: the first fleet)")
	}, required("name", &name))
	if err != nil {
		return err
	}
	defer closeDB()
	if fleet, err = ensureFleet(ctx, gw, fleet, stdout); err != nil {
		return err
	}
	agent, key, err := gw.AddAgent(ctx, name, fleet)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "agent %s (%s)\nagent key (shown once): %s\n", agent.Name, agent.ID, key)
	return nil
}

func listAgents(ctx context.Context, args []string, stdout io.Writer) error {
	gw, closeDB, err := offline(ctx, "agents list", args, func(*flag.FlagSet) {}, nil)
	if err != nil {
		return err
	}
	defer closeDB()
	agents, err := gw.Agents(ctx)
	if err != nil {
		return err
	}
	fleets, err := gw.Fleets(ctx)
	if err != nil {
		return err
	}
	names := make(map[string]string, len(fleets))
	for _, f := range fleets {
		names[f.ID] = f.Name
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tFLEET\tCREATED\tLAST SEEN\tREVOKED")
	for _, a := range agents {
		revoked := "no"
		if !a.RevokedAt.IsZero() {
			revoked = formatTime(a.RevokedAt)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.Name, a.ID, names[a.FleetID], formatTime(a.CreatedAt), formatTime(a.LastSeen), revoked)
	}
	return tw.Flush()
}

func revokeAgent(ctx context.Context, args []string, stdout io.Writer) error {
	var name, id string
	gw, closeDB, err := offline(ctx, "agents revoke", args, func(fs *flag.FlagSet) {
		fs.StringVar(&name, "name", "", "name of the agent to revoke")
		fs.StringVar(&id, "id", "", "id of the agent to revoke, instead of --name")
	}, func() error {
		if (name == "") == (id == "") {
			return usagef("one of --name or --id is required")
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer closeDB()
	agent, err := gw.RevokeAgent(ctx, cmp.Or(id, name))
	if err != nil {
		return err
	}
	// No need to tell a running server: its agent link rechecks each connected agent every
	// second (Gateway.AgentActive) and drops a revoked one.
	fmt.Fprintf(stdout, "revoked agent %s (%s)\n", agent.Name, agent.ID)
	return nil
}

// ensureFleet creates a named fleet that does not exist yet, saying so.
func ensureFleet(ctx context.Context, gw *gateway.Gateway, fleet string, stdout io.Writer) (string, error) {
	if fleet == "" {
		return "", nil
	}
	f, created, err := gw.EnsureFleet(ctx, fleet)
	if err != nil {
		return "", err
	}
	if created {
		fmt.Fprintf(stdout, "created fleet %s (%s)\n", f.Name, f.ID)
	}
	return f.ID, nil
}

func runRobots(ctx context.Context, args []string, stdout io.Writer) error {
	verb, rest, err := subcommand("robots", args)
	if err != nil {
		return err
	}
	if verb == "remove" {
		return removeStaleRobots(ctx, rest, stdout)
	}
	var name, fleet string
	var check func() error
	if verb == "add" {
		check = required("name", &name)
	}
	gw, closeDB, err := offline(ctx, "robots "+verb, rest, func(fs *flag.FlagSet) {
		if verb == "add" {
			fs.StringVar(&name, "name", "", "robot name (required)")
			fs.StringVar(&fleet, "fleet", "", "fleet id or name; created when new (default: the first fleet)")
		}
	}, check)
	if err != nil {
		return err
	}
	defer closeDB()
	if verb == "add" {
		if fleet, err = ensureFleet(ctx, gw, fleet, stdout); err != nil {
			return err
		}
		r, err := gw.AddRobot(ctx, name, fleet)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, r.ID)
		return nil
	}
	robots, err := gw.AllRobots(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tFLEET\tONLINE\tLAST SEEN")
	for _, r := range robots {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%s\n", r.Robot.ID, r.Robot.Name, r.FleetName, r.Online, formatTime(r.Robot.LastSeen))
	}
	return tw.Flush()
}

// removeStaleRobots removes the records of the robots not online for --stale. It needs no
// running server: a connected robot's record is refreshed every 30 s, so one online now is
// never that stale (gateway.MinStaleAge).
func removeStaleRobots(ctx context.Context, args []string, stdout io.Writer) error {
	var stale age
	var dryRun bool
	gw, closeDB, err := offline(ctx, "robots remove", args, func(fs *flag.FlagSet) {
		fs.Var(&stale, "stale", fmt.Sprintf("remove the robots not online for this long, e.g. %dd (at least 1d; required)", fleetgate.StaleRobotDays))
		fs.BoolVar(&dryRun, "dry-run", false, "list the robots it would remove, and remove none")
	}, func() error {
		if stale == 0 {
			return usagef("--stale is required, e.g. --stale %dd", fleetgate.StaleRobotDays)
		}
		if time.Duration(stale) < gateway.MinStaleAge {
			return usagef("--stale must be at least 1d (24h): a robot that is merely switched off for the night stays")
		}
		return nil
	})
	if err != nil {
		return err
	}
	defer closeDB()
	robots, err := gw.PruneStaleRobots(ctx, time.Duration(stale), dryRun)
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	for _, r := range robots {
		fmt.Fprintf(stdout, "%s %s %q (last seen %s)\n", verb, r.ID, r.Name, formatTime(r.LastSeen))
	}
	if err != nil {
		return err
	}
	if dryRun {
		fmt.Fprintf(stdout, "%s would be removed (not online for %s); --dry-run removed none\n", robotRecords(len(robots)), stale)
		return nil
	}
	fmt.Fprintf(stdout, "%s removed (not online for %s); their event-log entries stay\n", robotRecords(len(robots)), stale)
	return nil
}

func robotRecords(n int) string {
	if n == 1 {
		return "1 robot record"
	}
	return fmt.Sprintf("%d robot records", n)
}

// age is a flag of a duration that also takes whole days: 30d.
type age time.Duration

func (a age) String() string {
	d := time.Duration(a)
	if d != 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

func (a *age) Set(s string) error {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return fmt.Errorf("%q is not a number of days", s)
		}
		*a = age(time.Duration(days) * 24 * time.Hour)
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is neither days (30d) nor a duration (720h)", s)
	}
	*a = age(d)
	return nil
}

func runEvents(ctx context.Context, args []string, stdout io.Writer) error {
	_, rest, err := subcommand("events", args)
	if err != nil {
		return err
	}
	var f fleetgate.EventFilter
	gw, closeDB, err := offline(ctx, "events list", rest, func(fs *flag.FlagSet) {
		fs.StringVar(&f.RobotID, "robot", "", "only this robot's events (id)")
		fs.StringVar(&f.FleetID, "fleet", "", "only this fleet's events (id)")
		fs.StringVar(&f.AgentID, "agent", "", "only the events posted on this agent's local gateway (id)")
		fs.IntVar(&f.Limit, "limit", 1000, "at most this many, newest first")
	}, nil)
	if err != nil {
		return err
	}
	defer closeDB()
	events, err := gw.EventLog(ctx, f)
	if err != nil {
		return err
	}
	agents, err := gw.Agents(ctx)
	if err != nil {
		return err
	}
	agentNames := make(map[string]string, len(agents))
	for _, a := range agents {
		agentNames[a.ID] = a.Name
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tROBOT\tFLEET\tAGENT\tAUTHOR\tMESSAGE")
	for _, e := range events {
		// An agent's entry names an account of its local gateway: said with the agent.
		author := gateway.EventAuthor(e, agentNames[e.AgentID])
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%q\n", formatTime(e.CreatedAt), e.RobotID, orDash(e.FleetID), orDash(e.AgentID), author, e.Message)
	}
	return tw.Flush()
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
