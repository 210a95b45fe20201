package render

import "fmt"

// HelmRefusal is the error Helm 3.22 and 4.3 return when an upgrade finds the
// latest revision pending (action.errPending): their upgrade refuses; their
// rollback does not look at the latest revision's status at all.
const HelmRefusal = "another operation (install/upgrade/rollback) is in progress"

// PendingMeans says what a pending latest revision rev blocks, as Helm's own
// actions decide it, so the CLI's fix-stuck and the TUI's hints and dialogs say
// the same: Helm 3 and 4 refuse to upgrade (Upgrade.prepareUpgrade checks
// Last().Info.Status.IsPending()), while their rollback writes a new revision
// on top, supersedes the deployed ones only, and so leaves rev pending under
// it. After that rollback the latest revision is deployed and upgrades run
// again; the pending record stays in the history until it is marked failed or
// deleted.
//
// A revision left uninstalling is not pending to Helm: its upgrade then finds
// no deployed revision ("has no deployed releases") and refuses all the same,
// and its rollback runs over it as over a pending one.
func PendingMeans(rev int, status string) string {
	if status == "uninstalling" {
		return fmt.Sprintf("Helm 3 and 4 refuse to upgrade while revision %d is uninstalling; a rollback runs, but leaves it uninstalling under the new revision.", rev)
	}
	return fmt.Sprintf("Helm 3 and 4 refuse to upgrade while revision %d is %s; a rollback runs, but leaves it %s under the new revision.", rev, status, status)
}
