// Package docs holds the repository's documentation; its test keeps the links true.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink is the target of a [text](target) link.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksStayInTheRepository: the README and these pages link only to files of the
// repository that exist (a clone has no ../shared), or to the web.
func TestLinksStayInTheRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	checked := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range markdownLink.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			path := filepath.Clean(filepath.Join(filepath.Dir(page), target))
			rel, err := filepath.Rel(root, path)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s links outside the repository: %s", filepath.Base(page), m[1])
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to a missing file: %s", filepath.Base(page), m[1])
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no link was checked: the pattern or the pages are wrong")
	}
}
