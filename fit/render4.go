package fit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"helm.sh/helm/v3/pkg/release"
	action4 "helm.sh/helm/v4/pkg/action"
	chartcommon4 "helm.sh/helm/v4/pkg/chart/common"
	loader4 "helm.sh/helm/v4/pkg/chart/loader"
	chart4 "helm.sh/helm/v4/pkg/chart/v2"
	kubefake4 "helm.sh/helm/v4/pkg/kube/fake"
	rcommon4 "helm.sh/helm/v4/pkg/release/common"
	release4 "helm.sh/helm/v4/pkg/release/v1"
	storage4 "helm.sh/helm/v4/pkg/storage"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// renderHelm4 renders req as Helm 4's install or upgrade action does, and returns
// the record that action stores. Helm 4's record is not Helm 3's with a field or
// two more: its chart loader keeps each file's modification time (the chart's,
// each template's and file's, and the schema's, written even when zero), its
// actions record the apply method (server-side, unless told otherwise or
// continuing a release applied client-side), and it leaves out the times it did
// not set, where Helm 3 writes them empty. On a small chart that is 2% to 6% of
// the record; so the chart is loaded and rendered by Helm 4 itself, from the
// same path, as `helm install` of Helm 4 loads it.
func renderHelm4(ctx context.Context, req Request, vals map[string]interface{}) (*release4.Release, error) {
	loaded, err := loader4.Load(req.Chart)
	if err != nil {
		return nil, fmt.Errorf("load chart %s as Helm 4 does: %w", req.Chart, err)
	}
	ch, ok := loaded.(*chart4.Chart)
	if !ok {
		return nil, fmt.Errorf("chart %s is of a chart API version Helm 4's install does not take", req.Chart)
	}
	if req.Upgrade != nil {
		rel, err := renderUpgrade4(ctx, req, ch, vals)
		if err != nil {
			return nil, err
		}
		asStored4(rel, "Upgrade complete", release4.HookPreUpgrade, release4.HookPostUpgrade)
		return rel, nil
	}
	in := action4.NewInstall(quietConfig4())
	in.DryRunStrategy, in.Replace = action4.DryRunClient, true
	in.ReleaseName = req.Name
	if in.ReleaseName == "" {
		in.ReleaseName = ch.Name()
	}
	in.Namespace = req.Namespace
	if in.Namespace == "" {
		in.Namespace = "default"
	}
	if req.KubeVersion != "" {
		kv, err := chartcommon4.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return nil, fmt.Errorf("%w: --kube-version %q: %w", ErrValues, req.KubeVersion, err)
		}
		in.KubeVersion = kv
	}
	in.APIVersions = req.APIVersions
	out, err := in.RunWithContext(ctx, ch, vals)
	if err != nil {
		return nil, fmt.Errorf("render %s as Helm 4's install: %w", chartRef4(ch), err)
	}
	rel, ok := out.(*release4.Release)
	if !ok {
		return nil, fmt.Errorf("render %s as Helm 4's install: a release of type %T", chartRef4(ch), out)
	}
	asStored4(rel, "Install complete", release4.HookPreInstall, release4.HookPostInstall)
	return rel, nil
}

// quietConfig4 is a Helm 4 action configuration that logs nothing: Helm 4 logs
// through slog's default handler, to stderr, unless told.
func quietConfig4() *action4.Configuration {
	return action4.NewConfiguration(action4.ConfigurationSetLogger(slog.NewTextHandler(io.Discard, nil)))
}

