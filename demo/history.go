package demo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/internal/fakeapi"
	"github.com/chunkview/chunkview/storage"
)

// history replays one sample's Helm commands: each revision created pending,
// then rewritten with its outcome, the one it replaces superseded.
//
// With replay set, every write goes to the driver as it happens, as Helm sends
// them. Without, the history is played in memory and flush writes each revision
// once as the history left it: created, when it was rewritten since, as a
// stand-in holding its metadata alone (the status it was created with, no chart
// files, values, manifest or hooks), then rewritten whole. The records and
// their labels are those of the replay, but each release is encoded and
// compressed once rather than on each of its two or three writes, which was
// most of what a demo start cost.
type history struct {
	s      sample
	drv    driver.Driver
	now    time.Time
	charts map[string]*chart.Chart
	revs   []*release.Release
	replay bool
	// createdAs is the status each revision was created with, by version;
	// rewritten the versions written again since.
	createdAs map[int]release.Status
	rewritten map[int]bool
}

func writeSample(ctx context.Context, c *fakeapi.Cluster, cfg storage.ChunkedSecretsConfig, now time.Time, s sample, replay bool) (*SampleRelease, error) {
	h := &history{
		s:         s,
		drv:       sampleDriver(ctx, c, cfg, s),
		now:       now,
		charts:    map[string]*chart.Chart{},
		replay:    replay,
		createdAs: map[int]release.Status{},
		rewritten: map[int]bool{},
	}
	for _, st := range s.steps {
		if err := h.run(st); err != nil {
			return nil, err
		}
	}
	if err := h.flush(); err != nil {
		return nil, err
	}
	out := &SampleRelease{Name: s.name, Namespace: s.storageNamespace, ReleaseNamespace: s.namespace, Owner: s.owner, Store: s.store}
	for _, rls := range h.revs {
		key := storage.RecordKey(rls.Name, rls.Version)
		if s.owner == OLMOwner {
			if err := markOLMv1(ctx, c, s, key, rls.Chart.Metadata.Version); err != nil {
				return nil, err
			}
		}
		chunks, stored, err := readBackSize(ctx, c, s, key)
		if err != nil {
			return nil, err
		}
		out.Revisions = append(out.Revisions, SampleRevision{
			Revision: rls.Version, Key: key, Status: rls.Info.Status,
			Chunks: chunks, StoredBytes: stored, Release: rls,
		})
	}
	return out, nil
}

func (h *history) chart(version string) (*chart.Chart, error) {
	if ch, ok := h.charts[version]; ok {
		return ch, nil
	}
	ch, err := h.s.chart(version).build()
	if err != nil {
		return nil, err
	}
	h.charts[version] = ch
	return ch, nil
}

// at is a moment d before now, as Helm stores times.
func (h *history) at(d time.Duration) helmtime.Time { return helmtime.Time{Time: h.now.Add(-d).UTC()} }

// write records a create or an update of rls: sent to the driver at once in a
// replay, else noted for flush.
func (h *history) write(create bool, rls *release.Release) error {
	if !h.replay {
		if create {
			h.createdAs[rls.Version] = rls.Info.Status
		} else {
			h.rewritten[rls.Version] = true
		}
		return nil
	}
	key := storage.RecordKey(rls.Name, rls.Version)
	if create {
		return h.drv.Create(key, rls)
	}
	return h.drv.Update(key, rls)
}

// flush writes, after a history played in memory, each revision in the state
// the history left it: created as it is when never rewritten, else created as a
// stand-in and then updated to it, as the replay's last update leaves it.
func (h *history) flush() error {
	if h.replay {
		return nil
	}
	for _, rls := range h.revs {
		key := storage.RecordKey(rls.Name, rls.Version)
		if !h.rewritten[rls.Version] {
			if err := h.drv.Create(key, rls); err != nil {
				return err
			}
			continue
		}
		if err := h.drv.Create(key, standIn(rls, h.createdAs[rls.Version])); err != nil {
			return err
		}
		if err := h.drv.Update(key, rls); err != nil {
			return err
		}
	}
	return nil
}

// standIn is what flush creates a rewritten revision as: rls's name, version,
// labels, chart metadata and Info with the status it was created with, and
// nothing of its size, so that encoding it costs next to nothing.
func standIn(rls *release.Release, st release.Status) *release.Release {
	info := *rls.Info
	info.Status, info.Notes = st, ""
	out := &release.Release{Name: rls.Name, Namespace: rls.Namespace, Version: rls.Version, Info: &info, Labels: rls.Labels}
	if rls.Chart != nil {
		out.Chart = &chart.Chart{Metadata: rls.Chart.Metadata}
	}
	return out
}

// setStatus records a status change as Helm's recordRelease does: an update of
// the stored revision.
func (h *history) setStatus(rls *release.Release, st release.Status, desc string) error {
	rls.Info.Status = st
	if desc != "" {
		rls.Info.Description = desc
	}
	return h.write(false, rls)
}

