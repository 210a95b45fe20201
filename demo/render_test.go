package demo

import (
	"reflect"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
)

// helmSort is Helm's own SortManifests, as Helm's install and upgrade call it.
func helmSort(files map[string]string) ([]*release.Hook, []releaseutil.Manifest, error) {
	return releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
}

// TestRenderSortsAsHelm: every revision of every sample (and the orphan's),
// rendered with sortManifests, which sorts the files with their long base64
// runs replaced, has the manifest, hooks and notes that Helm's own
// SortManifests gives on the files as they are; and the runs were replaced
// (the largest samples are under a quarter of their size when sorted).
func TestRenderSortsAsHelm(t *testing.T) {
	type job struct {
		s  sample
		st step
		v  int
	}
	var jobs []job
	for _, s := range samples() {
		for i, st := range s.steps {
			if st.op != opRollback {
				jobs = append(jobs, job{s, st, i + 1})
			}
		}
		if s.name == "cert-manager" {
			jobs = append(jobs, job{s, step{op: opUpgrade, chart: "1.16.0", values: "installCRDs: true\nreplicaCount: 2\n"}, 4})
		}
	}
	for _, j := range jobs {
		ch, err := j.s.chart(j.st.chart).build()
		if err != nil {
			t.Fatal(err)
		}
		vals, err := chartutil.ReadValues([]byte(j.st.values))
		if err != nil {
			t.Fatal(err)
		}
		ro := chartutil.ReleaseOptions{Name: j.s.name, Namespace: j.s.namespace, Revision: j.v, IsInstall: j.st.op == opInstall, IsUpgrade: j.st.op == opUpgrade}
		m, h, n, err := renderChart(ch, vals, ro)
		if err != nil {
			t.Fatal(err)
		}
		wm, wh, wn, err := renderWith(ch, vals, ro, helmSort)
		if err != nil {
			t.Fatal(err)
		}
		if m != wm || n != wn || !reflect.DeepEqual(h, wh) {
			t.Errorf("%s revision %d renders otherwise than with Helm's SortManifests", j.s.name, j.v)
		}
		if len(m) > 400<<10 {
			sk := skeleton{runs: map[string]string{}}
			if short := sk.shorten(m); sk.clash || len(short) > len(m)/4 {
				t.Errorf("%s revision %d: %d bytes sorted as %d (clash %v): the runs were not replaced", j.s.name, j.v, len(m), len(short), sk.clash)
			}
		}
	}
}
