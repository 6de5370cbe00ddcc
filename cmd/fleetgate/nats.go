package main

import (
	"flag"
	"strings"

	"github.com/fleetgate/fleetgate/internal/cluster"
)

// natsFlags are serve's credentials for the NATS server that joins the replicas: any client
// on that bus is a full peer, so a replica refuses a bus without them unless --nats-insecure.
type natsFlags struct {
	auth cluster.Auth
}

func (n *natsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&n.auth.User, "nats-user", "", "user name on the NATS server, with its password in FLEETGATE_NATS_PASSWORD")
	fs.StringVar(&n.auth.Password, "nats-password", "", "the password of --nats-user (prefer FLEETGATE_NATS_PASSWORD: a flag shows in ps)")
	fs.StringVar(&n.auth.Token, "nats-token", "", "the NATS server's authorization token (prefer FLEETGATE_NATS_TOKEN: a flag shows in ps)")
	fs.StringVar(&n.auth.NkeySeedFile, "nats-nkey-seed", "", "file holding this replica's NATS user nkey seed (SU...)")
	fs.StringVar(&n.auth.CAFile, "nats-ca", "", "PEM file of the CA that signed the NATS server's certificate (tls://...; default: the system's roots)")
	fs.StringVar(&n.auth.CertFile, "nats-cert", "", "client certificate (PEM) for a NATS server that verifies its clients, with --nats-key")
	fs.StringVar(&n.auth.KeyFile, "nats-key", "", "the private key (PEM) of --nats-cert")
	fs.BoolVar(&n.auth.Insecure, "nats-insecure", false, "join a NATS server that asks no credentials: any client that reaches it is a full peer of the replicas (a laptop only; a warning at every start)")
}

// check refuses a bus without credentials, and NATS flags without --nats.
func (n *natsFlags) check(fs *flag.FlagSet, natsURL string) error {
	if natsURL == "" {
		var given []string
		fs.VisitAll(func(f *flag.Flag) {
			if strings.HasPrefix(f.Name, "nats-") && f.Value.String() != f.DefValue {
				given = append(given, "--"+f.Name)
			}
		})
		switch len(given) {
		case 0:
		case 1:
			return usagef("%s goes with --nats", given[0])
		default:
			return usagef("%s go with --nats", strings.Join(given, ", "))
		}
		return nil
	}
	if err := n.auth.Check(natsURL); err != nil {
		return usagef("%v", err)
	}
	return nil
}
