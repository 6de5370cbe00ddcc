package fleet

import "time"

// SetClock makes t read the time from now (for tests of the cached sample's age).
func (t *Topic) SetClock(now func() time.Time) { t.now = now }
