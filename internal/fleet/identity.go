package fleet

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

// identities keeps the ids of a source's robots by a key of the source's choosing (a ROS
// master URI, a ROS 2 namespace), so a robot keeps its id and its history in the gateway
// across restarts of the agent.
type identities struct {
	Robots map[string]identity `json:"robots"`
}

type identity struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
}

// LoadIdentity returns the id of the robot that key names, from dir/robots.json, made and kept
// there the first time.
func LoadIdentity(dir, master string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "robots.json")
	doc := identities{Robots: map[string]identity{}}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	default:
		// A damaged file is an error, not a reason for a new id: the robot's record in the
		// gateway would be orphaned.
		if err := json.Unmarshal(b, &doc); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if doc.Robots == nil {
			doc.Robots = map[string]identity{}
		}
	}
	if id, ok := doc.Robots[master]; ok {
		if _, err := uuid.Parse(id.ID); err != nil {
			return "", fmt.Errorf("%s: robot of %s: id %q: %w", path, master, id.ID, err)
		}
		return id.ID, nil
	}
	id := identity{ID: uuid.NewString(), Created: time.Now().UTC().Truncate(time.Second)}
	doc.Robots[master] = id
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o600); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	return id.ID, nil
}
