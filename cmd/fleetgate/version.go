package main

import "runtime/debug"

// buildVersion is set at release builds: -ldflags "-X main.buildVersion=v1.2.3".
var buildVersion = ""

// version is the release version, else the module version, else "dev".
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
