// Package static holds the panel's stylesheets and scripts, embedded in the binary and
// served under content-hashed names, so browsers may cache them forever and a new release
// is never mixed with a stale file.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed css js
var files embed.FS

// Prefix is where the assets are served.
const Prefix = "/static/"

type asset struct {
	body        []byte
	contentType string
}

var (
	hashed  = map[string]string{} // "css/panel.css" -> "/static/css/panel.3f2a….css"
	byPath  = map[string]asset{}  // "css/panel.3f2a….css" -> the file
	initErr error
)

func init() {
	initErr = fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(name)
		h := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		hashed[name] = Prefix + h
		byPath[h] = asset{body: body, contentType: mime.TypeByExtension(ext)}
		return nil
	})
	if initErr != nil {
		panic("static: " + initErr.Error()) // the files are embedded: this is a build mistake
	}
}

// Path is the hashed URL path of an embedded file ("css/panel.css"). An unknown name
// panics: it is a programming mistake found by the first render in any test.
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
