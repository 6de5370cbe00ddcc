package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"
)

// idsFile keeps the simulated robots' identities in the data directory, so that robot n has
// the same id after a restart and its history in the gateway stays its own.
const idsFile = "robots.json"

type identity struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"` // when the id was made; the licence runs a year from it
}

type idsDocument struct {
	Robots []identity `json:"robots"`
}

// loadIdentities returns n identities from dir/robots.json in index order, making and saving
// new ones for indexes the file does not have yet. Identities beyond n are kept for a later
// start with more robots.
func loadIdentities(dir string, n int, now time.Time) ([]identity, error) {
	path := filepath.Join(dir, idsFile)
	var doc idsDocument
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		// A damaged file is an error, not a reason to hand out new identities: the robots'
		// records in the gateway would be orphaned.
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for i, id := range doc.Robots {
			if _, err := uuid.Parse(id.ID); err != nil {
				return nil, fmt.Errorf("%s: robot %d: id %q: %w", path, i+1, id.ID, err)
			}
		}
	}
	if len(doc.Robots) >= n {
		return doc.Robots[:n], nil
	}
	for len(doc.Robots) < n {
		doc.Robots = append(doc.Robots, identity{ID: uuid.NewString(), Created: now.UTC().Truncate(time.Second)})
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, append(out, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("saving robot ids: %w", err)
	}
	return doc.Robots, nil
}
