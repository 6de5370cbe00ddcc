package gateway

import "time"

// CheapPasswords makes password hashing fast for tests that hash many times; it returns the
// function that restores the real parameters.
func CheapPasswords() func() {
	old := passwordParams
	passwordParams = argonParams{memory: 64, time: 1, threads: 1}
	return func() { passwordParams = old }
}

// HashPassword and VerifyPassword expose the password hash for its own tests.
func HashPassword(pw string) string          { return hashPassword(pw) }
func VerifyPassword(encoded, pw string) bool { return verifyPassword(encoded, pw) }

// AccountDelay exposes the login delay per account failures for its own test.
func AccountDelay(failures int) time.Duration { return accountDelay(failures) }
