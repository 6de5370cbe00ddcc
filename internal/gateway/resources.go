package gateway

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
)

// URLSigner signs and checks the gateway's pre-signed download links (internal/blob).
type URLSigner interface {
	Sign(method, path string, ttl time.Duration) url.Values
	// Verify returns ErrLinkExpired- or other non-nil errors for a link that may not be used.
	Verify(method, path string, query url.Values) error
}

// FilesPrefix is where signed downloads are served, outside the API prefix.
const FilesPrefix = "/files/"

// DownloadTTL is how long a download link works.
const DownloadTTL = 5 * time.Minute

var actDownload = action{minRole: fleetgate.RoleOperator, acts: true, what: "download resources"}

// ResourceArchive holds verified copies of resource files, by resource id. Its records are the
// store's resources rows with a Path (SyncedResources); the archive holds their bytes.
type ResourceArchive interface {
	Open(id string) (fleet.ResourceFile, error)
}

// ArchivedPath marks a resource record whose file is in the archive.
const ArchivedPath = "archive"

// SaveArchivedResource records a resource file of robot robotID that the archive now holds
// whole, with its hex SHA-256: from now on it is listed and served.
func (ag *AgentService) SaveArchivedResource(ctx context.Context, robotID string, res fleetgate.Resource, sha256hex string) error {
	if err := ag.MayArchive(ctx, robotID, res.ID); err != nil {
		return err
	}
	rec := fleetgate.ResourceRecord{
		ID: res.ID, RobotID: robotID, Name: res.Name, MIMEType: res.MIMEType, FileType: res.FileType,
		Size: res.Size, SHA256: sha256hex, Path: ArchivedPath, CreatedAt: res.CreatedAt.UTC(), AdminOnly: res.AdminOnly,
	}
	return ag.store.SaveResource(ctx, rec)
}

