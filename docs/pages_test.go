package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pages are the README and the pages of docs/.
func pages(t *testing.T) (root string, paths []string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	paths, _ = filepath.Glob(filepath.Join(root, "docs", "*.md"))
	return root, append(paths, filepath.Join(root, "README.md"))
}

var (
	mdName = regexp.MustCompile(`[\w./-]+\.md\b`)
	design = regexp.MustCompile(`\bDESIGN\b`)
)

// TestPagesNameOnlyDocumentsOfTheRepository: a reader of a clone can open every document a
// page names, in words as well as in links; the design document the project was planned
// with is not in the repository (docs/ says what it said).
func TestPagesNameOnlyDocumentsOfTheRepository(t *testing.T) {
	root, paths := pages(t)
	for _, page := range paths {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, name := range mdName.FindAllString(text, -1) {
			if filepath.IsAbs(name) {
				continue // where a package installs it (/usr/share/doc/...)
			}
			found := false
			for _, dir := range []string{filepath.Dir(page), root, filepath.Join(root, "docs")} {
				if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s names %s, which is not in the repository", filepath.Base(page), name)
			}
		}
		if design.MatchString(text) {
			t.Errorf("%s points to DESIGN, a document not in the repository: point to docs/", filepath.Base(page))
		}
	}
}

var (
	fuzzFunc  = regexp.MustCompile(`^func Fuzz\w*\(`)
	fuzzCount = regexp.MustCompile(`every .Fuzz. target of the repository, found at run time, 4 s each in the test command and a minute each with .make fuzz. \((\d+) today`)
)

// TestFuzzTargetCount: docs/reliability.md says how many fuzz targets the test script runs;
// that is the number of Fuzz functions in the tree.
func TestFuzzTargetCount(t *testing.T) {
	root, _ := pages(t)
	targets := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if fuzzFunc.MatchString(sc.Text()) {
				targets++
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if targets == 0 {
		t.Fatal("no fuzz target found: the walk or the pattern is wrong")
	}
	data, err := os.ReadFile(filepath.Join(root, "docs", "reliability.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := fuzzCount.FindStringSubmatch(strings.Join(strings.Fields(string(data)), " "))
	if m == nil {
		t.Fatal("reliability.md no longer says how many fuzz targets there are")
	}
	if said, _ := strconv.Atoi(m[1]); said != targets {
		t.Errorf("reliability.md counts %d fuzz targets; the tree has %d", said, targets)
	}
}
