package cli_test

import (
	"bytes"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/chunkview/chunkview/cli"
)

// TestTemplateOutputsAsKubectl: ls and history take kubectl's -o jsonpath= and
// -o custom-columns=, and print what kubectl's own printers print over the same
// rows (those of -o json): the JSONPath over the whole output, the columns over
// each release or revision, <none> where an expression finds nothing. A template
// that does not parse is a usage error, before anything is read.
func TestTemplateOutputsAsKubectl(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args  []string
		items string
		tmpl  string
		cols  string
	}{
		{[]string{"ls", "-A"}, "releases", `{range .releases[*]}{.name}{"\t"}{.revision}{"\n"}{end}`, "NAME:.name,NS:.namespace,REV:.revision,CTL:.controlledBy"},
		{[]string{"history", "podinfo", "-n", "demo"}, "revisions", `{.revisions[*].chart}`, "REVISION:.revision,STATUS:.status,CHART:.chart"},
	} {
		r := runDemo(t, &cli.App{}, append(c.args, "-o", "json")...)
		mustCode(t, r, cli.ExitOK)
		var whole map[string]any
		decode(t, r, &whole)
		list := &unstructured.UnstructuredList{}
		for _, it := range whole[c.items].([]any) {
			list.Items = append(list.Items, unstructured.Unstructured{Object: it.(map[string]any)})
		}

		jp, err := printers.NewJSONPathPrinter(c.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := jp.PrintObj(&unstructured.Unstructured{Object: whole}, &want); err != nil {
			t.Fatal(err)
		}
		r = runDemo(t, &cli.App{}, append(c.args, "-o", "jsonpath="+c.tmpl)...)
		mustCode(t, r, cli.ExitOK)
		if r.stdout != want.String() || want.Len() == 0 {
			t.Errorf("%v -o jsonpath=%s:\n%s\nwant kubectl's:\n%s", c.args, c.tmpl, r.stdout, want.String())
		}

		cp, err := get.NewCustomColumnsPrinterFromSpec(c.cols, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want.Reset()
		if err := cp.PrintObj(list, &want); err != nil {
			t.Fatal(err)
		}
		r = runDemo(t, &cli.App{}, append(c.args, "-o", "custom-columns="+c.cols)...)
		mustCode(t, r, cli.ExitOK)
		if r.stdout != want.String() || len(list.Items) == 0 {
			t.Errorf("%v -o custom-columns=%s:\n%s\nwant kubectl's:\n%s", c.args, c.cols, r.stdout, want.String())
		}
	}
	for _, bad := range []string{"jsonpath={.releases[", "custom-columns=", "custom-columns=NAME"} {
		mustCode(t, runDemo(t, &cli.App{}, "ls", "-o", bad), cli.ExitUsage)
	}
}
