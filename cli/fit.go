package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"helm.sh/helm/v3/pkg/cli/values"

	"github.com/chunkview/chunkview/fit"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/storage"
)

// ExitNoFit is fit's code when the record does not fit some store asked for;
// ExitFitError its code for a failure that other commands report with 1, since
// 1 means it does not fit (drift does the same).
const (
	ExitNoFit    = 1
	ExitFitError = ExitDriftError
)

// FitResult is the output of `fit`.
type FitResult struct {
	// Chart is the chart as helm names it, name-version.
	Chart     string `json:"chart"`
	Release   string `json:"release"`
	Namespace string `json:"namespace"`
	// Action is install, or upgrade (--release).
	Action string `json:"action"`
	// Revision is the revision the action would store.
	Revision int `json:"revision"`
	// JSONBytes is the length of the release's JSON before compression.
	JSONBytes int `json:"jsonBytes"`
	// Helm is the Helm major whose record is measured (3 or 4), HelmReason
	// why: --helm, the release's latest revision, or the default for an
	// install.
	Helm       int    `json:"helm"`
	HelmReason string `json:"helmReason"`
	// Fits reports whether every store asked for accepts the record.
	Fits bool `json:"fits"`
	// Stores are the stores asked for (--driver; by default every one).
	Stores []fit.Store `json:"stores"`
	// Current compares an upgrade with the release as it is (--release).
	Current *FitCurrent `json:"current,omitempty"`
	// Breakdown is what takes the room.
	Breakdown fit.Breakdown `json:"breakdown"`
}

// FitCurrent is the release an upgrade starts from, against the upgrade.
type FitCurrent struct {
	// Driver is the store that holds the release.
	Driver   string `json:"driver"`
	Revision int    `json:"revision"`
	Status   string `json:"status"`
	// StoredBytes is what the latest revision takes there (0: not known),
	// UpgradeBytes what the upgrade would, DeltaBytes the difference.
	StoredBytes  int64 `json:"storedBytes"`
	UpgradeBytes int64 `json:"upgradeBytes"`
	DeltaBytes   int64 `json:"deltaBytes"`
	LimitBytes   int64 `json:"limitBytes"`
	// Growth is the history's, as `history` forecasts it, without the upgrade.
	Growth fit.Growth `json:"growth"`
}

// fitOptions are the flags and argument of `fit`, in kubectl's shape.
type fitOptions struct {
	chart   string
	name    string
	release string
	format  string
	values  values.Options
	// reuse, reset and resetThenReuse are helm upgrade's value flags.
	reuse, reset, resetThenReuse bool
	kubeVersion                  string
	apiVersions                  []string
	// helm is --helm: 3 or 4, 0 when not given.
	helm int

	drivers []string
	fitCfg  fit.Settings
	// helmReason says why the Helm measured is the one it is.
	helmReason string
}

// Complete takes the chart from args.
func (o *fitOptions) Complete(args []string) error {
	o.chart = args[0]
	return nil
}

// Validate checks the flags that do not need the chart or the cluster.
func (o *fitOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.release != "" && o.name != "" && o.name != o.release {
		return usageErrorf("--name %s and --release %s: an upgrade keeps its release's name; give one of them", o.name, o.release)
	}
	if o.release == "" && (o.reuse || o.reset || o.resetThenReuse) {
		return usageErrorf("--reuse-values, --reset-values and --reset-then-reuse-values apply to an upgrade: name the release with --release")
	}
	if o.release != "" && (o.kubeVersion != "" || len(o.apiVersions) > 0) {
		return usageErrorf("--kube-version and --api-versions apply to an install: an upgrade (--release) renders against the cluster's own")
	}
	if o.helm != 0 && o.helm != 3 && o.helm != 4 {
		return usageErrorf("--helm %d: want 3 or 4, the Helm that will install or upgrade", o.helm)
	}
	return nil
}

// Run renders, measures and prints; the exit code says whether it fits.
func (o *fitOptions) Run(ctx context.Context, r *run) error {
	err := o.run(ctx, r)
	if err != nil && exitCode(err) == ExitFailure {
		var ce *codedError
		if !errors.As(err, &ce) {
			return &codedError{code: ExitFitError, err: err}
		}
	}
	return err
}