// renderUpgrade4 is renderUpgrade through Helm 4's upgrade action: a client-side
// dry run over an in-memory store holding the release's latest and latest
// deployed revisions, as Helm 4 reads them, so that its apply method follows the
// latest's (Helm 4's --server-side=auto) and its values are reused by Helm 4's
// rules.
func renderUpgrade4(ctx context.Context, req Request, ch *chart4.Chart, vals map[string]interface{}) (*release4.Release, error) {
	b := req.Upgrade
	if b.Last == nil || b.Last.Info == nil {
		return nil, errors.New("render an upgrade: the release's latest revision is not given")
	}
	mem := driver4.NewMemory()
	mem.SetNamespace(b.Last.Namespace)
	for _, r := range []*release.Release{b.Deployed, b.Last} {
		if r == nil || (r != b.Last && r.Version == b.Last.Version) {
			continue
		}
		r4, err := toHelm4(r)
		if err != nil {
			return nil, fmt.Errorf("render an upgrade: revision %d as Helm 4 reads it: %w", r.Version, err)
		}
		if r == b.Last {
			r4.ApplyMethod = b.ApplyMethod
		}
		if err := mem.Create(storage.RecordKey(r.Name, r.Version), r4); err != nil {
			return nil, fmt.Errorf("render an upgrade: hold revision %d: %w", r.Version, err)
		}
	}
	cfg := quietConfig4()
	cfg.Releases = storage4.Init(mem)
	cfg.KubeClient = &kubefake4.PrintingKubeClient{Out: io.Discard, LogOutput: io.Discard}
	cfg.Capabilities = chartcommon4.DefaultCapabilities.Copy()
	if c := b.Capabilities; c != nil {
		if kv, err := chartcommon4.ParseKubeVersion(c.KubeVersion.Version); err == nil {
			cfg.Capabilities.KubeVersion = *kv
		}
		cfg.Capabilities.APIVersions = chartcommon4.VersionSet(c.APIVersions)
	}
	up := action4.NewUpgrade(cfg)
	up.DryRunStrategy = action4.DryRunClient
	up.Namespace = b.Last.Namespace
	up.ReuseValues, up.ResetValues, up.ResetThenReuseValues = req.ReuseValues, req.ResetValues, req.ResetThenReuseValues
	out, err := up.RunWithContext(ctx, b.Last.Name, ch, vals)
	if err != nil {
		return nil, fmt.Errorf("render %s as Helm 4's upgrade of %q (revision %d): %w", chartRef4(ch), b.Last.Name, b.Last.Version, err)
	}
	rel, ok := out.(*release4.Release)
	if !ok {
		return nil, fmt.Errorf("render %s as Helm 4's upgrade: a release of type %T", chartRef4(ch), out)
	}
	return rel, nil
}

// asStored4 is asStored for Helm 4's record.
func asStored4(rel *release4.Release, description string, events ...release4.HookEvent) {
	now := rel.Info.LastDeployed
	rel.Info.Status = rcommon4.StatusDeployed
	rel.Info.Description = description
	for i, h := range rel.Hooks {
		if !runsOn4(h, events) {
			continue
		}
		if len(h.DeletePolicies) == 0 {
			h.DeletePolicies = []release4.HookDeletePolicy{release4.HookBeforeHookCreation}
		}
		start := now.Add(time.Duration(i+1)*hookStep + 137_913)
		h.LastRun = release4.HookExecution{StartedAt: start, CompletedAt: start.Add(hookStep + 48_271), Phase: release4.HookPhaseSucceeded}
	}
}

func runsOn4(h *release4.Hook, events []release4.HookEvent) bool {
	for _, e := range h.Events {
		for _, want := range events {
			if e == want {
				return true
			}
		}
	}
	return false
}

func chartRef4(ch *chart4.Chart) string {
	if ch.Metadata == nil {
		return "chart"
	}
	return ch.Metadata.Name + "-" + ch.Metadata.Version
}

// toHelm4 is a Helm 3 release as Helm 4 reads the same record: its JSON, which
// both Helms' types share but for the fields only Helm 4 has.
func toHelm4(r *release.Release) (*release4.Release, error) {
	js, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var out release4.Release
	if err := json.Unmarshal(js, &out); err != nil {
		return nil, err
	}
	out.Labels = r.Labels
	return &out, nil
}

// toHelm3 is a Helm 4 release as Helm 3 reads its record: the fields Helm 3 has
// no place for (the apply method, the mod times) dropped. The breakdown and the
// names a report shows are read from it.
func toHelm3(r *release4.Release) (*release.Release, error) {
	js, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var out release.Release
	if err := json.Unmarshal(js, &out); err != nil {
		return nil, err
	}
	out.Labels = r.Labels
	return &out, nil
}
