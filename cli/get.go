package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/revdiff"
)

// getPart is what `chunkview get` prints of a revision, as `helm get` does.
type getPart string

const (
	getValues   getPart = "values"
	getManifest getPart = "manifest"
	getNotes    getPart = "notes"
	getHooks    getPart = "hooks"
	getAll      getPart = "all"
)

// getOptions are the flags and arguments of `chunkview get PART NAME`, in
// kubectl's shape: Complete fills what the command line leaves out, Validate
// checks it, Run prints.
type getOptions struct {
	part     getPart
	name     string
	revision int
	reveal   bool
	all      bool // values: the computed values, chart defaults included
	format   string
}

// Complete takes the release name from args.
func (o *getOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the flag values before anything is read.
func (o *getOptions) Validate() error {
	if o.revision < 0 {
		return usageErrorf("--revision %d is not a revision number (1, 2, ...; 0 or none: the latest)", o.revision)
	}
	if o.part == getValues || o.part == getMetadata {
		return checkFormat(o.format)
	}
	return nil
}

// Run reads the revision and prints the part.
func (o *getOptions) Run(ctx context.Context, r *run) error {
	c, ns, err := r.connectTo(ctx, o.name)
	if err != nil {
		return err
	}
	return o.show(ctx, r, c, ns)
}

// show reads the revision from namespace ns through c and prints the part.
func (o *getOptions) show(ctx context.Context, r *run, c readClient, ns string) error {
	row, err := c.Revision(ctx, ns, o.name, o.revision)
	if err != nil {
		return err
	}
	d, err := c.Details(ctx, row)
	if err != nil {
		return err
	}
	if d.Release == nil {
		return fmt.Errorf("revision %d of %s cannot be read: %s; `%s` says which Secret is at fault", row.Revision, o.name, d.Row.Problem, c.Config().SuggestFor(row, "verify"))
	}
	if o.part == getMetadata {
		return printMetadata(r.stdout, o.format, releaseMetadata(d.Release))
	}
	if o.part == getValues && o.format != FormatTable {
		vals, err := o.values(d.Release)
		if err != nil {
			return err
		}
		if !o.reveal {
			vals = revdiff.MaskValues(vals)
		}
		return printStructured(r.stdout, o.format, vals)
	}
	return o.print(r.stdout, d.Release, d.Row.ApplyMethod)
}

// values returns the user-supplied values, or with --all the computed ones.
func (o *getOptions) values(rls *release.Release) (map[string]any, error) {
	if !o.all || rls.Chart == nil {
		return rls.Config, nil
	}
	vals, err := chartutil.CoalesceValues(rls.Chart, rls.Config)
	if err != nil {
		return nil, fmt.Errorf("compute the values of revision %d: %w", rls.Version, err)
	}
	return vals, nil
}

// print writes the part as helm get prints it. applyMethod is Helm 4's
// apply_method of the record, which `all` names as Helm 4's get metadata does.
func (o *getOptions) print(w io.Writer, rls *release.Release, applyMethod string) error {
	var b strings.Builder
	switch o.part {
	case getValues:
		if err := o.writeValues(&b, rls, o.all); err != nil {
			return err
		}
	case getManifest:
		o.writeManifest(&b, rls)
	case getNotes:
		o.writeNotes(&b, rls)
	case getHooks:
		o.writeHooks(&b, rls)
	case getAll:
		writeHeader(&b, rls, applyMethod)
		if err := o.writeValues(&b, rls, false); err != nil {
			return err
		}
		b.WriteString("\n")
		if err := o.writeValues(&b, rls, true); err != nil {
			return err
		}
		b.WriteString("\nHOOKS:\n")
		o.writeHooks(&b, rls)
		b.WriteString("MANIFEST:\n")
		o.writeManifest(&b, rls)
		b.WriteString("\n")
		o.writeNotes(&b, rls)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeader writes what `helm get all` begins with: the release, its
// revision's status and chart.
func writeHeader(b *strings.Builder, rls *release.Release, applyMethod string) {
	fmt.Fprintf(b, "NAME: %s\n", rls.Name)
	if rls.Info != nil {
		fmt.Fprintf(b, "LAST DEPLOYED: %s\n", rls.Info.LastDeployed.Local().Format("Mon Jan _2 15:04:05 2006 MST"))
	}
	fmt.Fprintf(b, "NAMESPACE: %s\n", rls.Namespace)
	if rls.Info != nil {
		fmt.Fprintf(b, "STATUS: %s\n", rls.Info.Status)
	}
	fmt.Fprintf(b, "REVISION: %d\n", rls.Version)
	if applyMethod != "" {
		fmt.Fprintf(b, "APPLY_METHOD: %s\n", applyMethodWords(applyMethod))
	}
	if rls.Chart != nil && rls.Chart.Metadata != nil {
		fmt.Fprintf(b, "CHART: %s\nVERSION: %s\nAPP_VERSION: %s\n", rls.Chart.Metadata.Name, rls.Chart.Metadata.Version, rls.Chart.Metadata.AppVersion)
	}
}

// writeValues writes the user-supplied values, or with all the computed ones,
// masked unless --reveal.
func (o *getOptions) writeValues(b *strings.Builder, rls *release.Release, all bool) error {
	o2 := *o
	o2.all = all
	vals, err := o2.values(rls)
	if err != nil {
		return err
	}
	text, err := revdiff.ValuesYAML(vals, o.reveal)
	if err != nil {
		return err
	}
	if all {
		b.WriteString("COMPUTED VALUES:\n")
	} else {
		b.WriteString("USER-SUPPLIED VALUES:\n")
	}
	if len(vals) == 0 && !all {
		text = "null\n"
	}
	b.WriteString(text)
	return nil
}

// writeManifest writes the revision's manifest, masked unless --reveal.
func (o *getOptions) writeManifest(b *strings.Builder, rls *release.Release) {
	m := rls.Manifest
	if !o.reveal {
		m = revdiff.MaskManifest(m)
	}
	b.WriteString(strings.TrimRight(m, "\n") + "\n")
}

// writeHooks writes each hook's manifest under its source, masked unless
// --reveal.
func (o *getOptions) writeHooks(b *strings.Builder, rls *release.Release) {
	for _, h := range rls.Hooks {
		if h == nil {
			continue
		}
		m := h.Manifest
		if !o.reveal {
			m = strings.TrimPrefix(revdiff.MaskManifest(m), "---\n")
		}
		fmt.Fprintf(b, "---\n# Source: %s\n%s\n", h.Path, strings.TrimRight(m, "\n"))
	}
}

// writeNotes writes the chart's NOTES, masked unless --reveal; nothing when
// there are none.
func (o *getOptions) writeNotes(b *strings.Builder, rls *release.Release) {
	if n := revdiff.MaskNotes(rls, o.reveal); strings.TrimSpace(n) != "" {
		b.WriteString("NOTES:\n" + strings.TrimRight(n, "\n") + "\n")
	}
}

// applyMethodWords says a Helm 4 apply_method as helm get metadata does.
func applyMethodWords(m string) string {
	switch m {
	case "csa":
		return "client-side apply"
	case "ssa":
		return "server-side apply"
	}
	return fmt.Sprintf("unknown (%q)", m)
}

func (r *run) getCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get values|manifest|notes|hooks|metadata|all NAME",
		Short: "Print what a revision holds, as helm get does: values, manifest, notes, hooks, metadata or all",
		Long: `Print what a revision of a release holds, as helm get prints it: the user-supplied
values (--all: computed), the rendered manifest, the notes, the hooks, its metadata
(helm get metadata's fields, -o json and -o yaml as Helm prints them), or all of them.
The latest revision unless --revision. Secrets are masked unless --reveal: Secret
data, values under keys such as password or token, and those values wherever else
they appear.`,
		Example: `  chunkview get values podinfo -n demo
  chunkview get manifest podinfo --revision 2
  chunkview get metadata podinfo -o json
  chunkview get all payments-api --reveal`,
	}
	for _, p := range []struct {
		part  getPart
		short string
	}{
		{getValues, "Print the user-supplied values of a revision (--all: the computed values)"},
		{getManifest, "Print the rendered manifest of a revision"},
		{getNotes, "Print the notes of a revision"},
		{getHooks, "Print the hooks of a revision"},
		{getMetadata, "Print the metadata of a revision, as helm get metadata does"},
		{getAll, "Print everything helm get all prints of a revision"},
	} {
		o := &getOptions{part: p.part}
		sub := &cobra.Command{
			Use:   string(p.part) + " NAME",
			Short: p.short,
			Args:  exactArgs(1, "one release NAME"),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runOptions(cmd.Context(), r, o, args)
			},
		}
		sub.Flags().IntVar(&o.revision, "revision", 0, "the revision to print (default: the latest)")
		sub.Flags().BoolVar(&o.reveal, "reveal", false, "show secrets as they are instead of masking them")
		switch p.part {
		case getValues:
			sub.Flags().BoolVarP(&o.all, "all", "a", false, "print the computed values: chart defaults merged with the user-supplied ones")
			addOutputFlag(sub, &o.format)
		case getMetadata:
			addOutputFlag(sub, &o.format)
		}
		cmd.AddCommand(sub)
	}
	requireChoice(cmd, "what to print, then a release NAME")
	return cmd
}
