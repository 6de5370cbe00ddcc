package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// commandLines are the command lines that parse flags: every command, and each verb of the
// commands that have verbs.
func commandLines() [][]string {
	var lines [][]string
	for _, c := range commands() {
		if vs, ok := verbs[c.name]; ok {
			for _, v := range vs {
				lines = append(lines, []string{c.name, v})
			}
			continue
		}
		lines = append(lines, []string{c.name})
	}
	return lines
}

// flagsOf runs a command line with -h and returns the flag set it parsed and its help.
func flagsOf(t *testing.T, line []string, wrap func(*flag.FlagSet)) (*flag.FlagSet, string) {
	t.Helper()
	var seen *flag.FlagSet
	var help bytes.Buffer
	flagSetSeen = func(fs *flag.FlagSet) {
		seen = fs
		if wrap != nil {
			wrap(fs)
		}
	}
	helpOutput = &help
	t.Cleanup(func() { flagSetSeen, helpOutput = nil, os.Stderr })
	err := run(context.Background(), append(slices.Clone(line), "-h"), io.Discard, io.Discard)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("fleetgate %s -h: %v, want the help", strings.Join(line, " "), err)
	}
	if seen == nil {
		t.Fatalf("fleetgate %s parsed no flag set through parse", strings.Join(line, " "))
	}
	return seen, help.String()
}

// recordedValue stands in for a flag's value and keeps what parse sets, without the flag's
// own checks: the test is about which variable reaches which flag.
type recordedValue struct {
	flag.Value
	set []string
}

func (r *recordedValue) Set(s string) error {
	r.set = append(r.set, s)
	return nil
}

// TestEveryFlagReadsItsEnvironmentVariable walks the flag set of every command line: each
// flag takes FLEETGATE_<FLAG> from the environment (a systemd unit's EnvironmentFile sets
// them), and its help names that variable.
func TestEveryFlagReadsItsEnvironmentVariable(t *testing.T) {
	for _, kv := range os.Environ() {
		// An outer FLEETGATE_* must not be mistaken for the test's.
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "FLEETGATE_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	total := 0
	for _, line := range commandLines() {
		name := strings.Join(line, " ")
		t.Run(name, func(t *testing.T) {
			fs, help := flagsOf(t, line, nil)
			envs := map[string]string{}
			fs.VisitAll(func(f *flag.Flag) {
				env := envName(f.Name)
				if other, dup := envs[env]; dup {
					t.Errorf("--%s and --%s share %s", f.Name, other, env)
				}
				envs[env] = f.Name
				// Its entry in the help: the flag, its usage, then the variable.
				entry := regexp.MustCompile(`(?m)^  --` + regexp.QuoteMeta(f.Name) + `( \S+)?\n(    \t.*\n)*?    \tenv ` + env + `\n`)
				if !entry.MatchString(help) {
					t.Errorf("the help of fleetgate %s does not name %s under --%s:\n%s", name, env, f.Name, help)
				}
			})
			for env, flagName := range envs {
				t.Setenv(env, "from-"+flagName)
			}
			recorded := map[string]*recordedValue{}
			flagsOf(t, line, func(fs *flag.FlagSet) {
				fs.VisitAll(func(f *flag.Flag) {
					r := &recordedValue{Value: f.Value}
					f.Value, recorded[f.Name] = r, r
				})
			})
			for flagName, r := range recorded {
				if want := []string{"from-" + flagName}; !slices.Equal(r.set, want) {
					t.Errorf("--%s was set to %q by the environment, want %q from %s", flagName, r.set, want, envName(flagName))
				}
			}
			if len(recorded) != len(envs) {
				t.Errorf("%d flags the second time, %d the first", len(recorded), len(envs))
			}
			total += len(envs)
		})
	}
	// A walk that found nothing would pass for the wrong reason.
	if total < 50 {
		t.Errorf("only %d flags in all commands: is the walk still reaching them?", total)
	}
}

func TestFlagsFromTheEnvironmentAndTheCommandLine(t *testing.T) {
	// The real binary: a variable goes through the flag's own check, and the command line
	// wins over it.
	missing := filepath.Join(t.TempDir(), "from-the-command-line")
	cases := []struct {
		name string
		env  []string
		args []string
		code int
		want string // in stderr
	}{
		{"checked like the flag", []string{"FLEETGATE_SIM=many"}, []string{"agent"}, exitUsage, `FLEETGATE_SIM="many"`},
		{"the command line wins", []string{"FLEETGATE_DATA=/nonexistent/from-the-environment"}, []string{"robots", "list", "--data", missing}, 1, "no fleetgate data in " + missing},
		{"an offline command's flag", []string{"FLEETGATE_DATA=" + missing}, []string{"events", "list"}, 1, "no fleetgate data in " + missing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, c.env, c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
}
