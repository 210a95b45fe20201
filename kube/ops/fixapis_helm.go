package ops

import (
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"
	common4 "helm.sh/helm/v4/pkg/release/common"
	release4 "helm.sh/helm/v4/pkg/release/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// The new revision is created before the one it copies is marked superseded:
// a failure in between leaves two revisions deployed, which Helm's next
// upgrade or rollback supersedes, never none.

func (h *helm3) fixAPIs(f fixRevision) error {
	rls, err := h.drv.Get(f.from)
	if err != nil {
		return err
	}
	fix, err := f.edit(kube.APIRevision(rls))
	if err != nil {
		return err
	}
	cp := *rls
	var info release.Info
	if rls.Info != nil {
		info = *rls.Info
	}
	info.Status, info.Description, info.LastDeployed = release.StatusDeployed, f.description, helmtime.Now()
	cp.Info, cp.Version, cp.Manifest = &info, f.version, fix.Manifest
	cp.Hooks = fixedHooks(rls.Hooks, fix.Hooks, func(h *release.Hook, m string) *release.Hook { c := *h; c.Manifest = m; return &c })
	if err := h.drv.Create(f.to, &cp); err != nil {
		return err
	}
	if !f.supersede || rls.Info == nil {
		return nil
	}
	rls.Info.Status = release.StatusSuperseded
	return h.drv.Update(f.from, rls)
}

func (h *helm4) fixAPIs(f fixRevision) error {
	rls, err := h.get(f.from)
	if err != nil {
		return err
	}
	fix, err := f.edit(revision4(rls))
	if err != nil {
		return err
	}
	cp := *rls // every field of Helm 4's record: apply_method, rollback_revision, ...
	var info release4.Info
	if rls.Info != nil {
		info = *rls.Info
	}
	info.Status, info.Description, info.LastDeployed = common4.StatusDeployed, f.description, time.Now()
	cp.Info, cp.Version, cp.Manifest = &info, f.version, fix.Manifest
	cp.Hooks = fixedHooks(rls.Hooks, fix.Hooks, func(h *release4.Hook, m string) *release4.Hook { c := *h; c.Manifest = m; return &c })
	if err := h.drv.Create(f.to, &cp); err != nil {
		return err
	}
	if !f.supersede || rls.Info == nil {
		return nil
	}
	rls.Info.Status = common4.StatusSuperseded
	return h.drv.Update(f.from, rls)
}

// revision4 is kube.APIRevision for Helm 4's release type.
func revision4(rel *release4.Release) apis.Revision {
	r := apis.Revision{Manifest: rel.Manifest}
	for _, h := range rel.Hooks {
		if h != nil {
			r.Hooks = append(r.Hooks, apis.Hook{Name: h.Name, Manifest: h.Manifest})
		}
	}
	return r
}
