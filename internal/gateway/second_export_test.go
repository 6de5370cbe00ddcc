package gateway

// StreamOpLimiterSize exposes the number of streams a limiter remembers, for the sweep test.
func StreamOpLimiterSize(l *StreamOpLimiter) int { return l.size() }
