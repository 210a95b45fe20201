package fit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	helmcli "helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/getter"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/chunkview/chunkview/storage"
)

// Render renders req's chart with its values through the install action of
// req.Helm's Helm (client-only, as helm template does) or, with req.Upgrade, its
// upgrade action (a dry run over the release given), and returns the record that
// action stores.
func Render(ctx context.Context, req Request) (*Rendered, error) {
	ch, err := LoadChart(req.Chart)
	if err != nil {
		return nil, err
	}
	vals, err := req.Values.MergeValues(getter.All(helmcli.New()))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: values file: %w", ErrNotFound, err)
		}
		return nil, fmt.Errorf("%w: %w", ErrValues, err)
	}
	if req.Helm == 4 {
		rel4, err := renderHelm4(ctx, req, vals)
		if err != nil {
			return nil, err
		}
		rel, err := toHelm3(rel4)
		if err != nil {
			return nil, fmt.Errorf("read Helm 4's record of %s as Helm 3 does: %w", chartRef(ch), err)
		}
		return &Rendered{Release: rel, Release4: rel4, Upgrade: req.Upgrade != nil, Helm: 4}, nil
	}
	if req.Upgrade != nil {
		rel, err := renderUpgrade(ctx, req, ch, vals)
		if err != nil {
			return nil, err
		}
		asStored(rel, "Upgrade complete", release.HookPreUpgrade, release.HookPostUpgrade)
		return &Rendered{Release: rel, Upgrade: true, Helm: 3}, nil
	}
	rel, err := renderInstall(ctx, req, ch, vals)
	if err != nil {
		return nil, err
	}
	asStored(rel, "Install complete", release.HookPreInstall, release.HookPostInstall)
	return &Rendered{Release: rel, Helm: 3}, nil
}

// LoadChart loads a chart directory or archive, refusing what helm install
// refuses: a library chart, or one whose dependencies are not in charts/.
func LoadChart(path string) (*chart.Chart, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: chart %s: no such file or directory (give a chart directory or a .tgz)", ErrNotFound, path)
		}
		return nil, fmt.Errorf("chart %s: %w", path, err)
	}
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", path, err)
	}
	if t := ch.Metadata.Type; t != "" && t != "application" {
		return nil, fmt.Errorf("chart %s is of type %q: only application charts are installed", path, t)
	}
	if deps := ch.Metadata.Dependencies; len(deps) > 0 {
		if err := action.CheckDependencies(ch, deps); err != nil {
			return nil, fmt.Errorf("chart %s: %w (run helm dependency build %s)", path, err, path)
		}
	}
	return ch, nil
}

func discard(string, ...interface{}) {}

// renderInstall renders an install as helm template does: a client-only dry run
// of the install action, with Helm's default capabilities unless req names
// others. The manifest leaves the CRDs out, as an install stores it: they stay
// in the chart's files.
func renderInstall(ctx context.Context, req Request, ch *chart.Chart, vals map[string]interface{}) (*release.Release, error) {
	in := action.NewInstall(&action.Configuration{Log: discard})
	in.ClientOnly, in.DryRun, in.Replace = true, true, true
	in.ReleaseName = req.Name
	if in.ReleaseName == "" {
		in.ReleaseName = ch.Name()
	}
	in.Namespace = req.Namespace
	if in.Namespace == "" {
		in.Namespace = "default"
	}
	if req.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return nil, fmt.Errorf("%w: --kube-version %q: %w", ErrValues, req.KubeVersion, err)
		}
		in.KubeVersion = kv
	}
	in.APIVersions = chartutil.VersionSet(req.APIVersions)
	rel, err := in.RunWithContext(ctx, ch, vals)
	if err != nil {
		return nil, fmt.Errorf("render %s as an install: %w", chartRef(ch), err)
	}
	return rel, nil
}

// renderUpgrade renders an upgrade as helm upgrade --dry-run does, over an
// in-memory store that holds the two revisions the action reads (the latest, and
// the latest deployed) and a kube client that applies nothing: the values are
// reused per Helm's rules and the revision is the latest's plus one.
func renderUpgrade(ctx context.Context, req Request, ch *chart.Chart, vals map[string]interface{}) (*release.Release, error) {
	b := req.Upgrade
	if b.Last == nil || b.Last.Info == nil {
		return nil, errors.New("render an upgrade: the release's latest revision is not given")
	}
	mem := driver.NewMemory()
	mem.SetNamespace(b.Last.Namespace)
	for _, r := range []*release.Release{b.Deployed, b.Last} {
		if r == nil || (r != b.Last && r.Version == b.Last.Version) {
			continue
		}
		if err := mem.Create(storage.RecordKey(r.Name, r.Version), r); err != nil {
			return nil, fmt.Errorf("render an upgrade: hold revision %d: %w", r.Version, err)
		}
	}
	caps := b.Capabilities
	if caps == nil {
		caps = chartutil.DefaultCapabilities.Copy()
	}
	cfg := &action.Configuration{
		Releases:     helmstorage.Init(mem),
		KubeClient:   &kubefake.PrintingKubeClient{Out: io.Discard},
		Capabilities: caps,
		Log:          discard,
	}
	up := action.NewUpgrade(cfg)
	up.DryRun = true
	up.Namespace = b.Last.Namespace
	up.ReuseValues, up.ResetValues, up.ResetThenReuseValues = req.ReuseValues, req.ResetValues, req.ResetThenReuseValues
	rel, err := up.RunWithContext(ctx, b.Last.Name, ch, vals)
	if err != nil {
		return nil, fmt.Errorf("render %s as an upgrade of %q (revision %d): %w", chartRef(ch), b.Last.Name, b.Last.Version, err)
	}
	return rel, nil
}

// asStored turns the record a dry run returns into the one the action stores
// once it succeeded: deployed, with the action's description, and each hook of
// the action's events run (Helm's execHook gives a hook without a delete policy
// before-hook-creation and records its last run).
func asStored(rel *release.Release, description string, events ...release.HookEvent) {
	now := rel.Info.LastDeployed.Time
	rel.Info.Status = release.StatusDeployed
	rel.Info.Description = description
	for i, h := range rel.Hooks {
		if !runsOn(h, events) {
			continue
		}
		if len(h.DeletePolicies) == 0 {
			h.DeletePolicies = []release.HookDeletePolicy{release.HookBeforeHookCreation}
		}
		// A hook runs after the record is stamped and takes a while: its two
		// times differ from the record's and from each other, and so do their
		// digits, which is what their compressed size depends on.
		start := now.Add(time.Duration(i+1)*hookStep + 137_913)
		h.LastRun = release.HookExecution{
			StartedAt:   helmtime.Time{Time: start},
			CompletedAt: helmtime.Time{Time: start.Add(hookStep + 48_271)},
			Phase:       release.HookPhaseSucceeded,
		}
	}
}

func runsOn(h *release.Hook, events []release.HookEvent) bool {
	for _, e := range h.Events {
		for _, want := range events {
			if e == want {
				return true
			}
		}
	}
	return false
}

// chartRef is name-version, as helm shows a chart.
func chartRef(ch *chart.Chart) string {
	if ch.Metadata == nil {
		return "chart"
	}
	return strings.TrimSuffix(ch.Metadata.Name+"-"+ch.Metadata.Version, "-")
}
