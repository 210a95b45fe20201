package cli

import (
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/spf13/cobra"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
)

// Output formats of -o that only listings (ls, history) take, as kubectl's get does.
const (
	// FormatWide adds the columns a narrow table leaves out.
	FormatWide = "wide"
	// FormatName prints the index Secrets, one a line, as kubectl's -o name
	// does: `kubectl get -n NS $(chunkview ls -o name)` reads them.
	FormatName = "name"
)

// addListOutputFlag registers -o on a listing command.
func addListOutputFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVarP(dst, "output", "o", FormatTable, "output format: table, wide, name, json, yaml, jsonpath=TEMPLATE or custom-columns=HEADER:EXPR,...")
}

func checkListFormat(f string) error {
	switch {
	case f == FormatWide, f == FormatName:
		return nil
	case isTemplate(f):
		_, _, err := parseTemplate(f)
		return err
	}
	if err := checkFormat(f); err != nil {
		return usageErrorf("unknown output format -o %q: use table, wide, name, json, yaml, jsonpath=TEMPLATE or custom-columns=HEADER:EXPR,...", f)
	}
	return nil
}

// isTable reports whether format prints a table.
func isTable(format string) bool { return format == FormatTable || format == FormatWide }

// chunkCount is the CHUNKS column: "-" for Helm's own stores, whose record is
// one object with no chunks, as the TUI shows it.
func chunkCount(driver string, n int) string {
	if driver == kube.DriverSecret || driver == kube.DriverConfigMap {
		return "-"
	}
	return fmt.Sprint(n)
}

// objectName names a record as kubectl does: configmap/KEY for Helm's
// ConfigMaps driver, secret/KEY otherwise (the index Secret, for chunked).
func objectName(driver, key string) string {
	if driver == kube.DriverConfigMap {
		return "configmap/" + key
	}
	return "secret/" + key
}

// lsFilter is what the flags of `ls` that helm users type keep: by status, by a
// regular expression on the name, and at most so many, in helm's order or its
// reverse.
//
// Without a status flag it shows what helm ls shows by default, deployed and
// failed releases, and also those pending or uninstalling: a release stuck there
// blocks Helm's next upgrade, and finding it is what chunkview is for. As helm
// does, it hides the releases whose latest revision is superseded or uninstalled
// (helm uninstall --keep-history) until --superseded, --uninstalled or -a asks
// for them. --superseded alone is where it differs from helm, which then lists
// every superseded revision: ls lists releases, one row each, and `history`
// lists the revisions of one.
type lsFilter struct {
	deployed, failed, pending, superseded bool
	uninstalled, uninstalling, all        bool
	filter                                string
	short, noHeaders                      bool
	reverse, byDate                       bool
	max                                   int

	re *regexp.Regexp
	// hidden counts the releases the default left out, for the note.
	hidden int
}

func (f *lsFilter) addFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVarP(&f.all, "all", "a", false, "show every release, whatever the status of its latest revision")
	fs.BoolVar(&f.deployed, "deployed", false, "show deployed releases (any of the status flags together: all they name)")
	fs.BoolVar(&f.failed, "failed", false, "show failed releases")
	fs.BoolVar(&f.pending, "pending", false, "show pending releases (pending-install, pending-upgrade, pending-rollback)")
	fs.BoolVar(&f.superseded, "superseded", false, "show releases whose latest revision is superseded (hidden by default, as in helm)")
	fs.BoolVar(&f.uninstalled, "uninstalled", false, "show uninstalled releases (helm uninstall --keep-history; hidden by default, as in helm)")
	fs.BoolVar(&f.uninstalling, "uninstalling", false, "show releases being uninstalled")
	fs.StringVarP(&f.filter, "filter", "f", "", "show the releases whose name matches this regular expression (Go syntax, as helm's)")
	fs.BoolVarP(&f.short, "short", "q", false, "print the release names only, one a line")
	fs.BoolVar(&f.noHeaders, "no-headers", false, "leave the table's header line out")
	fs.BoolVarP(&f.reverse, "reverse", "r", false, "reverse the order")
	fs.BoolVarP(&f.byDate, "date", "d", false, "sort by the time of the latest revision, oldest first, instead of by namespace and name")
	fs.IntVarP(&f.max, "max", "m", 0, "show at most this many releases (0: all)")
}

func (f *lsFilter) validate() error {
	if f.max < 0 {
		return usageErrorf("--max %d: want 0 (all) or more", f.max)
	}
	if f.filter != "" {
		re, err := regexp.Compile(f.filter)
		if err != nil {
			return usageErrorf("--filter %q is not a regular expression: %v", f.filter, err)
		}
		f.re = re
	}
	return nil
}

// statusFlags reports whether any status flag was given.
func (f *lsFilter) statusFlags() bool {
	return f.deployed || f.failed || f.pending || f.superseded || f.uninstalled || f.uninstalling
}

// keep reports whether a release row passes the status flags and the filter.
func (f *lsFilter) keep(it ReleaseItem) bool {
	if f.re != nil && !f.re.MatchString(it.Name) {
		return false
	}
	if f.all {
		return true
	}
	if !f.statusFlags() {
		return it.Status != "superseded" && it.Status != "uninstalled"
	}
	switch {
	case it.Status == "deployed":
		return f.deployed
	case it.Status == "failed":
		return f.failed
	case it.Status == "superseded":
		return f.superseded
	case it.Status == "uninstalled":
		return f.uninstalled
	case it.Status == "uninstalling":
		return f.uninstalling
	case kube.Pending(it.Status):
		return f.pending
	}
	return false
}

// apply returns the items kept, in the order asked for, at most max of them.
// items come sorted by namespace and name.
func (f *lsFilter) apply(items []ReleaseItem) []ReleaseItem {
	out := items[:0:0]
	f.hidden = 0
	for _, it := range items {
		switch {
		case f.keep(it):
			out = append(out, it)
		case !f.all && !f.statusFlags() && (f.re == nil || f.re.MatchString(it.Name)):
			f.hidden++
		}
	}
	if f.byDate {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.Before(out[j].Updated) })
	}
	if f.reverse {
		slices.Reverse(out)
	}
	if f.max > 0 && len(out) > f.max {
		out = out[:f.max]
	}
	return out
}

// hiddenNote says how many releases the default left out and how to see them,
// or "" when none was.
func (f *lsFilter) hiddenNote() string {
	if f.hidden == 0 {
		return ""
	}
	return fmt.Sprintf("%s whose latest revision is superseded or uninstalled not shown, as helm ls hides them: -a shows every release, --superseded or --uninstalled those", human.Plural(f.hidden, "release", "releases"))
}

// mixedNamespaces reports whether any release's records live outside its own
// namespace: only then does the table need a STORAGE NS column.
func mixedNamespaces(items []ReleaseItem) bool {
	for _, it := range items {
		if it.StorageNamespace != it.Namespace {
			return true
		}
	}
	return false
}

// lastRevisions keeps the newest max revisions of rows (oldest first), as helm's
// history --max does; max 0 keeps all.
func lastRevisions(rows []kube.RevisionRow, max int) []kube.RevisionRow {
	if max > 0 && len(rows) > max {
		return rows[len(rows)-max:]
	}
	return rows
}
