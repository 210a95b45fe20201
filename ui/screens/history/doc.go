// Package history is the screen of one release's revisions: the table with
// sizes and checks, the growth trend against the storage limit, the owner and
// controller, and the operations (rollback, delete a revision, uninstall, fix a
// stuck release, prune), each behind a confirmation.
package history
