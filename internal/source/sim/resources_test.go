package sim

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
)

func TestResources(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "fleetgate.log")
	if err := os.WriteFile(logFile, []byte("time=... level=INFO msg=\"robot online\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustNewSim(t, Config{Count: 2, DataDir: dir, LogFile: logFile}, nil)
	ctx := context.Background()
	r := s.robots[0]
	list, err := r.Resources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]fleetgate.Resource{}
	for _, res := range list {
		byName[res.Name] = res
		if _, err := uuid.Parse(res.ID); err != nil {
			t.Errorf("resource %s id %q: %v", res.Name, res.ID, err)
		}
	}
	tests := []struct {
		name, path, mime, fileType string
	}{
		{"fleetgate.log", logFile, "text/plain", "log"},
		{"warehouse-map.png", filepath.Join(dir, "sim", "warehouse-map.png"), "image/png", "image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok := byName[tt.name]
			if !ok {
				t.Fatalf("not listed: %v", list)
			}
			st, err := os.Stat(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if res.MIMEType != tt.mime || res.FileType != tt.fileType || res.Size != st.Size() || !res.CreatedAt.Equal(st.ModTime()) {
				t.Errorf("resource %+v; file size %d time %v", res, st.Size(), st.ModTime())
			}
			f, opened, err := r.OpenResource(ctx, res.ID)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			content, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(tt.path)
			if !bytes.Equal(content, want) || opened.Size != int64(len(content)) || opened.ID != res.ID {
				t.Errorf("opened %+v with %d bytes, want the file's %d", opened, len(content), len(want))
			}
		})
	}

	img, err := png.Decode(bytes.NewReader(mustReadFile(t, filepath.Join(dir, "sim", "warehouse-map.png"))))
	if err != nil {
		t.Fatalf("map PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 600 || b.Dy() != 400 {
		t.Errorf("map PNG is %dx%d, want 600x400", b.Dx(), b.Dy())
	}

	// Ids are per robot and stable for a file.
	other, _ := s.robots[1].Resources(ctx)
	if len(other) != len(list) || other[0].ID == list[0].ID {
		t.Errorf("robots share resource ids: %v and %v", list, other)
	}
	again, _ := r.Resources(ctx)
	if !slices.EqualFunc(again, list, func(a, b fleetgate.Resource) bool { return a.ID == b.ID }) {
		t.Errorf("resource ids changed: %v then %v", list, again)
	}

	// The log grows; a new open reports the size at that moment.
	if f, err := os.OpenFile(logFile, os.O_APPEND|os.O_WRONLY, 0); err == nil {
		f.WriteString("more\n")
		f.Close()
	}
	f, opened, err := r.OpenResource(ctx, byName["fleetgate.log"].ID)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if opened.Size != byName["fleetgate.log"].Size+5 {
		t.Errorf("size after the log grew = %d, want %d", opened.Size, byName["fleetgate.log"].Size+5)
	}

	if _, _, err := r.OpenResource(ctx, uuid.NewString()); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("OpenResource of an unknown id: %v, want ErrNotFound", err)
	}
	if _, _, err := r.OpenResource(ctx, "../../etc/passwd"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("OpenResource of a path: %v, want ErrNotFound", err)
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLogResourceOnlyWhenTheFileExists(t *testing.T) {
	tests := []struct {
		name    string
		logFile func(dir string) string
	}{
		{"no log file configured", func(string) string { return "" }},
		{"log file not created yet", func(dir string) string { return filepath.Join(dir, "missing.log") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := mustNewSim(t, Config{DataDir: dir, LogFile: tt.logFile(dir)}, nil)
			list, err := s.robots[0].Resources(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 || list[0].Name != "warehouse-map.png" {
				t.Errorf("resources %v, want only the map", list)
			}
		})
	}
}

func TestMapFileKeptWhenUnchanged(t *testing.T) {
	dir := t.TempDir()
	s := mustNewSim(t, Config{DataDir: dir, Seed: 4}, nil)
	before, err := os.Stat(s.mapFile)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2 := mustNewSim(t, Config{DataDir: dir, Seed: 4}, nil)
	after, err := os.Stat(s2.mapFile)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the same map was rewritten")
	}
	s2.Close()
	s3 := mustNewSim(t, Config{DataDir: dir, Seed: 5}, nil)
	png3, png4 := mustReadFile(t, s3.mapFile), []byte(nil)
	w4 := newWarehouse(4)
	cells, width, height := w4.raster()
	png4, _ = mapPNG(cells, width, height)
	if bytes.Equal(png3, png4) {
		t.Errorf("another seed's map did not replace the file")
	}
}

func TestIDsStableAcrossStarts(t *testing.T) {
	dir := t.TempDir()
	ids := func(count int) []string {
		t.Helper()
		s := mustNewSim(t, Config{Count: count, DataDir: dir}, nil)
		defer s.Close()
		var out []string
		for i, r := range s.Robots() {
			info := r.Info()
			if _, err := uuid.Parse(info.ID); err != nil {
				t.Errorf("robot %d id %q: %v", i, info.ID, err)
			}
			if want := "sim-" + string(rune('1'+i)); info.Name != want || info.ConfigName != "warehouse-sim" || info.ConfigVersion != "1" {
				t.Errorf("robot %d info %+v", i, info)
			}
			out = append(out, info.ID)
		}
		return out
	}
	first := ids(2)
	if first[0] == first[1] {
		t.Fatalf("two robots share id %s", first[0])
	}
	if again := ids(2); !slices.Equal(again, first) {
		t.Errorf("ids after a restart %v, want %v", again, first)
	}
	three := ids(3)
	if !slices.Equal(three[:2], first) || slices.Contains(first, three[2]) {
		t.Errorf("ids with a third robot %v, want %v and a new one", three, first)
	}
	if one := ids(1); one[0] != first[0] {
		t.Errorf("id with one robot %v, want %v", one, first[:1])
	}
	if back := ids(3); !slices.Equal(back, three) {
		t.Errorf("ids with three robots again %v, want %v", back, three)
	}
}

func TestDamagedIDsFileIsAnError(t *testing.T) {
	tests := []struct{ name, content string }{
		{"not JSON", "{robots"},
		{"not a UUID", `{"robots":[{"id":"sim-1","created":"2026-01-01T00:00:00Z"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "sim"), 0o755)
			path := filepath.Join(dir, "sim", idsFile)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := newSim(Config{Count: 1, DataDir: dir}, nil, testStart); err == nil {
				t.Error("newSim accepted a damaged ids file")
			}
			if got := string(mustReadFile(t, path)); got != tt.content {
				t.Errorf("the damaged file was overwritten with %q", got)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no robots", Config{Count: 0, DataDir: "x"}},
		{"too many robots", Config{Count: maxRobots + 1, DataDir: "x"}},
		{"no data directory", Config{Count: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Start(context.Background(), tt.cfg); err == nil {
				t.Error("Start accepted the config")
			}
		})
	}
}
