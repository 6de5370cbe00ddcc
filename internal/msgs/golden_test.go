package msgs

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/fleetgate/fleetgate/proto/linkpb"   // and the agent link's, once released
	_ "github.com/fleetgate/fleetgate/proto/streampb" // the envelope's descriptors are guarded too
)

var update = flag.Bool("update", false, "write testdata/catalog.golden from the current descriptors")

const goldenPath = "testdata/catalog.golden"

const goldenHeader = `# The wire shape of the message catalog, the stream envelope and the agent link: one line per field,
# <message> <number> <name> <kind> <cardinality> [<type>], and per enum value,
# <enum> <number> <name> enumvalue. Lines are added, never changed or removed (DESIGN.md §4).
# Regenerate with: go test ./internal/msgs -run Golden -update
`

// guardedFile reports whether a registered proto file is part of the released wire format.
func guardedFile(fd protoreflect.FileDescriptor) bool {
	pkg := string(fd.Package())
	return strings.HasPrefix(pkg, "Platform.Messages.") || pkg == "Platform.Stream" || pkg == "Platform.Link"
}

// descriptorLines describes every guarded message field and enum value, sorted.
func descriptorLines() []string {
	var lines []string
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if guardedFile(fd) {
			lines = appendEnums(lines, fd.Enums())
			lines = appendMessages(lines, fd.Messages())
		}
		return true
	})
	slices.Sort(lines)
	return lines
}

func appendMessages(lines []string, messages protoreflect.MessageDescriptors) []string {
	for i := range messages.Len() {
		md := messages.Get(i)
		fields := md.Fields()
		for j := range fields.Len() {
			lines = append(lines, fieldLine(fields.Get(j)))
		}
		lines = appendEnums(lines, md.Enums())
		lines = appendMessages(lines, md.Messages())
	}
	return lines
}

func appendEnums(lines []string, enums protoreflect.EnumDescriptors) []string {
	for i := range enums.Len() {
		ed := enums.Get(i)
		values := ed.Values()
		for j := range values.Len() {
			v := values.Get(j)
			lines = append(lines, fmt.Sprintf("%s %d %s enumvalue", ed.FullName(), v.Number(), v.Name()))
		}
	}
	return lines
}

func fieldLine(fd protoreflect.FieldDescriptor) string {
	line := fmt.Sprintf("%s %d %s %s %s", fd.ContainingMessage().FullName(), fd.Number(), fd.Name(), fd.Kind(), fd.Cardinality())
	switch {
	case fd.Message() != nil:
		line += " " + string(fd.Message().FullName())
	case fd.Enum() != nil:
		line += " " + string(fd.Enum().FullName())
	}
	return line
}

// lineKey is what must never change meaning: a field number (or enum value) of a type.
func lineKey(line string) string {
	f := strings.Fields(line)
	if len(f) < 3 {
		return line
	}
	return f[0] + " " + f[1]
}

// nameKey finds a field again after a renumbering: its type and name.
func nameKey(line string) string {
	f := strings.Fields(line)
	if len(f) < 3 {
		return line
	}
	return f[0] + " " + f[2]
}

// goldenProblems compares the golden lines with the current ones.
func goldenProblems(golden, current []string) []string {
	nowByNumber, nowByName := map[string]string{}, map[string]string{}
	for _, l := range current {
		nowByNumber[lineKey(l)] = l
		nowByName[nameKey(l)] = l
	}
	was := map[string]bool{}
	explained := map[string]bool{} // current lines already reported as a renumbering
	var problems []string
	for _, g := range golden {
		was[lineKey(g)] = true
		c, ok := nowByNumber[lineKey(g)]
		switch {
		case ok && c != g:
			problems = append(problems, fmt.Sprintf("changed: %q is now %q", g, c))
		case ok:
		case nowByName[nameKey(g)] != "":
			c = nowByName[nameKey(g)]
			explained[c] = true
			problems = append(problems, fmt.Sprintf("renumbered: %q is now %q", g, c))
		default:
			problems = append(problems, fmt.Sprintf("removed: %q is gone", g))
		}
	}
	for _, c := range current {
		if !was[lineKey(c)] && !explained[c] {
			problems = append(problems, fmt.Sprintf("new: %q is not in %s; if it is meant to be, run: go test ./internal/msgs -run Golden -update", c, goldenPath))
		}
	}
	return problems
}

