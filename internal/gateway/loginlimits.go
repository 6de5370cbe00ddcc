package gateway

import (
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/limit"
)

// loginLimits throttle guessing without handing anyone a way to lock an owner out. Only
// failures count. A password guesser is held per address and per (account, address); the
// account as a whole only slows down the addresses that failed on it, by a delay that grows
// with the account's failures: the right password from an address with no failures is never
// refused because of what others did (admin@localhost is a guessable email). API tokens and
// agent keys are checked before any limit (a SHA-256 lookup costs nothing, and 32 random
// characters cannot be guessed): a valid one is never refused, so a warehouse behind one NAT
// is not locked out by a neighbour's typos; a wrong one counts and is answered 429 once the
// address has failed too often.
type loginLimits struct {
	// address: failed logins of any kind but agent keys, per client address.
	address *limit.Window
	// accountAddress: failed passwords per account and address.
	accountAddress *limit.Window
	// account: failed passwords per account in the last hour, counted for accountDelay;
	// never a block by itself.
	account *limit.Window
	// agent: failed agent keys per client address, apart from logins so that neither kind
	// of failure throttles the other.
	agent *limit.Window
}

func newLoginLimits(now func() time.Time) loginLimits {
	return loginLimits{
		address:        &limit.Window{Max: 10, Period: time.Minute, Now: now},
		accountAddress: &limit.Window{Max: 5, Period: 15 * time.Minute, Now: now},
		account:        &limit.Window{Max: 1000, Period: time.Hour, Now: now},
		agent:          &limit.Window{Max: 10, Period: time.Minute, Now: now},
	}
}

// accountDelay is how long an address that failed on an account waits after its last failure
// before it may try that account again, given the account's failures in the last hour: none
// below 10, then 1 s doubling every 10 failures, at most 5 minutes.
func accountDelay(failures int) time.Duration {
	if failures < 10 {
		return 0
	}
	return min(time.Second<<min((failures-10)/10, 9), 5*time.Minute)
}

func accountAddressKey(account, clientAddr string) string { return account + "\x00" + clientAddr }

// tooMany is the 429 of a login limit.
func tooMany(what string, wait time.Duration) error {
	return &fleetgate.Error{Code: fleetgate.ERateLimited, Message: "too many failed " + what + "; try again later", RetryAfter: max(wait, time.Second)}
}

// failed records a failed token login from clientAddr on w and says how to answer it: 429
// when the address has failed too often, else the failure itself.
func failed(w *limit.Window, clientAddr, what string, err error) error {
	if fleetgate.ErrorCode(err) != fleetgate.EUnauthorized {
		return err
	}
	if wait, blocked := w.Attempt(clientAddr); blocked {
		return tooMany(what, wait)
	}
	return err
}

// LoginFailure is one change of a login limit (a failure recorded, or taken back), passed
// between the cloud's replicas so that their limits count together.
type LoginFailure struct {
	Limit    string // address, account_address, account or agent
	Key      string
	At       time.Time
	Forgiven bool
}

// windows names the limits as LoginFailure does.
func (l loginLimits) windows() map[string]*limit.Window {
	return map[string]*limit.Window{"address": l.address, "account_address": l.accountAddress, "account": l.account, "agent": l.agent}
}

// ShareLoginFailures has every change of this gateway's login limits told to publish (the
// other replicas then Apply it). Call it before serving.
func (ac *AccountService) ShareLoginFailures(publish func(LoginFailure)) {
	for name, w := range ac.limits.windows() {
		w.Share = func(key string, at time.Time, forgiven bool) {
			publish(LoginFailure{Limit: name, Key: key, At: at, Forgiven: forgiven})
		}
	}
}

// ApplyLoginFailure takes a change of another replica's login limits.
func (ac *AccountService) ApplyLoginFailure(f LoginFailure) {
	if w, ok := ac.limits.windows()[f.Limit]; ok {
		w.Apply(f.Key, f.At, f.Forgiven)
	}
}