func (o *fitOptions) run(ctx context.Context, r *run) error {
	cfg, err := r.opts.Resolve()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	o.drivers = cfg.Drivers
	o.fitCfg = fitSettings(cfg.Driver)
	if strings.HasPrefix(cfg.DriversFrom, "HELM_DRIVER") || strings.HasPrefix(cfg.DriversFrom, "--owner") {
		fmt.Fprintf(r.stderr, "Note: %s narrows the stores checked to %s; --driver names others\n", cfg.DriversFrom, strings.Join(cfg.Drivers, ", "))
	}
	req := fit.Request{Chart: o.chart, Name: o.name, Values: o.values, KubeVersion: o.kubeVersion, APIVersions: o.apiVersions,
		ReuseValues: o.reuse, ResetValues: o.reset, ResetThenReuseValues: o.resetThenReuse}
	var base *kube.UpgradeBase
	if o.release != "" {
		c, ns, err := r.connectTo(ctx, o.release)
		if err != nil {
			return err
		}
		if base, err = kube.NewInspector(c).UpgradeBase(ctx, ns, o.release); err != nil {
			return err
		}
		// The limits of the store that holds the release: the client's, which
		// a connection may set apart from the flags (the demo's samples are
		// written with 11 chunks of 64 KiB).
		o.fitCfg = fitSettings(c.Config().Driver)
		if base.SizesUnread != "" {
			fmt.Fprintf(r.stderr, "Warning: the sizes of some revisions could not be read, the growth leaves them out: %s\n", message(errors.New(base.SizesUnread)))
		}
		req.Upgrade = &fit.Base{Last: base.Last, Deployed: base.Deployed, Capabilities: base.Capabilities}
		// The latest revision was decoded for the upgrade: its details, Helm 4's
		// fields among them, are in the cache.
		d, err := c.Details(ctx, base.Rows[len(base.Rows)-1])
		if err != nil {
			return err
		}
		req.Upgrade.ApplyMethod = d.Row.ApplyMethod
		req.Helm, o.helmReason = fitHelm(o.helm, d.Row)
	} else {
		req.Namespace = r.installNamespace()
		req.Helm, o.helmReason = fitHelm(o.helm, kube.RevisionRow{})
	}
	out, err := o.examine(ctx, req, base)
	if err != nil {
		return err
	}
	if o.format != FormatTable {
		err = printStructured(r.stdout, o.format, out)
	} else {
		err = r.printFit(out)
	}
	if err != nil {
		return err
	}
	if !out.Fits {
		return silent(ExitNoFit)
	}
	return nil
}

// examine renders the request and measures it for the stores asked for, and
// with base the store that holds the release too, for the comparison.
func (o *fitOptions) examine(ctx context.Context, req fit.Request, base *kube.UpgradeBase) (*FitResult, error) {
	rd, err := fit.Render(ctx, req)
	switch {
	case errors.Is(err, fit.ErrNotFound):
		return nil, fmt.Errorf("%w: %w", kube.ErrNotFound, err)
	case errors.Is(err, fit.ErrValues):
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	case err != nil:
		return nil, err
	}
	rls := rd.Release
	measured := o.drivers
	var own kube.RevisionRow
	if base != nil {
		own = base.Rows[len(base.Rows)-1]
		if !slices.Contains(measured, own.Driver) {
			measured = append(slices.Clone(measured), own.Driver)
		}
	}
	rep, err := rd.Examine(measured, o.fitCfg)
	if err != nil {
		return nil, err
	}
	out := &FitResult{
		Chart: render.ChartName(rls.Chart.Metadata.Name, rls.Chart.Metadata.Version), Release: rls.Name, Namespace: rls.Namespace,
		Action: "install", Revision: rls.Version, JSONBytes: rep.JSONBytes, Breakdown: rep.Breakdown,
		Helm: rd.Helm, HelmReason: o.helmReason,
	}
	if base != nil {
		out.Action = "upgrade"
		ownBytes := rep.Store(own.Driver).StoredBytes
		var history []fit.SizePoint
		for _, r := range base.Rows {
			if r.Known && r.Summary.StoredBytes > 0 {
				history = append(history, fit.SizePoint{Revision: r.Revision, Bytes: r.Summary.StoredBytes})
			}
		}
		fit.Forecast(rep.Measurement, ownBytes, history, rls.Version)
		cur := &FitCurrent{Driver: own.Driver, Revision: own.Revision, Status: own.Status, UpgradeBytes: ownBytes,
			LimitBytes: own.LimitBytes, Growth: fit.ForecastRows(base.Rows)}
		if own.Known {
			cur.StoredBytes = own.Summary.StoredBytes
		}
		if cur.StoredBytes > 0 {
			cur.DeltaBytes = ownBytes - cur.StoredBytes
		}
		out.Current = cur
	}
	for _, s := range rep.Stores {
		if slices.Contains(o.drivers, s.Driver) {
			out.Stores = append(out.Stores, s)
		}
	}
	out.Fits = len(out.Stores) > 0
	for _, s := range out.Stores {
		out.Fits = out.Fits && s.Fits
	}
	return out, nil
}

// fitSettings are the chunk settings of a chunked store's configuration.
func fitSettings(d storage.ChunkedSecretsConfig) fit.Settings {
	return fit.Settings{ChunkSize: d.ChunkSize, MaxWriteChunks: d.MaxWriteChunks, MaxReadChunks: d.MaxReadChunks}
}

// installNamespace is the namespace an install goes to: -n, else the
// kubeconfig context's, else default; no cluster is asked.
func (r *run) installNamespace() string {
	if f := r.opts.Flags.Namespace; f != nil && *f != "" {
		return *f
	}
	if ns, _, err := r.opts.Flags.ToRawKubeConfigLoader().Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}

