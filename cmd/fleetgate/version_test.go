package main

import "testing"

// The release build's stamp (packaging/build.sh sets it with -ldflags -X) is what a binary
// says; the dates are shown in UTC whatever zone git wrote them in.
func TestStampOfAReleaseBuild(t *testing.T) {
	defer func(v, c, d string) { buildVersion, buildCommit, buildDate = v, c, d }(buildVersion, buildCommit, buildDate)
	buildVersion, buildCommit, buildDate = "1.4.0+3.gabc1234", "abc1234def5678abc1234def5678abc1234def56", "2026-11-27T21:04:11+01:00"
	want := "fleetgate 1.4.0+3.gabc1234 (commit abc1234def5678abc1234def5678abc1234def56, 2026-11-27T20:04:11Z)"
	if got := stamp().String(); got != want {
		t.Errorf("stamp %q, want %q", got, want)
	}
	if version() != "1.4.0+3.gabc1234" {
		t.Errorf("version() = %q: /healthz and the agent link report the release version", version())
	}
}

// A test binary carries no VCS stamp and no release stamp: it says so rather than inventing one.
func TestStampWithoutABuildStamp(t *testing.T) {
	defer func(v, c, d string) { buildVersion, buildCommit, buildDate = v, c, d }(buildVersion, buildCommit, buildDate)
	buildVersion, buildCommit, buildDate = "", "", ""
	if got, want := stamp().String(), "fleetgate dev (commit unknown, unknown)"; got != want {
		t.Errorf("stamp %q, want %q", got, want)
	}
}
