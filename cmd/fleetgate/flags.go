package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// envName is the environment variable that sets a flag: --public-url is FLEETGATE_PUBLIC_URL.
func envName(flagName string) string {
	return "FLEETGATE_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("fleetgate "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// flagSetSeen, when set (by a test), is shown every command's flag set before parse applies
// the environment to it: the test that every flag reads its variable walks them this way.
var flagSetSeen func(*flag.FlagSet)

// helpOutput is where -h prints a command's flags.
var helpOutput io.Writer = os.Stderr

// parse applies FLEETGATE_* environment variables, then the command line (which wins).
// Stray positional arguments are an error: a typo must not pass silently. Every command
// parses its flags here, so every flag has its variable (a systemd unit's EnvironmentFile
// sets them) and -h names it.
func parse(fs *flag.FlagSet, args []string) error {
	if flagSetSeen != nil {
		flagSetSeen(fs)
	}
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := os.LookupEnv(envName(f.Name)); ok && envErr == nil {
			if err := f.Value.Set(v); err != nil {
				envErr = usagef("%s=%q: %v", envName(f.Name), v, err)
			}
		}
	})
	if envErr != nil {
		return envErr
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(helpOutput, fs)
			return err
		}
		return usagef("%v (run %s -h for help)", err, fs.Name())
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (run %s -h for help)", fs.Arg(0), fs.Name())
	}
	return nil
}

// flagGiven reports whether a flag was set on the command line or by its environment variable.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	_, env := os.LookupEnv(envName(name))
	return given || env
}

// printHelp lists a command's flags as flag.PrintDefaults does, each with its environment
// variable.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage of %s (every flag can also be set by the environment variable under it; the command line wins):\n", fs.Name())
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  --%s", f.Name)
		if typ != "" {
			fmt.Fprintf(w, " %s", typ)
		}
		fmt.Fprintf(w, "\n    \t%s", strings.ReplaceAll(usage, "\n", "\n    \t"))
		if !isZeroDefault(f) {
			if typ == "string" {
				fmt.Fprintf(w, " (default %q)", f.DefValue)
			} else {
				fmt.Fprintf(w, " (default %v)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "\n    \tenv %s\n", envName(f.Name))
	})
}

// isZeroDefault reports whether a flag's default is its type's zero value, which
// flag.PrintDefaults leaves unsaid too.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "0s", "false", "[]", "<nil>":
		return true
	}
	return false
}