func (h *history) run(st step) error {
	v := len(h.revs) + 1
	start := h.at(st.ago)
	var (
		rls *release.Release
		err error
	)
	pending, event := release.StatusPendingInstall, release.HookPreInstall
	switch st.op {
	case opInstall, opUpgrade:
		if st.op == opUpgrade {
			pending, event = release.StatusPendingUpgrade, release.HookPreUpgrade
		}
		rls, err = h.render(st, v)
		if err != nil {
			return err
		}
	case opRollback:
		pending, event = release.StatusPendingRollback, release.HookPreRollback
		if st.to < 1 || st.to >= v {
			return fmt.Errorf("rollback to revision %d of %d", st.to, v-1)
		}
		prev := h.revs[st.to-1]
		rls = &release.Release{
			Name: prev.Name, Namespace: prev.Namespace, Version: v,
			Chart: prev.Chart, Config: prev.Config, Manifest: prev.Manifest,
			Hooks: cloneHooks(prev.Hooks), Labels: maps.Clone(prev.Labels),
			Info: &release.Info{Notes: prev.Info.Notes},
		}
	}
	rls.Info.FirstDeployed = start
	if len(h.revs) > 0 {
		rls.Info.FirstDeployed = h.revs[0].Info.FirstDeployed
	}
	rls.Info.LastDeployed = start
	rls.Info.Status = pending
	rls.Info.Description = map[op]string{
		opInstall:  "Initial install underway",
		opUpgrade:  "Preparing upgrade",
		opRollback: fmt.Sprintf("Rollback to %d", st.to),
	}[st.op]
	for _, hk := range rls.Hooks {
		if !slices.Contains(hk.Events, event) {
			continue
		}
		hk.LastRun = release.HookExecution{StartedAt: at(start, 2*time.Second), Phase: release.HookPhaseRunning}
		if !st.stuck {
			hk.LastRun.CompletedAt = at(start, 2*time.Second+st.took/3)
			hk.LastRun.Phase = release.HookPhaseSucceeded
		}
	}
	if err := h.write(true, rls); err != nil {
		return err
	}
	h.revs = append(h.revs, rls)
	if st.stuck {
		return nil
	}
	if st.fail != "" {
		msg := map[op]string{
			opInstall:  fmt.Sprintf("Release %q failed: %s", rls.Name, st.fail),
			opUpgrade:  fmt.Sprintf("Upgrade %q failed: %s", rls.Name, st.fail),
			opRollback: fmt.Sprintf("Rollback %q failed: %s", rls.Name, st.fail),
		}[st.op]
		return h.setStatus(rls, release.StatusFailed, msg)
	}
	// Helm supersedes the deployed revision on upgrade, and every deployed one on
	// rollback; failed revisions stay failed.
	for _, old := range h.revs[:len(h.revs)-1] {
		if old.Info.Status == release.StatusDeployed {
			if err := h.setStatus(old, release.StatusSuperseded, ""); err != nil {
				return err
			}
		}
	}
	done := map[op]string{opInstall: "Install complete", opUpgrade: "Upgrade complete", opRollback: ""}[st.op]
	return h.setStatus(rls, release.StatusDeployed, done)
}

func at(t helmtime.Time, d time.Duration) helmtime.Time { return t.Add(d) }

func cloneHooks(hs []*release.Hook) []*release.Hook {
	out := make([]*release.Hook, len(hs))
	for i, h := range hs {
		cp := *h
		cp.Events = slices.Clone(h.Events)
		cp.DeletePolicies = slices.Clone(h.DeletePolicies)
		cp.LastRun = release.HookExecution{}
		out[i] = &cp
	}
	return out
}

// render renders the step's chart with its values as helm install or upgrade does
// and returns the new revision, without Info times and status.
func (h *history) render(st step, version int) (*release.Release, error) {
	ch, err := h.chart(st.chart)
	if err != nil {
		return nil, err
	}
	vals, err := chartutil.ReadValues([]byte(st.values))
	if err != nil {
		return nil, fmt.Errorf("revision %d values: %w", version, err)
	}
	manifest, hooks, notes, err := renderChart(ch, vals, chartutil.ReleaseOptions{
		Name: h.s.name, Namespace: h.s.namespace, Revision: version,
		IsInstall: st.op == opInstall, IsUpgrade: st.op == opUpgrade,
	})
	if err != nil {
		return nil, fmt.Errorf("revision %d: %w", version, err)
	}
	return &release.Release{
		Name: h.s.name, Namespace: h.s.namespace, Version: version,
		Chart: ch, Config: vals, Manifest: manifest, Hooks: hooks,
		Labels: maps.Clone(labelsFor(h.s, st.chart)),
		Info:   &release.Info{Notes: notes},
	}, nil
}
