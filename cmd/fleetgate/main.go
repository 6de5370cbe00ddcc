// Command fleetgate is the robot fleet gateway: the cloud gateway (serve), the local gateway
// on the robot network (agent), both at once (demo), and offline admin commands on a data
// directory. This package turns flags and FLEETGATE_* environment variables into config
// structs and hands them to package server; it holds no other logic.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exitUsage is the exit code for bad flags or arguments, as flag.ExitOnError uses.
const exitUsage = 2

// usageError marks a mistake in the command line: exit code 2 instead of 1.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "run the cloud gateway (default --listen :8080; --demo N adds N simulated agents)", runServe},
		{"agent", "run the local gateway on the robot network (default --listen :19992; --cloud URL --agent-key KEY links it)", runAgent},
		{"demo", "run a cloud gateway on :8080 and a local gateway on :19992 linked to it", runDemo},
		{"token", "token create: print a new API token for a user (offline)", runToken},
		{"agents", "agents add | list | revoke: provision, list or revoke agents (offline)", runAgents},
		{"robots", "robots add | list | remove --stale 30d: record, list or remove robots (offline)", runRobots},
		{"events", "events list: print the event log (offline)", runEvents},
		{"backup", "backup --data DIR --out FILE: a consistent copy of a gateway's store and keys, also while it runs", runBackup},
		{"restore", "restore --from FILE --data DIR: put a backup back (the gateway stopped)", runRestore},
		{"record", "record start | stop | list | snapshot: a robot's recordings, on a running gateway (--url, --token); snapshot has the flight recorder record the last seconds", runRecord},
		{"version", "print the version, commit and date of this build (also: fleetgate --version)", runVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err == nil {
		return
	}
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	fmt.Fprintln(os.Stderr, "fleetgate:", err)
	var ue usageError
	if errors.As(err, &ue) {
		os.Exit(exitUsage)
	}
	os.Exit(1)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stderr)
		if len(args) == 0 {
			return usagef("a command is required")
		}
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, args[1:], stdout)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout)
		}
	}
	printUsage(stderr)
	return usagef("unknown command %q", args[0])
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: fleetgate <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEvery flag can also be set as FLEETGATE_<NAME> (for --public-url, FLEETGATE_PUBLIC_URL).\nRun fleetgate <command> -h for its flags.")
}
