package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"
)

// Output formats of -o.
const (
	FormatTable = "table"
	FormatJSON  = "json"
	FormatYAML  = "yaml"
)

// addOutputFlag registers -o on cmd.
func addOutputFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVarP(dst, "output", "o", FormatTable, "output format: table, json or yaml")
}

func checkFormat(f string) error {
	switch f {
	case FormatTable, FormatJSON, FormatYAML:
		return nil
	}
	return usageErrorf("unknown output format -o %q: use table, json or yaml", f)
}

// printStructured writes v as JSON (indented) or YAML. The YAML is the JSON's, so
// both have the same field names.
func printStructured(w io.Writer, format string, v any) error {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	if format == FormatYAML {
		y, err := yaml.JSONToYAML(js)
		if err != nil {
			return fmt.Errorf("encode output as YAML: %w", err)
		}
		_, err = w.Write(y)
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", js)
	return err
}

// newTable returns a tabwriter laid out like kubectl's tables. Flush it when done.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
}

// row writes one tab-separated row.
func row(w io.Writer, cells ...any) {
	parts := make([]string, len(cells))
	for i, c := range cells {
		s := fmt.Sprint(c)
		// A tab or newline inside a cell would break the columns.
		s = strings.NewReplacer("\t", " ", "\n", " ").Replace(s)
		parts[i] = s
	}
	fmt.Fprintln(w, strings.Join(parts, "\t"))
}

// size renders a byte count for people; "-" when unknown.
func size(n int64) string {
	if n <= 0 {
		return "-"
	}
	return humanize.IBytes(uint64(n))
}

// age renders how long ago t was, as kubectl does ("5m", "3d"); "-" when unknown.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < 0 {
		d = 0
	}
	return duration.HumanDuration(d)
}

// timestamp renders t in local time, to the second, with the zone so that a time
// read off one machine means the same on another.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05 MST")
}

// orDash returns s, or "-" when s is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// percent renders a fraction as a percentage with one decimal.
func percent(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

// plural returns "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