func readGolden(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./internal/msgs -run Golden -update)", err)
	}
	var lines []string
	for l := range strings.Lines(string(b)) {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestGoldenDescriptors(t *testing.T) {
	current := descriptorLines()
	if *update {
		out := goldenHeader + strings.Join(current, "\n") + "\n"
		if err := os.WriteFile(goldenPath, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d lines to %s", len(current), goldenPath)
	}
	// The selection of files must itself be right, or an empty set would pass.
	for _, want := range []string{
		"Platform.Stream.MessageStream 5 data bytes optional",
		"Platform.Stream.MessageStream 6 compression enum optional Platform.Stream.Compression",
		"Platform.Stream.Compression 1 COMPRESSION_GZIP enumvalue",
		"Platform.Messages.geometry_msgs.Twist 1 linear message optional Platform.Messages.geometry_msgs.Vector3",
		"Platform.Messages.std_msgs.Header 1 stamp message optional Platform.Messages.builtin_interfaces.Time",
		"Platform.Messages.sensor_msgs.LaserScan 9 ranges float repeated",
	} {
		if !slices.Contains(current, want) {
			t.Errorf("the current descriptors lack %q", want)
		}
	}
	for _, name := range Names() {
		if !slices.ContainsFunc(current, func(l string) bool { return strings.HasPrefix(l, name+" ") }) {
			t.Errorf("catalog type %s has no golden lines", name)
		}
	}
	for _, p := range goldenProblems(readGolden(t), current) {
		t.Error(p)
	}
}

func TestGoldenProblems(t *testing.T) {
	golden := []string{
		"P.A 1 x double optional",
		"P.A 2 y double optional",
		"P.B 1 a message optional P.A",
	}
	tests := []struct {
		name    string
		current []string
		want    []string
	}{
		{"same", golden, nil},
		{"renamed", []string{"P.A 1 x double optional", "P.A 2 why double optional", "P.B 1 a message optional P.A"},
			[]string{`changed: "P.A 2 y double optional" is now "P.A 2 why double optional"`}},
		{"retyped", []string{"P.A 1 x float optional", "P.A 2 y double optional", "P.B 1 a message optional P.A"},
			[]string{`changed: "P.A 1 x double optional" is now "P.A 1 x float optional"`}},
		{"message type changed", []string{"P.A 1 x double optional", "P.A 2 y double optional", "P.B 1 a message optional P.C"},
			[]string{`changed: "P.B 1 a message optional P.A" is now "P.B 1 a message optional P.C"`}},
		{"renumbered", []string{"P.A 1 x double optional", "P.A 3 y double optional", "P.B 1 a message optional P.A"},
			[]string{`renumbered: "P.A 2 y double optional" is now "P.A 3 y double optional"`}},
		{"removed", []string{"P.A 1 x double optional", "P.B 1 a message optional P.A"},
			[]string{`removed: "P.A 2 y double optional" is gone`}},
		{"removed and another added", []string{"P.A 1 x double optional", "P.A 3 z double optional", "P.B 1 a message optional P.A"},
			[]string{
				`removed: "P.A 2 y double optional" is gone`,
				`new: "P.A 3 z double optional" is not in testdata/catalog.golden; if it is meant to be, run: go test ./internal/msgs -run Golden -update`,
			}},
		{"enum value renamed", []string{"P.A 1 x double optional", "P.A 2 y double optional", "P.B 1 a message optional P.A", "P.E 0 E_NONE enumvalue"},
			[]string{`new: "P.E 0 E_NONE enumvalue" is not in testdata/catalog.golden; if it is meant to be, run: go test ./internal/msgs -run Golden -update`}},
		{"added", append(slices.Clone(golden), "P.A 4 w double optional"),
			[]string{`new: "P.A 4 w double optional" is not in testdata/catalog.golden; if it is meant to be, run: go test ./internal/msgs -run Golden -update`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := goldenProblems(golden, tt.current)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
