//go:build ros2

// Cyclone DDS's log goes to the agent's: a warning such as a peer's sample dropped for its
// size is the operator's to read, not lost on standard error.
#include "dds/dds.h"
#include "_cgo_export.h"

static void fleetgate_log_sink (void *arg, const dds_log_data_t *d)
{
  (void) arg;
  fleetgateCycloneLog (d->priority, (char *) d->message, d->size);
}

void fleetgate_log_to_go (void) { dds_set_log_sink (fleetgate_log_sink, NULL); }
