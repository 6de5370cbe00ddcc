// Package static holds the panel's stylesheets and the browser bundle, embedded in the
// binary and served under content-hashed names, so browsers may cache them forever and a new
// release is never mixed with a stale file. The bundle (dist/) is built by esbuild
// (`npm run build`), which names its files by content itself; dist/manifest.json maps each
// entry point to its file. The binary needs no Node: dist is committed.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed css dist img
var files embed.FS

// Prefix is where the assets are served.
const Prefix = "/static/"

// manifestName is esbuild's map of entry points to hashed files; it is not served.
const manifestName = "dist/manifest.json"

type asset struct {
	body        []byte
	contentType string
}

var (
	hashed map[string]string // "css/panel.css" -> "/static/css/panel.3f2a….css"; "dist/panel.js" -> "/static/dist/panel-AB12CD.js"
	byPath map[string]asset  // "css/panel.3f2a….css" -> the file
)

func init() {
	var err error
	if hashed, byPath, err = load(files); err != nil {
		panic("static: " + err.Error()) // the files are embedded: this is a build mistake
	}
}

func load(fsys fs.FS) (hashed map[string]string, byPath map[string]asset, err error) {
	hashed, byPath = map[string]string{}, map[string]asset{}
	err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == manifestName {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		ext := path.Ext(name)
		served := name
		if !strings.HasPrefix(name, "dist/") { // dist is hashed by esbuild already
			sum := sha256.Sum256(body)
			served = strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
			hashed[name] = Prefix + served
		}
		byPath[served] = asset{body: body, contentType: mime.TypeByExtension(ext)}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	raw, err := fs.ReadFile(fsys, manifestName)
	if err != nil {
		return nil, nil, fmt.Errorf("%w (run npm ci && npm run build)", err)
	}
	var entries map[string]string
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", manifestName, err)
	}
	for entry, file := range entries {
		if _, ok := byPath["dist/"+file]; !ok {
			return nil, nil, fmt.Errorf("%s names %s, which is not in dist", manifestName, file)
		}
		hashed["dist/"+entry] = Prefix + "dist/" + file
	}
	return hashed, byPath, nil
}

// Path is the hashed URL path of an embedded file ("css/panel.css") or bundle entry point
// ("dist/panel.js"). An unknown name panics: it is a programming mistake found by the first
// render in any test.
func Path(name string) string {
	p, ok := hashed[name]
	if !ok {
		panic("static: no file " + name)
	}
	return p
}

// Handler serves the hashed files under Prefix; any other path is 404.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := byPath[strings.TrimPrefix(r.URL.Path, Prefix)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", a.contentType)
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(a.body)
	})
}
