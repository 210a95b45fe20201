package owner

import (
	"context"
	"errors"

	"github.com/chunkview/chunkview/kube"
)

// OfRelease reads the controller of the release whose revisions rows list
// (oldest first), for an operation about to change it, with the reads Of makes.
// It judges from every revision's metadata, not from the latest alone: a
// revision written by a writer that did not keep the ClusterExtension's
// controller reference (a forced operation of an older chunkview, a tool that
// writes records whole) would otherwise hide the controller from every later
// operation. When no revision's metadata names an active controller and
// OLMv1's API is served, payload is asked for the release's own labels (which
// it reads from a record), where OLMv1 keeps its owner labels
// (olm.operatorframework.io/owner-kind and owner-name). It returns nil when no
// controller manages the release; an error when a kind of controller could
// not be read and none was found.
func OfRelease(ctx context.Context, c Source, rows []kube.RevisionRow, payload func() map[string]string) (*kube.Controller, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	latest := rows[len(rows)-1]
	cs, err := read(ctx, c, latest.StorageNamespace, true)
	if err != nil {
		return nil, err
	}
	var found *kube.Controller
	why := ""
	for i := len(rows) - 1; i >= 0; i-- {
		ctl, w := cs.Of(rows[i])
		if ctl != nil && (found == nil || ctl.Active() && !found.Active()) {
			found = ctl
		}
		if why == "" {
			why = w
		}
	}
	if (found == nil || !found.Active()) && payload != nil && len(cs.extensions) > 0 {
		if lbs := payload(); lbs[kube.OLMOwnerKindLabel] == kube.KindClusterExtension {
			row := latest
			row.ControlledBy, row.Labels = "", lbs
			if ctl, _ := cs.Of(row); ctl != nil {
				found = ctl
			}
		}
	}
	if found == nil && why != "" {
		return nil, errors.New(why)
	}
	return found, nil
}
