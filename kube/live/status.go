package live

import (
	"context"
	"fmt"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/revdiff"
)

// StatusRevision picks the revision `status` shows from rows, the release's
// history: rev when set; else the latest deployed, what the cluster should run;
// else, with no revision deployed (a failed install, one still pending), the
// latest. note says why when that is not the latest revision, or not a
// deployed one.
func StatusRevision(rows []kube.RevisionRow, name string, rev int) (row kube.RevisionRow, note string, err error) {
	if len(rows) == 0 {
		return kube.RevisionRow{}, "", fmt.Errorf("%w: release %q has no revisions", kube.ErrNotFound, name)
	}
	if rev != 0 {
		row, err := kube.PickRevision(rows, name, rev)
		return row, "", err
	}
	latest := rows[len(rows)-1]
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Status == release.StatusDeployed.String() {
			return rows[i], "", nil
		}
	}
	return latest, fmt.Sprintf("no revision of %q is deployed: showing the latest, %d (%s)", name, latest.Revision, latest.Status), nil
}

// Status reads how revision rev of release name (0: see StatusRevision) runs:
// its revisions' metadata (one list), the record (decoded through the details
// cache), then what StatusOf reads.
func Status(ctx context.Context, c Source, ns, name string, rev int, opts StatusOptions) (*ReleaseStatus, error) {
	if _, err := c.Live(); err != nil {
		return nil, err
	}
	rows, err := c.Versions(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	return StatusOf(ctx, c, rows, rev, opts)
}

// StatusOf is Status over rows already read, the release's history (as a
// listing or a plan has them). It reads discovery once per connection, then one
// GET per object of the manifest (eight at a time), and unless ObjectsOnly: one
// list of Warning events per namespace of the objects (a field selector on the
// type), and for each hook Job whose last run failed or is still running, the
// Job, its Pods (one list) and the end of the failed container's log (one
// request).
func StatusOf(ctx context.Context, c Source, rows []kube.RevisionRow, rev int, opts StatusOptions) (*ReleaseStatus, error) {
	lc, err := c.Live()
	if err != nil {
		return nil, err
	}
	name := ""
	if len(rows) > 0 {
		name = rows[0].Name
	}
	row, note, err := StatusRevision(rows, name, rev)
	if err != nil {
		return nil, err
	}
	d, err := c.Details(ctx, row)
	if err != nil {
		return nil, err
	}
	if d.Release == nil {
		return nil, fmt.Errorf("%w: revision %d of %q: %s; its objects are not known (`%s` shows another)",
			ErrRecordUnreadable, row.Revision, row.Name, d.Row.Problem, c.Config().Suggest("status", row.Name, "--revision", "N"))
	}
	rel := d.Release
	st := &ReleaseStatus{
		Release: rel.Name, Namespace: rel.Namespace, Revision: rel.Version,
		Store: storeOf(row), StorageNamespace: row.StorageNamespace,
		Revealed: opts.Reveal, scrub: revdiff.Scrubber(rel, opts.Reveal),
		Events: []WarningEvent{},
	}
	if rel.Info != nil {
		st.Notes = st.scrub(rel.Info.Notes)
		st.ReleaseStatus, st.Description, st.LastDeployed = rel.Info.Status.String(), rel.Info.Description, rel.Info.LastDeployed.Time
	}
	if latest := rows[len(rows)-1]; latest.Revision != rel.Version {
		st.LatestRevision, st.LatestStatus = latest.Revision, latest.Status
	}
	if note != "" {
		st.Remarks = append(st.Remarks, note)
	}
	if err := st.readObjects(ctx, lc, rel); err != nil {
		return nil, err
	}
	if opts.Pods {
		if err := st.readPods(ctx, c.Clientset()); err != nil {
			return nil, err
		}
	}
	if opts.ObjectsOnly {
		return st, nil
	}
	st.Hooks = []HookStatus{}
	if err := readHooks(ctx, c, st, rel, opts); err != nil {
		return nil, err
	}
	if err := readEvents(ctx, c, st); err != nil {
		return nil, err
	}
	return st, nil
}

// readObjects reads every object of rel's manifest (with drift's reading) and
// judges each with kstatus.
func (s *ReleaseStatus) readObjects(ctx context.Context, lc *kube.LiveClients, rel *release.Release) error {
	resources := revdiff.ReleaseResources(rel.Manifest, rel.Namespace)
	objs, targets, err := readObjects(ctx, lc, resources, rel.Namespace, "health unknown")
	if err != nil {
		return err
	}
	s.Resources = make([]ResourceStatus, len(objs))
	s.objs = make([]statusObject, len(objs))
	for i, o := range objs {
		r := ResourceStatus{Kind: o.Resource.Kind, Namespace: o.Resource.Namespace, Name: o.Resource.Name}
		if t := targets[i]; t != nil {
			r.Namespace = t.ns
		}
		switch {
		case o.Unreadable != "":
			r.Status, r.Message = StatusUnknown, o.Unreadable
		case o.Live == nil:
			r.Status, r.Message = StatusNotFound, notFoundMessage
		default:
			r.Status, r.Message = judge(o.Live)
		}
		s.Resources[i] = r
		s.objs[i] = statusObject{target: targets[i], labelled: helmLabelled(o.Live)}
		if t := targets[i]; t != nil && o.Live != nil && workloadResources[t.mapping.Resource.GroupResource()] {
			s.objs[i].selector, s.objs[i].noSelector = workloadSelector(r.Kind, o.Live)
		}
	}
	return nil
}

// helmLabelled reports whether a live object carries the label Helm puts on
// every object it creates.
func helmLabelled(obj map[string]any) bool {
	if obj == nil {
		return false
	}
	md, _ := obj["metadata"].(map[string]any)
	ls, _ := md["labels"].(map[string]any)
	return ls[managedByLabel] == helmManagedByValue
}

// storeOf returns the store of row, the chunked store when the row does not say.
func storeOf(row kube.RevisionRow) string {
	if row.Driver == "" {
		return kube.DriverChunked
	}
	return row.Driver
}

// Scrub masks the secrets the release holds in text, as the read masked its
// messages (nothing once revealed); a status not read by StatusOf has nothing
// to mask with.
func (s *ReleaseStatus) Scrub(text string) string {
	if s.scrub == nil {
		return text
	}
	return s.scrub(text)
}
