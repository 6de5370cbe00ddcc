package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/fleetgate/fleetgate"
)

// Retention of the cloud's copies of recordings: the copies older than a maximum age are
// deleted, then, in each organization whose copies together pass its quota, the oldest
// first until they fit. A copy being downloaded is kept until the download ends (the next
// round deletes it). A deleted recording's record stays, marked DeletedPath, so that the
// entries of the event log that name it can say what became of it, and so that its agent
// does not upload it again; each deletion is an entry of its own (type system).

// SystemAuthor is the author of the entries the gateway writes of its own accord.
const SystemAuthor = "fleetgate"

// DeletedPath marks the record of a resource whose archived copy retention deleted.
const DeletedPath = "deleted by retention"

// RecordingRetention is the cloud's rule for its copies of recordings.
type RecordingRetention struct {
	MaxAge   time.Duration // older copies are deleted; 0 keeps them however old
	OrgQuota int64         // bytes per organization, oldest deleted first; 0: no quota
}

// ArchivedRecording is the record of an archived recording with its organization.
type ArchivedRecording struct {
	fleetgate.ResourceRecord
	OrgID, FleetID, RobotName string
}

// removableArchive is an archive that can delete a copy (the cloud's).
type removableArchive interface {
	Remove(id string) error
}

// ApplyRetention deletes the copies of recordings rule says to delete, as of now, and
// returns how many it deleted.
func (g *Gateway) ApplyRetention(ctx context.Context, rule RecordingRetention) (int, error) {
	ag := g.AgentService
	archive, ok := ag.archive.(removableArchive)
	if !ok || (rule.MaxAge <= 0 && rule.OrgQuota <= 0) {
		return 0, nil
	}
	recs, err := ag.store.ArchivedRecordings(ctx) // oldest first
	if err != nil {
		return 0, err
	}
	now := ag.now()
	used := map[string]int64{}
	for _, r := range recs {
		used[r.OrgID] += r.Size
	}
	deleted := 0
	for _, r := range recs {
		var why string
		switch {
		case rule.MaxAge > 0 && now.Sub(r.CreatedAt) > rule.MaxAge:
			why = "older than " + rule.MaxAge.String()
		case rule.OrgQuota > 0 && used[r.OrgID] > rule.OrgQuota:
			why = fmt.Sprintf("the organization's recordings passed their quota of %d bytes", rule.OrgQuota)
		default:
			continue
		}
		if ag.downloads.busy(r.ID) {
			ag.log.Info("retention keeps a recording being downloaded", "recording", r.ID, "robot", r.RobotName)
			continue
		}
		did, err := g.deleteRecording(ctx, archive, r, why)
		if err != nil {
			return deleted, err
		}
		used[r.OrgID] -= r.Size
		if did {
			deleted++
		}
	}
	return deleted, nil
}

// deleteRecording marks the record deleted, removes the copy and says so in the event log;
// false when another replica deleted it meanwhile.
func (g *Gateway) deleteRecording(ctx context.Context, archive removableArchive, r ArchivedRecording, why string) (bool, error) {
	if marked, err := g.AgentService.store.MarkResourceDeleted(ctx, r.ID); err != nil || !marked {
		return false, err
	}
	if err := archive.Remove(r.ID); err != nil {
		g.AgentService.log.Warn("removing a recording's copy", "recording", r.ID, "err", err)
	}
	g.AgentService.log.Info("recording deleted by retention", "recording", r.ID, "robot", r.RobotName, "size", r.Size, "why", why)
	return true, g.EventService.RecordEvent(ctx, fleetgate.Event{
		RobotID: r.RobotID, FleetID: r.FleetID, AuthorEmail: SystemAuthor,
		Type: fleetgate.EventSystem, Severity: fleetgate.SeverityInfo, RecordingID: r.ID,
		Message: fmt.Sprintf("recording %s (%d bytes, from %s) deleted by retention: %s", r.Name, r.Size,
			r.CreatedAt.UTC().Format(time.RFC3339), why),
	})
}
