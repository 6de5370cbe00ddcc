package postgres

import (
	"strings"
	"testing"
)

func TestRedactedHidesThePassword(t *testing.T) {
	for _, url := range []string{
		"postgres://fleetgate:s3cret@db.example.com:5432/fleetgate?sslmode=require",
		"postgresql://db.example.com/fleetgate?user=fleetgate&password=s3cret",
	} {
		got := Redacted(url)
		if strings.Contains(got, "s3cret") || !strings.Contains(got, "db.example.com") {
			t.Errorf("Redacted(%q) = %q: want the host without the password", url, got)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for url, ok := range map[string]bool{
		"postgres://h/db": true, "postgresql://h/db": true,
		"": false, "mysql://h/db": false, "host=h dbname=db": false, "/var/lib/fleetgate/fleetgate.db": false,
	} {
		if err := CheckURL(url); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v, want ok=%v", url, err, ok)
		}
	}
}
