package store

import (
	"context"
	"time"
)

// SharedSecret returns the secret stored under name, storing the candidate fresh() makes when
// there is none yet:
// every process on this database gets the same one, whichever asked first (the download
// signing key of the cloud's replicas, so a link one replica signed is valid at every other).
func (db *DB) SharedSecret(ctx context.Context, name string, fresh func() string) (string, error) {
	var value string
	err := db.write(ctx, func(tx *writeTx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO shared_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			name, fresh(), time.Now().UnixMilli()); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM shared_secrets WHERE name = ?`, name).Scan(&value)
	})
	return value, wrap(err)
}
