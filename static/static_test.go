package static

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func TestBundleEntriesAreServedUnderTheirHashedNames(t *testing.T) {
	h := Handler()
	for _, entry := range []string{"dist/panel.js", "dist/decode-worker.js", "dist/vendor.css", "css/panel.css"} {
		t.Run(entry, func(t *testing.T) {
			p := Path(entry)
			if !regexp.MustCompile(`^/static/(dist/[a-z-]+-[A-Z0-9]{8}|css/panel\.[0-9a-f]{12})\.(js|css)$`).MatchString(p) {
				t.Fatalf("Path(%q) = %q, want a content-hashed name", entry, p)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
			if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
				t.Fatalf("GET %s = %d (%d bytes)", p, rec.Code, rec.Body.Len())
			}
			if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") {
				t.Errorf("Cache-Control = %q", cc)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") && !strings.HasPrefix(ct, "text/css") {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

func TestUnhashedAndUnknownPathsAre404(t *testing.T) {
	for _, p := range []string{"/static/dist/manifest.json", "/static/css/panel.css", "/static/dist/panel.js", "/static/nope"} {
		rec := httptest.NewRecorder()
		Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, rec.Code)
		}
	}
}

func TestLoadRefusesAManifestThatNamesAMissingFile(t *testing.T) {
	fsys := fstest.MapFS{
		"css/panel.css":      {Data: []byte("body{}")},
		"dist/panel-AAAA.js": {Data: []byte("1")},
		"dist/manifest.json": {Data: []byte(`{"panel.js": "panel-BBBB.js"}`)},
	}
	if _, _, err := load(fsys); err == nil || !strings.Contains(err.Error(), "panel-BBBB.js") {
		t.Fatalf("load = %v, want an error naming the missing file", err)
	}
	delete(fsys, "dist/manifest.json")
	if _, _, err := load(fsys); err == nil || !strings.Contains(err.Error(), "npm run build") {
		t.Fatalf("load without manifest = %v, want a hint to build", err)
	}
}
