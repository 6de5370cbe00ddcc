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

// parse applies FLEETGATE_* environment variables, then the command line (which wins).
// Stray positional arguments are an error: a typo must not pass silently.
func parse(fs *flag.FlagSet, args []string) error {
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
			fs.SetOutput(os.Stderr)
			fmt.Fprintf(os.Stderr, "usage of %s:\n", fs.Name())
			fs.PrintDefaults()
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
