package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
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
		r.printInspection(out, valuesYAML, c.Config().SuggestFor(row, "verify"))
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
func (r *run) printInspection(in Inspection, valuesYAML, verify string) {
	w := r.stdout
	fmt.Fprintf(w, "Release %s, revision %d (%s), stored in namespace %s under key %s\n", in.Release, in.Revision, human.OrUnknown(in.Status), in.StorageNamespace, in.Key)
	fmt.Fprintf(w, "Store: %s\n\n", storeName(in.Driver))
	r.printSecrets(in)
	printTotals(w, in)
	if in.DecodeError != "" {
		fmt.Fprintf(w, "\nThis revision cannot be read: %s\nRun `%s` for an explanation.\n", in.DecodeError, verify)
	}

	if len(in.Parts) > 0 {
		fmt.Fprintf(w, "\nSize breakdown (each part compressed on its own)\n")
		tw := newTable(w)
		row(tw, "PART", "ITEMS", "JSON", "GZIP", "LARGEST")
		for _, p := range in.Parts {
			row(tw, p.Name, p.Items, human.Bytes(int64(p.JSONBytes)), human.Bytes(int64(p.GzipBytes)), human.OrUnknown(p.Largest))
		}
		tw.Flush()
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
// checks and state.
func (r *run) printSecrets(in Inspection) {
	w, now := r.stdout, r.now()
	tw := newTable(w)
	object := "SECRET"
	if in.Driver == kube.DriverConfigMap {
		object = "CONFIGMAP"
	}
	row(tw, object, "ROLE", "SIZE", "OF 1 MiB", "HASH", "OWNER REF", "STATE", "AGE")
	secretRow := func(s SecretItem) {
		hash, owned := "ok", "ok"
		if !s.HashOK {
			hash = "MISMATCH"
		}
		if !s.Owned {
			owned = "missing"
		}
		if s.Role == storage.TypeIndex || s.Role == "record" {
			// An index, or Helm's whole record, has no hash in its name and
			// no owner to point to.
			hash, owned = "-", "-"
		}
		if s.State == string(storage.StateMissing) {
			hash, owned = "-", "-"
		}
		state := s.State
		if s.Detail != "" {
			state += ": " + s.Detail
		}
		row(tw, s.Name, s.Role, human.Bytes(int64(s.Bytes)), percent(s.ShareOfLimit), hash, owned, state, human.Age(now, s.Created))
	}
	secretRow(in.Index)
	for _, s := range in.Chunks {
		secretRow(s)
	}
	for _, s := range in.Orphans {
		secretRow(s)
	}
	tw.Flush()
	if len(in.Orphans) > 0 {
		fmt.Fprintf(w, "\n%s of this revision not named by its index: `%s` removes leftovers.\n", human.Plural(len(in.Orphans), "chunk Secret", "chunk Secrets"), r.suggest("gc", ""))
	}

}

// printTotals prints what the revision takes: its objects, its stored and
// decompressed bytes, and the room it has in its store or would have in Helm's
// Secrets driver.
func printTotals(w io.Writer, in Inspection) {
	objects := "Secrets"
	if in.Driver == kube.DriverConfigMap {
		objects = "ConfigMaps"
	}
	t := in.Totals
	fmt.Fprintf(w, "\nTotals\n")
	tw := newTable(w)
	row(tw, "  "+objects, t.Secrets)
	stored := "  Compressed (stored)"
	if in.Driver == kube.DriverSecret || in.Driver == kube.DriverConfigMap {
		stored = "  Stored (base64 of gzip)"
	}
	row(tw, stored, fmt.Sprintf("%s (%d bytes)", human.Bytes(int64(t.CompressedBytes)), t.CompressedBytes))
	if t.DecompressedBytes > 0 {
		ratio := ""
		if t.CompressedBytes > 0 {
			ratio = fmt.Sprintf(", %.1fx", float64(t.DecompressedBytes)/float64(t.CompressedBytes))
		}
		row(tw, "  Decompressed (JSON)", fmt.Sprintf("%s (%d bytes%s)", human.Bytes(int64(t.DecompressedBytes)), t.DecompressedBytes, ratio))
	}
	switch {
	case in.Driver == kube.DriverSecret || in.Driver == kube.DriverConfigMap:
		// The record is Helm's own: its room is the line above, against 1 MiB.
		row(tw, "  Limit", fmt.Sprintf("%s of %s per %s (%.0f%%)", human.Bytes(int64(t.CompressedBytes)), human.Bytes(int64(t.HelmSecretLimit)),
			strings.TrimSuffix(objects, "s"), float64(t.CompressedBytes)*100/float64(t.HelmSecretLimit)))
	case t.HelmSecretBytes > 0:
		fits := "fits in one Secret"
		if !t.HelmSecretFits {
			fits = fmt.Sprintf("would NOT fit in one Secret (%s over)", human.Bytes(int64(t.HelmSecretBytes-t.HelmSecretLimit)))
		}
		row(tw, "  Helm Secrets driver", fmt.Sprintf("%s of %s: %s", human.Bytes(int64(t.HelmSecretBytes)), human.Bytes(int64(t.HelmSecretLimit)), fits))
	}
	tw.Flush()
}
