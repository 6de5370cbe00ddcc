package main

import (
	"fmt"
	"runtime/debug"
	"time"
)

// Set by release builds (packaging/build.sh) with -ldflags "-X main.buildVersion=...": the
// version of the Debian package, the full commit hash and the commit's date (RFC 3339, UTC).
var (
	buildVersion = ""
	buildCommit  = ""
	buildDate    = ""
)

// buildStamp is what a binary knows of where it came from.
type buildStamp struct {
	Version string
	Commit  string // full hash; "+dirty" when built from a tree with uncommitted changes
	Date    string // the commit's date, not the build's: the same source gives the same binary
}

// stamp is the release build's stamp, else what the Go toolchain recorded: go build in a
// git checkout stamps the module's pseudo-version (v0.0.0-20261127...-a820994abcde+dirty)
// and the commit; go run and go test stamp neither, and say "dev" and "unknown".
func stamp() buildStamp {
	s := buildStamp{Version: buildVersion, Commit: buildCommit, Date: buildDate}
	if info, ok := debug.ReadBuildInfo(); ok {
		if s.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			s.Version = info.Main.Version
		}
		var revision, at string
		modified := false
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				revision = kv.Value
			case "vcs.time":
				at = kv.Value
			case "vcs.modified":
				modified = kv.Value == "true"
			}
		}
		if s.Commit == "" && revision != "" {
			s.Commit = revision
			if modified {
				s.Commit += "+dirty"
			}
		}
		if s.Date == "" && at != "" {
			s.Date = at
		}
	}
	if s.Version == "" {
		s.Version = "dev"
	}
	if s.Commit == "" {
		s.Commit = "unknown"
	}
	if s.Date == "" {
		s.Date = "unknown"
	} else if t, err := time.Parse(time.RFC3339, s.Date); err == nil {
		s.Date = t.UTC().Format(time.RFC3339)
	}
	return s
}

// version is the release version, else the module version, else "dev": what /healthz and
// the agent link report.
func version() string { return stamp().Version }

// String is the line `fleetgate version` and `fleetgate --version` print.
func (s buildStamp) String() string {
	return fmt.Sprintf("fleetgate %s (commit %s, %s)", s.Version, s.Commit, s.Date)
}
