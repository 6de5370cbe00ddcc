package server

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

var updateMap = flag.Bool("update", false, "write docs/packages.md, the package map, from the module's imports")

// mapFile is the package map, drawn from `go list` by TestPackageMapIsFresh:
//
//	go test ./server -run PackageMap -update
const mapFile = "../docs/packages.md"

// TestPackageMapIsFresh draws the fleetgate binary's packages on their floors (the floors
// of deps_test.go) with their imports, and fails when docs/packages.md is not that drawing.
func TestPackageMapIsFresh(t *testing.T) {
	drawn := drawPackageMap(t, loadModule(t))
	if *updateMap {
		if err := os.WriteFile(mapFile, []byte(drawn), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != drawn {
		have, want := strings.Split(string(committed), "\n"), strings.Split(drawn, "\n")
		line := 0
		for line < min(len(have), len(want)) && have[line] == want[line] {
			line++
		}
		show := func(lines []string) string {
			if line < len(lines) {
				return lines[line]
			}
			return "(the end)"
		}
		t.Errorf("docs/packages.md is stale: run go test ./server -run PackageMap -update and commit it\n"+
			"line %d is\n\t%s\nand should be\n\t%s", line+1, show(have), show(want))
	}
}

// foldedInto draws subpackages in their parent's box, where a box of their own would say
// little: a source's transport, the live frames, the PostgreSQL store, the generated wire
// types.
var foldedInto = map[string]string{
	"internal/live/output":             "internal/live",
	"internal/source/ros1/rosnode":     "internal/source/ros1",
	"internal/source/ros1/tcpros":      "internal/source/ros1",
	"internal/source/ros1/xmlrpc":      "internal/source/ros1",
	"internal/source/ros2/dds":         "internal/source/ros2",
	"internal/source/camera/scale":     "internal/source/camera",
	"internal/source/camera/gstreamer": "internal/source/camera",
	"internal/store/postgres":          "internal/store",
	"proto/catalogpb":                  "proto",
	"proto/streampb":                   "proto",
	"proto/linkpb":                     "proto",
	"proto/clusterpb":                  "proto",
}

func boxOf(pkg string) string {
	if box, ok := foldedInto[pkg]; ok {
		return box
	}
	return pkg
}

// drawPackageMap writes docs/packages.md: a Mermaid flowchart (GitHub draws it) of the
// packages the fleetgate binary is built from, one box per package (subpackages folded as
// foldedInto says), grouped in the rooms of the floors, with an arrow for each import, and a
// table of the same imports.
func drawPackageMap(t *testing.T, m *moduleGraph) string {
	t.Helper()
	// The binary's packages: what cmd/fleetgate reaches in the module, tests and bench tools aside.
	inBinary := map[string]bool{}
	var visit func(path string)
	visit = func(path string) {
		own, ok := m.ownName(path)
		if !ok || inBinary[own] {
			return
		}
		inBinary[own] = true
		for _, imp := range m.pkgs[path].Imports {
			visit(imp)
		}
	}
	visit(m.path("cmd/fleetgate"))

	where := roomsOf(t)
	folded := map[string][]string{} // box -> the subpackages drawn in it
	imports := map[string]map[string]bool{}
	for own := range inBinary {
		if _, ok := where[own]; !ok {
			t.Fatalf("%s is in no room of the floors (server/deps_test.go)", own)
		}
		box := boxOf(own)
		if box != own {
			folded[box] = append(folded[box], strings.TrimPrefix(own, box+"/"))
		}
		if imports[box] == nil {
			imports[box] = map[string]bool{}
		}
		for _, imp := range m.pkgs[m.path(own)].Imports {
			if dep, ok := m.ownName(imp); ok && boxOf(dep) != box {
				imports[box][boxOf(dep)] = true
			}
		}
	}
	roomOf := func(box string) place {
		if box == "proto" {
			return where["proto/catalogpb"]
		}
		return where[box]
	}
	for own := range inBinary {
		if roomOf(boxOf(own)) != where[own] {
			t.Fatalf("%s is drawn in %s's box, but the floors put them in different rooms", own, boxOf(own))
		}
	}
	id := func(box string) string {
		if box == "" {
			return "root"
		}
		return strings.NewReplacer("/", "_", "-", "_").Replace(box)
	}
	roomID := func(name string) string { return "room_" + strings.ReplaceAll(name, " ", "_") }
	name := func(box string) string {
		switch box {
		case "":
			return "fleetgate (root)"
		case "proto":
			return "proto/*"
		}
		return strings.TrimPrefix(box, "internal/")
	}
	subs := func(box string) string {
		if box == "proto" {
			return ""
		}
		return strings.Join(slices.Sorted(slices.Values(folded[box])), ", ")
	}
	label := func(box string) string {
		if s := subs(box); s != "" {
			return name(box) + "<br/>+ " + s
		}
		return name(box)
	}
	boxes := slices.Sorted(maps.Keys(imports))
	vocabulary := roomOf("")
	wiring := roomOf("server").floor // this floor and those above wire the house

	var b strings.Builder
	b.WriteString(`# The package map

<!-- Generated from ` + "`go list`" + ` by TestPackageMapIsFresh (server/packagemap_test.go); do not edit.
     Redraw it with: go test ./server -run PackageMap -update -->

The packages the ` + "`fleetgate`" + ` binary is built from, on the floors that
[server/deps_test.go](../server/deps_test.go) keeps: a package imports packages of its own room
and of the floors below it, never a floor above nor another room of its floor. A solid arrow
is an import. The command and the composition root wire the whole house: a dotted arrow goes
from them to each room they import from. Every floor speaks the vocabulary (the root package's
types and errors, the message catalog, the wire types): arrows into it are left out. The table
below lists every import. Subpackages are drawn in their parent's box ("+ ..."); tests'
helpers and the bench tools are not part of the binary and are left out.

` + "```mermaid" + `
flowchart TB
`)
	for i, floor := range floors {
		var rooms []room
		for _, r := range floor {
			if slices.ContainsFunc(boxes, func(box string) bool { return roomOf(box) == place{i, r.name} }) {
				rooms = append(rooms, r)
			}
		}
		indent := "  "
		if len(rooms) > 1 {
			fmt.Fprintf(&b, "  subgraph floor%d[\" \"]\n    direction LR\n", i)
			indent = "    "
		}
		for _, r := range rooms {
			fmt.Fprintf(&b, "%ssubgraph %s[\"%s\"]\n", indent, roomID(r.name), r.name)
			for _, box := range boxes {
				if roomOf(box) == (place{i, r.name}) {
					fmt.Fprintf(&b, "%s  %s[\"%s\"]\n", indent, id(box), label(box))
				}
			}
			fmt.Fprintf(&b, "%send\n", indent)
		}
		if len(rooms) > 1 {
			b.WriteString("  end\n")
		}
	}
	// The floors in their order, top to bottom, whatever the arrows.
	var stack []string
	for i, floor := range floors {
		switch {
		case len(floor) > 1:
			stack = append(stack, fmt.Sprintf("floor%d", i))
		case slices.ContainsFunc(boxes, func(box string) bool { return roomOf(box).floor == i }):
			stack = append(stack, roomID(floor[0].name))
		}
	}
	fmt.Fprintf(&b, "  %s\n", strings.Join(stack, " ~~~ "))
	for _, box := range boxes {
		var drawn []string
		for _, dep := range slices.Sorted(maps.Keys(imports[box])) {
			switch {
			case roomOf(dep) == vocabulary:
			case roomOf(box).floor <= wiring:
				// The binary and the composition root wire whole rooms: one dotted arrow a room.
				if to := roomID(roomOf(dep).room); roomOf(dep).floor <= wiring {
					drawn = append(drawn, fmt.Sprintf("%s -.-> %s", id(box), id(dep)))
				} else if !slices.Contains(drawn, id(box)+" -.-> "+to) {
					drawn = append(drawn, id(box)+" -.-> "+to)
				}
			default:
				drawn = append(drawn, fmt.Sprintf("%s --> %s", id(box), id(dep)))
			}
		}
		for _, line := range drawn {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	b.WriteString("```\n\n| package | room | imports of this module |\n|---|---|---|\n")
	for i, floor := range floors {
		for _, r := range floor {
			for _, box := range boxes {
				if roomOf(box) != (place{i, r.name}) {
					continue
				}
				var deps []string
				for _, dep := range slices.Sorted(maps.Keys(imports[box])) {
					deps = append(deps, "`"+name(dep)+"`")
				}
				pkg := "`" + name(box) + "`"
				if s := subs(box); s != "" {
					pkg += " (+ " + s + ")"
				}
				fmt.Fprintf(&b, "| %s | %s | %s |\n", pkg, r.name, strings.Join(deps, ", "))
			}
		}
	}
	b.WriteString("\nThe rooms:\n\n")
	for _, floor := range floors {
		for _, r := range floor {
			fmt.Fprintf(&b, "- **%s**: %s.\n", r.name, r.job)
		}
	}
	return b.String()
}
