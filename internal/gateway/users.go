package gateway

import (
	"context"
	"net/mail"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/google/uuid"
)

// Organization administration from the panel: users, agents, kiosk tokens. Only org admins
// with a session that may act (not a kiosk) get here.

func requireOrgAdmin(c *Caller) error {
	if !c.User.OrgAdmin {
		return fleetgate.Errorf(fleetgate.EForbidden, "only organization admins may manage the organization")
	}
	if !c.CanAct() {
		return fleetgate.Errorf(fleetgate.EForbidden, "a read-only token may not manage the organization")
	}
	if c.Token.FleetID != "" {
		// A token restricted to one fleet is an admin's way to hand out less than the whole
		// organization: it must not create admins, agents or kiosks for the rest of it.
		return fleetgate.Errorf(fleetgate.EForbidden, "a token restricted to one fleet may not manage the organization")
	}
	return nil
}

// Users lists the users of the caller's organization.
func (ac *AccountService) Users(ctx context.Context, c *Caller) ([]fleetgate.User, error) {
	if err := requireOrgAdmin(c); err != nil {
		return nil, err
	}
	return ac.store.Users(ctx, c.User.OrgID)
}

// NewUserInput describes a user an org admin creates.
type NewUserInput struct {
	Email    string
	Name     string
	OrgAdmin bool
}

// CreateUser adds a user to the caller's organization with a generated first password,
// which is returned once for the admin to pass on.
func (ac *AccountService) CreateUser(ctx context.Context, c *Caller, in NewUserInput) (fleetgate.User, string, error) {
	if err := requireOrgAdmin(c); err != nil {
		return fleetgate.User{}, "", err
	}
	email := strings.TrimSpace(in.Email)
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email {
		return fleetgate.User{}, "", fleetgate.Errorf(fleetgate.EInvalid, "%q is not an email address", in.Email)
	}
	u := fleetgate.User{ID: uuid.NewString(), OrgID: c.User.OrgID, Email: email, Name: strings.TrimSpace(in.Name), OrgAdmin: in.OrgAdmin}
	if err := ac.store.CreateUser(ctx, u); fleetgate.ErrorCode(err) == fleetgate.EConflict {
		return fleetgate.User{}, "", fleetgate.Errorf(fleetgate.EConflict, "a user with email %q already exists", email)
	} else if err != nil {
		return fleetgate.User{}, "", err
	}
	password := NewSecret("", 16)
	if err := ac.store.SetPasswordHash(ctx, u.ID, hashPassword(password), true); err != nil {
		return fleetgate.User{}, "", err
	}
	u.HasPassword, u.MustChangePassword = true, true
	return u, password, nil
}

// orgUser finds a user of the caller's organization; another organization's is not found.
func (ac *AccountService) orgUser(ctx context.Context, c *Caller, userID string) (fleetgate.User, error) {
	u, err := ac.store.User(ctx, userID)
	if fleetgate.ErrorCode(err) == fleetgate.ENotFound || (err == nil && u.OrgID != c.User.OrgID) {
		return fleetgate.User{}, fleetgate.Errorf(fleetgate.ENotFound, "user %q not found", userID)
	}
	return u, err
}

// SetUserDisabled disables a user (their sessions and tokens stop working at once) or
// enables them again. Admins cannot disable themselves: someone must be left to undo it.
func (ac *AccountService) SetUserDisabled(ctx context.Context, c *Caller, userID string, disabled bool) error {
	if err := requireOrgAdmin(c); err != nil {
		return err
	}
	u, err := ac.orgUser(ctx, c, userID)
	if err != nil {
		return err
	}
	if u.ID == c.User.ID && disabled {
		return fleetgate.Errorf(fleetgate.EConflict, "you cannot disable your own account")
	}
	var at time.Time // zero: enabled
	if disabled {
		at = ac.now().UTC()
	}
	return ac.store.SetUserDisabled(ctx, u.ID, at)
}

// ResetPassword gives a user a new generated password, returned once for the admin to pass
// on; the old one stops working.
func (ac *AccountService) ResetPassword(ctx context.Context, c *Caller, userID string) (string, error) {
	if err := requireOrgAdmin(c); err != nil {
		return "", err
	}
	u, err := ac.orgUser(ctx, c, userID)
	if err != nil {
		return "", err
	}
	password := NewSecret("", 16)
	return password, ac.store.SetPasswordHash(ctx, u.ID, hashPassword(password), true)
}
