package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/revdiff"
	"github.com/chunkview/chunkview/storage"
)

// Inspection is the output of `inspect`: how one revision is stored.
type Inspection struct {
	Release string `json:"release"`
	// Driver is the store that holds the revision: chunked, secret or configmap.
	Driver           string `json:"driver"`
	StorageNamespace string `json:"storageNamespace"`
	Revision         int    `json:"revision"`
	Status           string `json:"status"`
	// Key is the index Secret's name.
	Key   string     `json:"key"`
	Index SecretItem `json:"index"`
	// Chunks are the chunk Secrets the index names, in order.
	Chunks []SecretItem `json:"chunks"`
	// Orphans are chunk Secrets of this key that the index does not name.
	Orphans []SecretItem `json:"orphans"`
	Totals  Totals       `json:"totals"`
	// Parts break the release down by what takes its space, largest first (empty
	// when it cannot be decoded).
	Parts []PartItem `json:"parts"`
	// DecodeError says why the revision cannot be read, if it cannot.
	DecodeError string `json:"decodeError,omitempty"`
	// Values are the user-supplied values, with --values only.
	Values *Values `json:"values,omitempty"`
}

// SecretItem is one Secret of a stored revision.
type SecretItem struct {
	Name string `json:"name"`
	// Role is index or chunk.
	Role string `json:"role"`
	Type string `json:"type"`
	// Bytes is the sum of the Secret's data values.
	Bytes int `json:"bytes"`
	// ShareOfLimit is Bytes as a fraction of the API server's 1 MiB Secret limit.
	ShareOfLimit float64 `json:"shareOfLimit"`
	// State is ok, missing, corrupt, wrong-type or orphan; Detail says more.
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
	// HashOK tells whether a chunk's bytes match the hash in its name (always true
	// for the index, which has none).
	HashOK bool `json:"hashOK"`
	// Owned tells whether a chunk has its ownerReference to the index.
	Owned   bool      `json:"owned"`
	Created time.Time `json:"created,omitzero"`
}

// Totals are the sizes of a stored revision.
type Totals struct {
	// Secrets is the number of Secrets the revision is stored in, index included.
	Secrets int `json:"secrets"`
	// CompressedBytes is the gzip stream: all slices.
	CompressedBytes int `json:"compressedBytes"`
	// DecompressedBytes is the JSON payload, when it decoded.
	DecompressedBytes int `json:"decompressedBytes"`
	// HelmSecretBytes is what Helm's own Secrets driver would store for the same
	// release (base64 of gzip), HelmSecretLimit the most one Secret holds, and
	// HelmSecretFits whether it would fit.
	HelmSecretBytes int  `json:"helmSecretBytes"`
	HelmSecretLimit int  `json:"helmSecretLimit"`
	HelmSecretFits  bool `json:"helmSecretFits"`
}

// PartItem is one component of a release and what it costs.
type PartItem struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
	// JSONBytes and GzipBytes are the part's size as JSON, and compressed on its own.
	JSONBytes int    `json:"jsonBytes"`
	GzipBytes int    `json:"gzipBytes"`
	Largest   string `json:"largest,omitempty"`
}

// Values are a revision's user-supplied values.
type Values struct {
	// Masked tells whether secrets are masked (unless --reveal).
	Masked bool           `json:"masked"`
	Data   map[string]any `json:"data"`
}

func secretItem(s storage.SecretInfo) SecretItem {
	return SecretItem{
		Name: s.Name, Role: s.Role, Type: s.Type, Bytes: s.Bytes, ShareOfLimit: s.Share,
		State: string(s.State), Detail: s.Detail, HashOK: s.HashOK, Owned: s.Owned, Created: s.Created,
	}
}

