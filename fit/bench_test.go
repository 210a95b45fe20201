package fit_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	helmcli "helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/getter"

	"github.com/chunkview/chunkview/fit"
)

// helmTemplate is what `helm template release-name DIR` does, as
// cmd/helm/template.go does it: load the chart, merge the values, run the
// install action client-only as a dry run, and print the manifest and hooks.
func helmTemplate(ctx context.Context, dir string) (string, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return "", err
	}
	vals, err := (&values.Options{}).MergeValues(getter.All(helmcli.New()))
	if err != nil {
		return "", err
	}
	in := action.NewInstall(&action.Configuration{Log: func(string, ...interface{}) {}})
	in.DryRunOption, in.DryRun, in.ReleaseName, in.Replace, in.ClientOnly = "true", true, "release-name", true, true
	rel, err := in.RunWithContext(ctx, ch, vals)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	fmt.Fprintln(&out, strings.TrimSpace(rel.Manifest))
	for _, h := range rel.Hooks {
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return out.String(), nil
}

// fitAll is what `chunkview fit DIR --name release-name` does for every store.
func fitAll(ctx context.Context, dir string) (*fit.Report, error) {
	rd, err := fit.Render(ctx, fit.Request{Chart: dir, Name: "release-name"})
	if err != nil {
		return nil, err
	}
	return fit.Examine(rd.Release, nil, fit.Settings{MaxWriteChunks: 11})
}

// BenchmarkFitVsTemplate times fit (render, then encode for Helm's Secrets and
// ConfigMaps drivers and chunked storage, and break down) beside helm
// template's path on the same chart, in turns inside one loop so that both see
// the same machine load. It reports each one's mean time and their ratio
// (fit/template); ns/op is the pair.
//
//	go test ./fit -run '^$' -bench FitVsTemplate -benchtime 20x
func BenchmarkFitVsTemplate(b *testing.B) {
	for _, c := range benchCharts(b) {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			var tpl, ft time.Duration
			for b.Loop() {
				start := time.Now()
				out, err := helmTemplate(ctx, c.dir)
				tpl += time.Since(start)
				if err != nil || out == "" {
					b.Fatalf("helm template: %v", err)
				}
				start = time.Now()
				rep, err := fitAll(ctx, c.dir)
				ft += time.Since(start)
				if err != nil || len(rep.Stores) != 3 {
					b.Fatalf("fit: %v", err)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(tpl.Milliseconds())/n, "template-ms")
			b.ReportMetric(float64(ft.Milliseconds())/n, "fit-ms")
			b.ReportMetric(float64(ft)/float64(tpl), "fit/template")
		})
	}
}
