package store

import "testing"

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		name, query string
		numbered    bool
		want        string
	}{
		{"SQLite keeps the query", `SELECT a FROM t WHERE b = ? AND c = ?`, false, `SELECT a FROM t WHERE b = ? AND c = ?`},
		{"in order", `INSERT INTO t (a, b, c) VALUES (?, ?, ?)`, true, `INSERT INTO t (a, b, c) VALUES ($1, $2, $3)`},
		{"numbered keep their numbers", `WHERE (?1 = '' OR a = ?1) AND (?2 = '' OR b = ?2) LIMIT ?12`, true, `WHERE ($1 = '' OR a = $1) AND ($2 = '' OR b = $2) LIMIT $12`},
		{"at the end", `LIMIT ?`, true, `LIMIT $1`},
		{"none", `SELECT 1`, true, `SELECT 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := placeholders(tt.query, tt.numbered); got != tt.want {
				t.Errorf("placeholders(%q) = %q, want %q", tt.query, got, tt.want)
			}
		})
	}
}
