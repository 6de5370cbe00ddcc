package cluster

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/nats-io/nats.go"
)

// Auth is how a replica proves itself to the NATS server, and how it knows the server is the
// cloud's own (TLS). Any client the bus lets in is a full peer of the replicas: it reads every
// robot's streams, sends requests to robots (which the agent still checks at its door) and
// publishes revocations and login failures. So the bus's credentials are a secret of the
// cloud's operators, and a replica refuses a bus without them unless Insecure says otherwise.
type Auth struct {
	// One way to log in: User with Password, Token, NkeySeedFile (a file holding an nkey
	// seed, SU...), or credentials in the URL (nats://user:password@host, nats://token@host).
	User, Password string
	Token          string
	NkeySeedFile   string
	// CAFile is the PEM file of the CA that signed the server's certificate (a tls:// URL;
	// empty: the system's roots); giving it makes TLS required.
	CAFile string
	// CertFile and KeyFile are this replica's client certificate, for a server that verifies
	// its clients; they count as credentials, alone or with one of the above.
	CertFile, KeyFile string
	// Insecure joins a bus without credentials (a laptop's nats-server), with a warning at
	// every start.
	Insecure bool
}

// ErrNoCredentials is the refusal to join a bus without credentials.
var ErrNoCredentials = errors.New("--nats needs credentials for the NATS server: any client on the bus reads every robot's streams and sends requests to robots. " +
	"Give --nats-user with FLEETGATE_NATS_PASSWORD, FLEETGATE_NATS_TOKEN (--nats-token), --nats-nkey-seed FILE, " +
	"a client certificate (--nats-cert and --nats-key), or nats://user:password@host; " +
	"--nats-insecure joins a bus without them, for a bus nobody else reaches")

// insecureWarning is logged at every start of a replica that joins a bus without credentials.
const insecureWarning = "NATS without credentials (--nats-insecure): any client that reaches the NATS server is a full peer of the replicas; " +
	"it reads every robot's streams, sends requests to robots and publishes revocations and login failures. Use it only on a bus nobody else reaches"

// Check says what is wrong with a, for the NATS server(s) urls, in words that name the
// flags of fleetgate serve; nil when the replica may connect.
func (a Auth) Check(urls string) error {
	inURL, err := urlCredentials(urls)
	if err != nil {
		return err
	}
	var ways []string
	if a.User != "" || a.Password != "" {
		ways = append(ways, "--nats-user and its password")
	}
	if a.Token != "" {
		ways = append(ways, "a token")
	}
	if a.NkeySeedFile != "" {
		ways = append(ways, "--nats-nkey-seed")
	}
	if inURL {
		ways = append(ways, "credentials in the --nats URL")
	}
	hasCert := a.CertFile != "" || a.KeyFile != ""
	switch {
	case a.User != "" && a.Password == "":
		return errors.New("--nats-user needs its password: give FLEETGATE_NATS_PASSWORD (or --nats-password, which shows in ps)")
	case a.Password != "" && a.User == "":
		return errors.New("the NATS password (FLEETGATE_NATS_PASSWORD, --nats-password) goes with --nats-user")
	case (a.CertFile == "") != (a.KeyFile == ""):
		return errors.New("--nats-cert and --nats-key go together")
	case len(ways) > 1:
		return fmt.Errorf("give the NATS credentials one way, not %s", strings.Join(ways, " and "))
	case a.Insecure && (len(ways) > 0 || hasCert):
		return errors.New("--nats-insecure is for a NATS server without credentials; credentials are given: drop --nats-insecure")
	case len(ways) == 0 && !hasCert && !a.Insecure:
		return ErrNoCredentials
	}
	return nil
}

// urlCredentials reports whether the comma-separated NATS URLs carry credentials: all of
// them or none (a server without them would be asked to let in a client without any).
func urlCredentials(urls string) (bool, error) {
	with, without := 0, 0
	for part := range strings.SplitSeq(urls, ",") {
		part = strings.TrimSpace(part)
		if !strings.Contains(part, "://") {
			part = "nats://" + part // as nats.go reads a bare host:port
		}
		u, err := url.Parse(part)
		if err != nil {
			// url's error quotes the URL, password and all.
			return false, fmt.Errorf("--nats: %s is not a NATS URL", redact(part))
		}
		if u.User != nil {
			with++
		} else {
			without++
		}
	}
	if with > 0 && without > 0 {
		return false, errors.New("--nats: some URLs carry credentials and others not: put them in every URL, or give them apart (--nats-user...)")
	}
	return with > 0, nil
}

// options are the nats.go options that present a's credentials and check the server.
func (a Auth) options() ([]nats.Option, error) {
	var opts []nats.Option
	switch {
	case a.User != "":
		opts = append(opts, nats.UserInfo(a.User, a.Password))
	case a.Token != "":
		opts = append(opts, nats.Token(a.Token))
	case a.NkeySeedFile != "":
		// nats.go reads the seed again at each connection and wipes it after use.
		opt, err := nats.NkeyOptionFromSeed(a.NkeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("--nats-nkey-seed %s: %w", a.NkeySeedFile, err)
		}
		opts = append(opts, opt)
	}
	if a.CAFile != "" {
		opts = append(opts, nats.RootCAs(a.CAFile))
	}
	if a.CertFile != "" {
		opts = append(opts, nats.ClientCert(a.CertFile, a.KeyFile))
	}
	return opts, nil
}

// identity names the credentials in a log line, never the secret.
func (a Auth) identity(urls string) string {
	var parts []string
	switch inURL, _ := urlCredentials(urls); {
	case a.User != "":
		parts = append(parts, "user "+a.User)
	case a.Token != "":
		parts = append(parts, "token")
	case a.NkeySeedFile != "":
		parts = append(parts, "nkey seed "+a.NkeySeedFile)
	case inURL:
		parts = append(parts, "credentials in the URL")
	}
	if a.CertFile != "" {
		parts = append(parts, "client certificate "+a.CertFile)
	}
	if len(parts) == 0 {
		return "none (--nats-insecure)"
	}
	return strings.Join(parts, ", ")
}
