package harness

// FullVerifications exposes the count of full verifications to the
// external tests.
var FullVerifications = &fullVerifications
