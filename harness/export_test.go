package harness

// FullVerifications exposes the count of full verifications to the
// external tests.
var FullVerifications = &fullVerifications

// SetBeforeSnapshotCheck sets the hook an integrity check calls, with the
// snapshot directory, just before it proves the snapshot's content; nil
// removes it.
func SetBeforeSnapshotCheck(f func(snapshot string)) { testOnlyBeforeSnapshotCheck = f }
