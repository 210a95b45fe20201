package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/client-go/kubernetes"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/apis"
)

// apisResult is the fleet check before a cluster upgrade (issue 30):
// `ls -A --removed-apis` beside plain `ls -A`, over the chunked copy and over
// Helm's Secrets, and pluto's way of doing it over Helm's Secrets.
type apisResult struct {
	Rows []summary // ls -A, ls -A --removed-apis (chunked); ls -A, ls -A --removed-apis, pluto's (Helm's Secrets)
	// Latest is the gzip bytes of every release's latest revision in the
	// chunked copy: what --removed-apis must add to plain ls, at least.
	Latest int64
}

// removedAPIs measures the fleet check: what --removed-apis adds to plain ls
// (the latest revisions' data and one discovery pass), and pluto's approach,
// Helm's action.List then each release's manifest checked, over the same
// Helm Secrets.
func (m *measurer) removedAPIs(rep *report) error {
	f := m.f
	helmReleases := 0
	for _, s := range f.Specs {
		if s.fitsHelm() {
			helmReleases++
		}
	}
	// Want 0: the fleet's objects are all served, so every check lists no
	// release; each contender's JSON is still parsed.
	rows, err := compare("removed APIs", m.runs, []contender{
		m.chunkview("chunkview ls -A --driver chunked -o json", len(f.Specs), "ls", "-A", "--driver", "chunked", "-o", "json", "--owner", fleetOwner),
		m.chunkview("chunkview ls -A --removed-apis --driver chunked -o json", 0, "ls", "-A", "--removed-apis", "--driver", "chunked", "-o", "json", "--owner", fleetOwner),
		m.chunkview("chunkview ls -A --driver secret -o json", helmReleases, "ls", "-A", "--driver", "secret", "-o", "json"),
		m.chunkview("chunkview ls -A --removed-apis --driver secret -o json", 0, "ls", "-A", "--removed-apis", "--driver", "secret", "-o", "json"),
		m.peer("pluto's approach: Helm v3 action.List, each release's manifest checked", 0, "pluto"),
	})
	if err != nil {
		return err
	}
	res := &apisResult{Rows: rows}
	for _, s := range f.Specs {
		res.Latest += int64(s.GZ)
	}
	rep.APIs = res
	return nil
}

// plutoChild is pluto's way of finding releases on removed APIs: Helm's
// action.List over every namespace (helm ls -A: the latest revision of each
// release, decoded by Helm's Secrets driver, which decodes every record it
// lists), then each release's manifest checked. The check is chunkview's
// (kube/apis, against one discovery pass) where pluto's is its own list of
// versions: what is measured is the read. It prints the releases affected, in
// ls -o json's shape.
func plutoChild(cs kubernetes.Interface, enc *json.Encoder) error {
	dc := cs.Discovery()
	v, err := dc.ServerVersion()
	if err != nil {
		return err
	}
	groups, lists, derr := dc.ServerGroupsAndResources()
	if derr != nil && len(groups) == 0 {
		return derr
	}
	served := apis.NewServed(groups, lists, derr, apis.ServerVersion(v.Major, v.Minor))
	ac := &action.Configuration{
		Releases:   helmstorage.Init(driver.NewSecrets(cs.CoreV1().Secrets(""))),
		KubeClient: &kubefake.PrintingKubeClient{Out: io.Discard},
		Log:        func(string, ...interface{}) {},
	}
	l := action.NewList(ac)
	l.AllNamespaces = true
	l.SetStateMask()
	rels, err := l.Run()
	if err != nil {
		return err
	}
	out := listOut{Releases: []listItem{}}
	for _, r := range rels {
		if apis.Check(kube.APIRevision(r), served, apis.Options{}).CannotUpgrade() {
			out.Releases = append(out.Releases, itemOf(r))
		}
	}
	if len(rels) == 0 {
		return fmt.Errorf("pluto: action.List found no release")
	}
	return enc.Encode(out)
}

func (r *report) apisMarkdown(b *strings.Builder) {
	a := r.APIs
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Releases on removed APIs: `ls -A --removed-apis`\n\n")
	p("The fleet check before a cluster upgrade (issue 30), beside plain `ls -A`, over the chunked copy and over\n")
	p("Helm's Secrets copy. `--removed-apis` reads one discovery pass (the server's version, `/api` and `/apis`,\n")
	p("which the controllers' discovery then reuses) and decodes each release's latest revision (%s of gzip in the\n", mb(float64(a.Latest)))
	p("chunked copy); no superseded revision. pluto's approach, written here with Helm's `action.List` over every\n")
	p("namespace (what pluto calls), lists and decodes every Helm record, then checks each release's latest\n")
	p("manifest (with chunkview's check, against one discovery pass: what differs is the read). It cannot read the\n")
	p("chunked copy. The fleet's objects are all served, so every check lists no release.\n\n")
	summaryTable(b, a.Rows)
	cv, plain := a.Rows[3], a.Rows[2]
	p("\n`--removed-apis` against plain `ls -A` and pluto's approach, same run:\n\n")
	p("| | wall time | requests | bytes received | peak memory |\n|---|---|---|---|---|\n")
	for _, c := range []struct {
		name string
		x, y summary
	}{
		{"`--removed-apis` vs plain `ls -A`, chunked copy", a.Rows[1], a.Rows[0]},
		{"`--removed-apis` vs plain `ls -A`, Helm's Secrets", cv, plain},
		{"`--removed-apis` over Helm's Secrets vs pluto's approach", cv, a.Rows[4]},
		{"`--removed-apis` over the chunked copy vs pluto's approach", a.Rows[1], a.Rows[4]},
	} {
		x, y := c.x, c.y
		p("| %s | %s | %s | %s | %s |\n", c.name, ratio(float64(x.Wall), float64(y.Wall)), ratio(float64(x.Requests), float64(y.Requests)),
			ratio(float64(x.Bytes), float64(y.Bytes)), ratio(float64(x.MaxRSS), float64(y.MaxRSS)))
	}
	p("\n")
}