// MayArchive is nil unless resource resourceID is recorded for another robot than robotID
// (EConflict): resource ids come from agents, and one robot must not take over another's
// resource, nor overwrite its archived copy.
func (ag *AgentService) MayArchive(ctx context.Context, robotID, resourceID string) error {
	rec, err := ag.store.Resource(ctx, resourceID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound {
		return nil
	} else if err != nil {
		return err
	}
	if rec.RobotID != robotID {
		return fleetgate.Errorf(fleetgate.EConflict, "resource %s belongs to another robot", resourceID)
	}
	if rec.Path == DeletedPath {
		return fleetgate.Errorf(fleetgate.EConflict, "resource %s was %s: it is not taken again", resourceID, DeletedPath)
	}
	return nil
}

// ArchivedResources lists the resources of robot robotID whose whole copy the archive holds,
// newest first.
func (ag *AgentService) ArchivedResources(ctx context.Context, robotID string) ([]fleetgate.Resource, error) {
	recs, err := ag.store.SyncedResources(ctx, robotID)
	if err != nil {
		return nil, err
	}
	out := make([]fleetgate.Resource, len(recs))
	for i, r := range recs {
		out[i] = r.Resource()
	}
	return out, nil
}

// listResources is what robot r offers: for a robot behind the agent link on a gateway with
// an archive (the cloud), the archive's copies, whether or not the robot is online; else the
// connected robot's own list. archived says which.
func (ag *AgentService) listResources(ctx context.Context, c *Caller, robotID string, act action) (r fleetgate.Robot, list []fleetgate.Resource, archived bool, err error) {
	r, _, err = ag.robots.authorizeRobot(ctx, c, robotID, act)
	if err != nil {
		return fleetgate.Robot{}, nil, false, err
	}
	if ag.archive != nil && r.AgentID != "" {
		list, err := ag.ArchivedResources(ctx, r.ID)
		if err != nil {
			return fleetgate.Robot{}, nil, false, err
		}
		return r, visibleResources(c, list), true, nil
	}
	live, ok := ag.presence.Robot(r.ID)
	if !ok {
		return fleetgate.Robot{}, nil, false, fleetgate.Errorf(fleetgate.EUnavailable, "robot %q is offline", r.Name)
	}
	list, err = robotCall(ctx, r, live.Resources)
	return r, visibleResources(c, list), false, err
}

// visibleResources drops the resources the caller may not see: AdminOnly ones unless the
// caller may manage the organization (an org admin, not through a read-only or
// fleet-restricted token). To everybody else they do not exist, as robots they cannot see.
func visibleResources(c *Caller, list []fleetgate.Resource) []fleetgate.Resource {
	if requireOrgAdmin(c) == nil {
		return list
	}
	return slices.DeleteFunc(slices.Clone(list), func(r fleetgate.Resource) bool { return r.AdminOnly })
}

// Resources is endpoint 4: the files a connected robot offers, newest first.
func (ag *AgentService) Resources(ctx context.Context, c *Caller, robotID string) ([]fleetgate.Resource, error) {
	r, list, archived, err := ag.listResources(ctx, c, robotID, actView)
	if err != nil {
		return nil, err
	}
	list = slices.Clone(list)
	slices.SortStableFunc(list, func(a, b fleetgate.Resource) int { return b.CreatedAt.Compare(a.CreatedAt) })
	if archived {
		return list, nil // archived records are already what a download serves
	}
	// Remember each file as listed: a download serves what the caller saw, also of a file
	// that grows meanwhile (the agent's own log).
	for _, res := range list {
		if err := ag.store.SaveResource(ctx, resourceRecord(r, res)); err != nil {
			return nil, err
		}
	}
	return list, nil
}

func resourceRecord(r fleetgate.Robot, res fleetgate.Resource) fleetgate.ResourceRecord {
	return fleetgate.ResourceRecord{
		ID: res.ID, RobotID: r.ID, Name: res.Name, MIMEType: res.MIMEType, FileType: res.FileType,
		Size: res.Size, CreatedAt: res.CreatedAt, AdminOnly: res.AdminOnly,
	}
}

// ResourceLink is endpoint 5: a pre-signed link (path and query, relative to the gateway's
// public URL) to download one resource of a robot. The resource is recorded so the link can
// be served later.
func (ag *AgentService) ResourceLink(ctx context.Context, c *Caller, robotID, resourceID string) (string, error) {
	if ag.signer == nil {
		return "", fleetgate.Errorf(fleetgate.ENotFound, "this gateway cannot make download links")
	}
	r, list, archived, err := ag.listResources(ctx, c, robotID, actDownload)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(list, func(res fleetgate.Resource) bool { return res.ID == resourceID })
	if i < 0 {
		return "", fleetgate.Errorf(fleetgate.ENotFound, "robot %q has no resource %q", r.Name, resourceID)
	}
	path := FilesPrefix + url.PathEscape(list[i].ID)
	if archived {
		return path + "?" + ag.signer.Sign("GET", path, DownloadTTL).Encode(), nil
	}
	rec := resourceRecord(r, list[i])
	if listed, err := ag.store.Resource(ctx, rec.ID); err == nil && listed.RobotID == r.ID &&
		listed.Name == rec.Name && listed.Size <= rec.Size {
		// The file as the caller listed it: it has only grown since (a log's time moves as
		// it grows, so the time is not compared).
		rec.Size, rec.CreatedAt = listed.Size, listed.CreatedAt
	}
	if err := ag.store.SaveResource(ctx, rec); err != nil {
		return "", err
	}
	return path + "?" + ag.signer.Sign("GET", path, DownloadTTL).Encode(), nil
}

// OpenLink opens the file a signed link points at: EForbidden for a link that is tampered
// with or expired, ENotFound when the resource is gone. The caller closes the file.
func (ag *AgentService) OpenLink(ctx context.Context, method, path string, query url.Values, resourceID string) (fleet.ResourceFile, fleetgate.Resource, error) {
	if ag.signer == nil {
		return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "no such file")
	}
	if err := ag.signer.Verify(method, path, query); err != nil {
		return nil, fleetgate.Resource{}, &fleetgate.Error{Code: fleetgate.EForbidden, Message: "the download link is invalid or has expired; ask for a new one", Err: err}
	}
	rec, err := ag.store.Resource(ctx, resourceID)
	if err != nil {
		return nil, fleetgate.Resource{}, err
	}
	robot, err := ag.store.Robot(ctx, rec.RobotID)
	if err != nil {
		return nil, fleetgate.Resource{}, err
	}
	if rec.Path == DeletedPath {
		return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "recording %q was %s", rec.Name, DeletedPath)
	}
	if rec.Path == ArchivedPath && ag.archive != nil {
		f, err := ag.archive.Open(rec.ID)
		if err != nil {
			return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "the copy of resource %q is gone", rec.Name)
		}
		return f, rec.Resource(), nil
	}
	live, ok := ag.presence.Robot(rec.RobotID)
	if !ok {
		return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.EUnavailable, "robot %q that holds this file is offline", robot.Name)
	}
	f, res, err := live.OpenResource(ctx, resourceID)
	if fleetgate.Is(err, fleetgate.ENotFound) {
		return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "resource %q no longer exists", rec.Name)
	}
	if err != nil {
		return nil, fleetgate.Resource{}, robotError(robot, err)
	}
	if rec.Size > 0 && rec.Size < res.Size {
		res.Size = rec.Size // serve the file as it was listed
	}
	return f, res, nil
}