func inspection(ns string, l *storage.Layout) Inspection {
	in := Inspection{
		Release: l.Release, StorageNamespace: ns, Revision: l.Revision, Status: l.Status, Key: l.Key,
		Index: secretItem(l.Index), Chunks: []SecretItem{}, Orphans: []SecretItem{}, Parts: []PartItem{},
		DecodeError: l.DecodeError,
		Totals: Totals{
			Secrets: 1 + len(l.Chunks), CompressedBytes: l.StoredBytes, DecompressedBytes: l.DecodedBytes,
			HelmSecretBytes: l.HelmSecretBytes, HelmSecretLimit: storage.MaxSecretDataBytes, HelmSecretFits: l.HelmSecretFits,
		},
	}
	for _, s := range l.Chunks {
		in.Chunks = append(in.Chunks, secretItem(s))
	}
	for _, s := range l.Orphans {
		in.Orphans = append(in.Orphans, secretItem(s))
	}
	for _, p := range l.Parts {
		in.Parts = append(in.Parts, PartItem{Name: p.Name, Items: p.Items, JSONBytes: p.JSONBytes, GzipBytes: p.GzipBytes, Largest: p.LargestOne})
	}
	return in
}

// inspectOptions are the flags and argument of `inspect`, in kubectl's shape:
// Complete, Validate, Run.
type inspectOptions struct {
	name       string
	format     string
	rev        int
	showValues bool
	reveal     bool
}

// Complete takes the release name from args.
func (o *inspectOptions) Complete(args []string) error {
	o.name = args[0]
	return nil
}

// Validate checks the flags before anything is read.
func (o *inspectOptions) Validate() error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.rev < 0 {
		return usageErrorf("--revision %d is not a revision number", o.rev)
	}
	if o.reveal && !o.showValues {
		return usageErrorf("--reveal only applies with --values")
	}
	return nil
}

// Run reads the revision's layout and prints it.
func (o *inspectOptions) Run(ctx context.Context, r *run) error {
	c, ns, err := r.connectTo(ctx, o.name)
	if err != nil {
		return err
	}
	return o.show(ctx, r, c, kube.NewInspector(c), ns)
}

// show reads the revision from namespace ns through c, its layout through
// in, and prints them.
func (o *inspectOptions) show(ctx context.Context, r *run, c readClient, in layoutReader, ns string) error {
	row, err := c.Revision(ctx, ns, o.name, o.rev)
	if err != nil {
		return err
	}
	l, err := in.Layout(ctx, ns, o.name, row.Revision)
	if err != nil {
		return err
	}
	out := inspection(row.StorageNamespace, l)
	out.Driver = row.Driver
	var valuesYAML string
	if o.showValues {
		if l.Decoded == nil {
			return fmt.Errorf("revision %d of %q cannot be read, so its values cannot be shown: %s", l.Revision, o.name, l.DecodeError)
		}
		data := l.Decoded.Config
		if !o.reveal {
			data = revdiff.MaskValues(data)
		}
		if data == nil {
			data = map[string]any{}
		}
		out.Values = &Values{Masked: !o.reveal, Data: data}
		if valuesYAML, err = revdiff.ValuesYAML(l.Decoded.Config, o.reveal); err != nil {
			return err
		}
	}
	if o.format != FormatTable {
		err = printStructured(r.stdout, o.format, out)
	} else {
		r.printInspection(out, l, valuesYAML, c.Config().SuggestFor(row, "verify"))
	}
	if err == nil && out.DecodeError != "" {
		// Its layout is shown, but a script must not take it for a sound one.
		return silent(ExitProblems)
	}
	return err
}

func (r *run) inspectCommand() *cobra.Command {
	o := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect NAME",
		Short: "Show how a revision is stored: its Secrets, sizes and what takes the space",
		Long: `Show how one revision (the latest unless --revision) is stored: the index Secret
and each chunk Secret with its size, share of the 1 MiB Secret limit, hash check,
owner reference and age; chunk Secrets of the revision that the index does not
name; the compressed and decompressed totals and whether Helm's own Secrets driver
could store the release at all; and which parts of the release take the space.

--values also prints the user-supplied values, secrets masked unless --reveal.

Exits with code 4, as verify does for its problems, when the revision cannot be
read (its layout printed all the same).`,
		Example: `  chunkview inspect my-release
  chunkview inspect my-release --revision 3 --values`,
		Args: exactArgs(1, "one release NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runOptions(cmd.Context(), r, o, args)
		},
	}
	addOutputFlag(cmd, &o.format)
	cmd.Flags().IntVar(&o.rev, "revision", 0, "revision to inspect (default: the latest)")
	cmd.Flags().BoolVar(&o.showValues, "values", false, "also show the user-supplied values (secrets masked)")
	cmd.Flags().BoolVar(&o.reveal, "reveal", false, "with --values, show secrets as they are")
	return cmd
}

