package gateway

import (
	"context"
	"strings"
	"unicode/utf8"
)

// MaxEventMessage is the largest event-log message, in bytes.
const MaxEventMessage = 4096

// PostEventInput is endpoint 12's query.
type PostEventInput struct {
	RobotID string
	FleetID string // optional
	Message string
}

// PostEvent records a user's event-log message. When it returns nil the entry is on disk.
func (g *Gateway) PostEvent(ctx context.Context, c *Caller, in PostEventInput) (Event, error) {
	switch {
	case in.RobotID == "":
		return Event{}, Errorf(EInvalid, "robotId is required")
	case strings.TrimSpace(in.Message) == "":
		return Event{}, Errorf(EInvalid, "message is required")
	case len(in.Message) > MaxEventMessage:
		return Event{}, Errorf(EInvalid, "message is %d bytes; the limit is %d", len(in.Message), MaxEventMessage)
	case !utf8.ValidString(in.Message):
		return Event{}, Errorf(EInvalid, "message is not valid UTF-8")
	}
	r, _, err := g.authorizeRobot(ctx, c, in.RobotID, actPostEvent)
	if err != nil {
		return Event{}, err
	}
	if in.FleetID != "" {
		if err := g.checkFleetVisible(ctx, c, in.FleetID); err != nil {
			return Event{}, err
		}
	}
	e := Event{
		RobotID:     r.ID,
		FleetID:     in.FleetID,
		UserID:      c.User.ID,
		AuthorEmail: c.User.Email,
		Message:     in.Message,
		CreatedAt:   g.now().UTC(),
	}
	if err := g.store.CreateEvent(ctx, &e); err != nil {
		return Event{}, err
	}
	return e, nil
}

// checkFleetVisible answers ENotFound unless fleetID is a fleet of the caller's organization
// within the token's fleet restriction.
func (g *Gateway) checkFleetVisible(ctx context.Context, c *Caller, fleetID string) error {
	notFound := Errorf(ENotFound, "fleet %q not found", fleetID)
	f, err := g.store.Fleet(ctx, fleetID)
	if ErrorCode(err) == ENotFound {
		return notFound
	} else if err != nil {
		return err
	}
	if f.OrgID != c.User.OrgID || (c.Token.FleetID != "" && c.Token.FleetID != f.ID) {
		return notFound
	}
	return nil
}
