package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/chunkview/chunkview/render"
	"github.com/spf13/cobra"
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

// printTabbed prints t's header and rows in columns (newTable), each cell's
// text as row writes it.
func printTabbed(w io.Writer, t render.Table) {
	tw := newTable(w)
	for _, cells := range append([][]string{t.Head()}, t.Texts()...) {
		args := make([]any, len(cells))
		for i, c := range cells {
			args[i] = c
		}
		row(tw, args...)
	}
	tw.Flush()
}
