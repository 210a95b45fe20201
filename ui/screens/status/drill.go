package status

import (
	"github.com/chunkview/chunkview/kube/live"
)

// From the resources view to what k9s shows of an object: enter lists a
// workload's Pods and their events, l shows a container's log, d describes
// the object. The cursor moves over the objects, then the hooks.

// item is one object the cursor can be on.
type item struct{ kind, ns, name string }

// firstNotCurrent is where the cursor starts: on the first object that is not
// Current, else on the first.
func firstNotCurrent(st *live.ReleaseStatus) int {
	for i, r := range st.Resources {
		if r.Status != live.StatusCurrent {
			return i
		}
	}
	return 0
}