func (r *run) fitCommand() *cobra.Command {
	o := &fitOptions{}
	cmd := &cobra.Command{
		Use:   "fit CHART",
		Short: "Tell, before an install or upgrade, whether a chart fits each store",
		Long: `Render a chart (a directory or a .tgz) with its values as helm install would,
client-side (helm template's path, no cluster needed), turn it into the release
record the install stores, and encode that record as each store would store it:
Helm's Secrets driver and ConfigMaps driver (base64 of the gzip stream in
data.release, at most 1 MiB) and the chunked format with the chunk settings in use
(--chunk-size, --max-write-chunks, --profile; the limit is max write chunks ×
chunk size, and with no chunk count limit each Secret must still fit).

With --release NAME it reads that release from the cluster and renders its
upgrade instead, as helm upgrade would: its values reused by Helm's rules
(--reuse-values, --reset-values, --reset-then-reuse-values as helm's), the next
revision number, the cluster's capabilities; it compares the result with the
latest revision and says how many more revisions fit at the release's growth.

The record is the one Helm 4 stores (its chart's mod times and apply method make
it larger than Helm 3's, by 2% to 6% on a small chart), or with --helm 3 Helm
3's; an upgrade measures the record of the Helm that wrote the release's latest
revision.

It prints, per store, what the record would take, the store's limit and whether
it fits, and what takes the room: the chart's templates, files, CRDs and values,
the user's values, the rendered manifest and hooks, and the largest single items.

Exit status: 0 when the record fits every store checked (--driver; by default
every store, or HELM_DRIVER's), 1 when it does not fit some, above 1 an error:
2 usage, 3 chart, values file or release not found, 6 cluster unreachable or
forbidden (--release), 8 any other failure (the chart does not render).

-o json and -o yaml print chart, release, namespace, action, revision, jsonBytes,
helm, helmReason, fits, stores (driver, storedBytes, limitBytes, fits, reason, objects, chunks,
largestObjectBytes, growth), current (with --release) and breakdown (parts,
largest).`,
		Example: `  chunkview fit ./chart -f prod.yaml --driver secret || exit 1
  chunkview fit chart-1.2.3.tgz --set image.tag=v2 -o json
  chunkview fit ./chart --release my-app -n prod
  chunkview fit ./operator-chart --profile olmv1`,
		Args: exactArgs(1, "one CHART (a directory or a .tgz)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	f := cmd.Flags()
	f.StringVar(&o.name, "name", "", "release name of the install (default: the chart's name)")
	f.StringVar(&o.release, "release", "", "an existing release: render its upgrade, read from the cluster, and compare")
	f.StringSliceVarP(&o.values.ValueFiles, "values", "f", nil, "values file (repeated or comma-separated), as helm's -f")
	f.StringArrayVar(&o.values.Values, "set", nil, "a value, key=value, as helm's --set")
	f.StringArrayVar(&o.values.StringValues, "set-string", nil, "a string value, key=value, as helm's --set-string")
	f.StringArrayVar(&o.values.FileValues, "set-file", nil, "a value read from a file, key=path, as helm's --set-file")
	f.StringArrayVar(&o.values.JSONValues, "set-json", nil, "a JSON value, key=json, as helm's --set-json")
	f.BoolVar(&o.reuse, "reuse-values", false, "with --release: merge the last release's values with those given, as helm upgrade's")
	f.BoolVar(&o.reset, "reset-values", false, "with --release: the chart's values and those given only, as helm upgrade's")
	f.BoolVar(&o.resetThenReuse, "reset-then-reuse-values", false, "with --release: the new chart's values, the last release's, then those given, as helm upgrade's")
	f.StringVar(&o.kubeVersion, "kube-version", "", "Kubernetes version an install is rendered for (.Capabilities.KubeVersion), as helm template's")
	f.StringSliceVarP(&o.apiVersions, "api-versions", "a", nil, "API versions an install is rendered with (.Capabilities.APIVersions), as helm template's")
	f.IntVar(&o.helm, "helm", 0, "the Helm that will install or upgrade, 3 or 4, whose record is measured (default: 4 for an install; with --release, the Helm that wrote its latest revision)")
	// The chart completes as a path (cobra's default); the release from the
	// cluster, as other commands' release arguments do.
	_ = cmd.RegisterFlagCompletionFunc("release", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return r.completeReleases(c)
	})
	_ = cmd.MarkFlagFilename("values", "yaml", "yml", "json")
	return cmd
}

// fitHelm decides which Helm's record fit measures: the one --helm names (given
// is not 0); for an upgrade, the one that wrote the release's latest revision
// (latest), which is the Helm that upgrades it (Helm 4 when its record carries
// fields Helm 3's types do not know, as the operations decide); for an install,
// Helm 4, the current major, whose record is the larger of the two.
func fitHelm(given int, latest kube.RevisionRow) (int, string) {
	switch {
	case given != 0:
		return given, "--helm"
	case latest.Key == "":
		return 4, "an install by the current Helm, 4; --helm 3 measures Helm 3's record"
	case len(latest.UnknownFields) > 0:
		return 4, fmt.Sprintf("Helm 4 wrote revision %d (%s)", latest.Revision, strings.Join(latest.UnknownFields, ", "))
	}
	return 3, fmt.Sprintf("Helm 3 wrote revision %d", latest.Revision)
}
