package gateway

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fleetgate/fleetgate"
	"golang.org/x/crypto/argon2"
)

// Passwords are hashed with argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1
// lane): a stolen database then costs a guesser ~20 ms of memory-hard work per try, while a
// login stays well under the human threshold. The parameters are stored in each hash, so
// raising them later still verifies old hashes.
type argonParams struct {
	memory  uint32 // KiB
	time    uint32
	threads uint8
}

var passwordParams = argonParams{memory: 19 * 1024, time: 2, threads: 1}

const (
	MinPasswordLength = 10
	maxPasswordBytes  = 256 // argon2 takes any length; a bound keeps a request from asking for more
)

// checkPassword says what is wrong with a new password, in words for the person typing it.
func checkPassword(pw string) error {
	switch {
	case utf8.RuneCountInString(pw) < MinPasswordLength:
		return fleetgate.Errorf(fleetgate.EInvalid, "the password must have at least %d characters", MinPasswordLength)
	case len(pw) > maxPasswordBytes:
		return fleetgate.Errorf(fleetgate.EInvalid, "the password must be at most %d bytes", maxPasswordBytes)
	}
	return nil
}

// hashing bounds the argon2 computations running at once: each takes 19 MiB and about 20 ms
// of a core, so logins sent in parallel queue here rather than exhaust the memory.
var hashing = make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))

func argon2Key(pw, salt []byte, p argonParams, keyLen uint32) []byte {
	hashing <- struct{}{}
	defer func() { <-hashing }()
	return argon2.IDKey(pw, salt, p.time, p.memory, p.threads, keyLen)
}

// hashPassword encodes pw in the PHC string format: $argon2id$v=19$m=..,t=..,p=..$salt$hash.
func hashPassword(pw string) string {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	p := passwordParams
	key := argon2Key([]byte(pw), salt, p, 32)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.memory, p.time, p.threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// verifyPassword reports whether pw matches an encoded hash; a malformed hash matches nothing.
func verifyPassword(encoded, pw string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var p argonParams
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.time, &p.threads); err != nil ||
		p.memory == 0 || p.memory > 1<<20 || p.time == 0 || p.time > 16 || p.threads == 0 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2Key([]byte(pw), salt, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is verified against when the account does not exist, so that the answer takes
// as long as for a real account and does not reveal which emails exist.
// Made on first use: hashing costs ~20 ms that the CLI and most tests never need.
var dummyHash = sync.OnceValue(func() string { return hashPassword("fleetgate-no-such-account") })
