// Package storetest is the store's conformance suite: the behaviour every backend of
// internal/store shares, run by the SQLite tests (internal/store) and the PostgreSQL tests
// (internal/store/postgres) alike, each test on a fresh, empty store.
package storetest

import (
	"testing"

	"github.com/fleetgate/fleetgate/internal/store"
)

// Opener opens a fresh, migrated, empty store that is closed when tb ends.
type Opener func(tb testing.TB) *store.DB

// Run runs every conformance test as a subtest of t.
func Run(t *testing.T, open Opener) {
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) { test.run(t, open) })
	}
}

var tests = []struct {
	name string
	run  func(t *testing.T, open Opener)
}{
	{"Bootstrap", testBootstrap},
	{"BootstrapIsAllOrNothing", testBootstrapIsAllOrNothing},
	{"DefaultOrganizationIsTheFirstCreatedEvenWithinAMillisecond", testDefaultOrganizationIsTheFirstCreatedEvenWithinAMillisecond},
	{"NotFound", testNotFound},
	{"UniqueViolationIsConflict", testUniqueViolationIsConflict},
	{"ForeignKeysAreEnforced", testForeignKeysAreEnforced},
	{"TimesRoundTrip", testTimesRoundTrip},
	{"RevokeAPITokenDeletesItsBearerTokens", testRevokeAPITokenDeletesItsBearerTokens},
	{"DeleteExpiredBearerTokens", testDeleteExpiredBearerTokens},
	{"APITokens", testAPITokens},
	{"Memberships", testMemberships},
	{"UserByEmailIgnoresCase", testUserByEmailIgnoresCase},
	{"RobotsOfAnOrganization", testRobotsOfAnOrganization},
	{"Events", testEvents},
	{"AgentLookups", testAgentLookups},
	{"AgentsOfAnOrganization", testAgentsOfAnOrganization},
	{"RevokeAgent", testRevokeAgent},
	{"TouchAgent", testTouchAgent},
	{"AgentRobotRecords", testAgentRobotRecords},
	{"SyncedResources", testSyncedResources},
	{"ArchivedRecordings", testArchivedRecordings},
	{"EventForwarding", testEventForwarding},
	{"EventQuery", testEventQuery},
	{"SessionsStoreOnlyHashesAndExpire", testSessionsStoreOnlyHashesAndExpire},
	{"UseSocketTokenOnce", testUseSocketTokenOnce},
	{"ConcurrentCreateEvent", testConcurrentCreateEvent},
	{"RacesHaveOneWinner", testRacesHaveOneWinner},
	{"SharedSecrets", testSharedSecrets},
	{"AlertRules", testAlertRules},
	{"TeleopDelays", testTeleopDelays},
	{"Supervisors", testSupervisors},
}