// storeName says in words which store holds a release.
func storeName(d string) string {
	switch d {
	case kube.DriverSecret:
		return "Helm's Secrets driver (one Secret of type helm.sh/release.v1 per revision)"
	case kube.DriverConfigMap:
		return "Helm's ConfigMaps driver (one ConfigMap per revision)"
	}
	return "chunked (an index Secret and chunk Secrets per revision)"
}

// printInspection prints the layout; verify is the command that explains a
// record that cannot be read.
func (r *run) printInspection(in Inspection, l *storage.Layout, valuesYAML, verify string) {
	w := r.stdout
	fmt.Fprintf(w, "Release %s, revision %d (%s), stored in namespace %s under key %s\n", in.Release, in.Revision, human.OrUnknown(in.Status), in.StorageNamespace, in.Key)
	fmt.Fprintf(w, "Store: %s\n\n", storeName(in.Driver))
	r.printSecrets(l, in.Driver)
	r.printProblems(l, verify)
	printTotals(w, l, in.Driver)

	if parts := render.PartsTable(l.Parts); len(parts.Rows) > 0 {
		fmt.Fprintf(w, "\n%s\n%s\n", render.PartsTitle, render.PartsNote)
		printTabbed(w, parts)
	}
	if in.Values != nil {
		note := "secrets masked; --reveal shows them"
		if !in.Values.Masked {
			note = "secrets revealed"
		}
		fmt.Fprintf(w, "\nUser-supplied values (%s)\n%s", note, valuesYAML)
	}
}

// printSecrets prints the table of the revision's Secrets (or ConfigMap): its
// index, chunks and the orphans of its key, each with its size, hash and owner
// checks and state, and what is wrong with it after the state.
func (r *run) printSecrets(l *storage.Layout, driver string) {
	w := r.stdout
	t := render.LayoutTable(l, driver, render.Options{Now: r.now()})
	state := t.Index(render.LayoutState)
	for i, lr := range render.LayoutRows(l) {
		if lr.Info.Detail != "" {
			t.Rows[i][state].Text += ": " + lr.Info.Detail
		}
	}
	printTabbed(w, t)
}

// printProblems says what is wrong with the revision's objects
// (render.LayoutProblems), each after its state's word, and the command that
// helps: verify explains a revision that cannot be read, gc removes orphans.
func (r *run) printProblems(l *storage.Layout, verify string) {
	problems := render.LayoutProblems(l)
	if len(problems) == 0 {
		return
	}
	w := r.stdout
	fmt.Fprintln(w)
	for _, p := range problems {
		if p.State != "" {
			fmt.Fprintf(w, "%s: ", render.SecretState(p.State).Text)
		}
		fmt.Fprintln(w, p.Text)
	}
	if l.Broken() {
		fmt.Fprintf(w, "Run `%s` for an explanation.\n", verify)
	}
	if len(l.Orphans) > 0 {
		fmt.Fprintf(w, "%s of this revision not named by its index: `%s` removes leftovers.\n", human.Plural(len(l.Orphans), "chunk Secret", "chunk Secrets"), r.suggest("gc", ""))
	}
}

// printTotals prints what the revision, kept by store driver, takes: its
// objects, its stored and decompressed bytes, and the room it has in its store
// or would have in Helm's Secrets driver (render.LayoutTotals).
func printTotals(w io.Writer, l *storage.Layout, driver string) {
	fmt.Fprintf(w, "\nTotals\n")
	tw := newTable(w)
	for _, t := range render.LayoutTotals(l, driver) {
		row(tw, "  "+t.Label, t.Value.Text)
	}
	tw.Flush()
}
