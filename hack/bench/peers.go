package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"helm.sh/helm/v3/pkg/action"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/release"
	helmstorage "helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	hopstorage "github.com/operator-framework/helm-operator-plugins/pkg/storage"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

// The peers run in child processes of the harness (`bench -child MODE ...`), one per
// measurement, so that each one's peak memory is its own. Each prints what it found
// as JSON on stdout, in the shape of chunkview's -o json, and its request count on
// stderr in the line chunkview prints under CHUNKVIEW_STATS.

// processStart is when this process started, near enough: package variables are
// initialized before main runs.
var processStart = time.Now()

// childArgs are the flags of a child process.
type childArgs struct {
	Mode       string
	Kubeconfig string
	Namespace  string
	Namespaces string // comma-separated
	Release    string
	Owner      string
	Expect     string // tui: a text only the history screen shows
	Target     string // tui: the release to open, Down rows below the first
	Down       int
	Page       int64  // floor: the page size of the list (0: one request)
	Health     bool   // floor: also list the chunk Secrets of each release's latest revision
	Fleet      string // reconcile: the fleet file (see rcFleetFile)
}

// listOut is the output of the listing children: chunkview's `ls -o json` shape.
type listOut struct {
	Releases []listItem `json:"releases"`
}

type listItem struct {
	Name         string `json:"name"`
	Namespace    string `json:"namespace"`
	Revision     int    `json:"revision"`
	Status       string `json:"status"`
	Chart        string `json:"chart"`
	ChartVersion string `json:"chartVersion"`
	AppVersion   string `json:"appVersion"`
}

// historyOut is the output of the history children: chunkview's `history -o json`
// shape.
type historyOut struct {
	Release   string     `json:"release"`
	Revisions []listItem `json:"revisions"`
}

func itemOf(r *release.Release) listItem {
	it := listItem{Name: r.Name, Namespace: r.Namespace, Revision: r.Version}
	if r.Info != nil {
		it.Status = r.Info.Status.String()
	}
	if r.Chart != nil && r.Chart.Metadata != nil {
		it.Chart, it.ChartVersion, it.AppVersion = r.Chart.Metadata.Name, r.Chart.Metadata.Version, r.Chart.Metadata.AppVersion
	}
	return it
}

// runChild runs one measured operation and exits.
func runChild(a childArgs) int {
	run := child
	if a.Mode == "tui" {
		run = func(ctx context.Context, a childArgs, stdout, stderr io.Writer) error {
			return tuiChild(ctx, a, processStart, stdout, stderr)
		}
	}
	if err := run(context.Background(), a, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "bench child %s: %v\n", a.Mode, err)
		return 1
	}
	return 0
}

func child(ctx context.Context, a childArgs, stdout, stderr io.Writer) error {
	cfg, err := restConfigFrom(a.Kubeconfig)
	if err != nil {
		return err
	}
	stats := &kube.Stats{}
	stats.Count(cfg)
	defer cli.WriteStats(stderr, stats)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	switch a.Mode {
	case "helm-list":
		// helm list -A --all: Helm's Secrets driver over every namespace.
		ac := &action.Configuration{
			Releases:   helmstorage.Init(driver.NewSecrets(cs.CoreV1().Secrets(metav1.NamespaceAll))),
			KubeClient: &kubefake.PrintingKubeClient{Out: io.Discard},
			Log:        func(string, ...interface{}) {},
		}
		l := action.NewList(ac)
		l.AllNamespaces, l.All = true, true
		l.SetStateMask()
		rels, err := l.Run()
		if err != nil {
			return err
		}
		out := listOut{Releases: []listItem{}}
		for _, r := range rels {
			out.Releases = append(out.Releases, itemOf(r))
		}
		return enc.Encode(out)

	case "hop-list":
		// helm-operator-plugins' chunked driver: List in each namespace, then the
		// latest revision of each release.
		latest := map[string]*release.Release{}
		for _, ns := range strings.Split(a.Namespaces, ",") {
			d := hopstorage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), a.Owner, hopstorage.ChunkedSecretsConfig{ChunkSize: storage.DefaultChunkSize})
			rels, err := d.List(func(*release.Release) bool { return true })
			if err != nil {
				return err
			}
			for _, r := range rels {
				k := ns + "/" + r.Name
				if cur, ok := latest[k]; !ok || r.Version > cur.Version {
					latest[k] = r
				}
			}
		}
		out := listOut{Releases: []listItem{}}
		for _, r := range latest {
			out.Releases = append(out.Releases, itemOf(r))
		}
		sort.Slice(out.Releases, func(i, j int) bool {
			a, b := out.Releases[i], out.Releases[j]
			return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
		})
		return enc.Encode(out)

	case "floor":
		// The least any listing must read: the metadata of the index Secrets, through
		// the metadata API (protobuf), in one request as chunkview asks for it.
		md, err := metadata.NewForConfig(cfg)
		if err != nil {
			return err
		}
		sel := storage.IndexSelector(a.Owner).String()
		opts := metav1.ListOptions{LabelSelector: sel, Limit: a.Page}
		n := 0
		latest := map[string]metav1.Object{} // by namespace/release
		for {
			l, err := md.Resource(secretsGVR).Namespace(a.Namespace).List(ctx, opts)
			if err != nil {
				return err
			}
			n += len(l.Items)
			for i := range l.Items {
				m := &l.Items[i]
				id := m.Namespace + "/" + m.Labels[storage.LabelName]
				if p, ok := latest[id]; !ok || labelInt(m, storage.LabelVersion) > labelInt(p, storage.LabelVersion) {
					latest[id] = m
				}
			}
			if l.Continue == "" {
				break
			}
			opts.Continue = l.Continue
		}
		if !a.Health {
			return enc.Encode(map[string]int{"indexSecrets": n})
		}
		// With -child-health, what a listing that checks each release shown has
		// all its chunks must read too: the metadata of the chunk Secrets of each
		// release's latest revision, one list selected by their keys.
		var keys []string
		for _, m := range latest {
			keys = append(keys, m.GetLabels()[storage.LabelKey])
		}
		if len(keys) == 0 {
			return enc.Encode(map[string]int{"indexSecrets": n, "chunkSecrets": 0})
		}
		req, err := labels.NewRequirement(storage.LabelKey, selection.In, keys)
		if err != nil {
			return err
		}
		chunks, err := md.Resource(secretsGVR).Namespace(a.Namespace).List(ctx, metav1.ListOptions{
			LabelSelector: storage.ChunkSelector(a.Owner, "").Add(*req).String(),
		})
		if err != nil {
			return err
		}
		return enc.Encode(map[string]int{"indexSecrets": n, "chunkSecrets": len(chunks.Items)})

	case "helm-floor":
		// What chunkview's listing of Helm's Secrets reads first: the metadata of
		// every record, one request, no data.
		md, err := metadata.NewForConfig(cfg)
		if err != nil {
			return err
		}
		opts := metav1.ListOptions{
			LabelSelector: storage.LabelOwner + "=" + kube.HelmOwner,
			FieldSelector: "type=" + string(kube.HelmSecretType),
		}
		n := 0
		for {
			l, err := md.Resource(secretsGVR).List(ctx, opts)
			if err != nil {
				return err
			}
			n += len(l.Items)
			if l.Continue == "" {
				break
			}
			opts.Continue = l.Continue
		}
		return enc.Encode(map[string]int{"indexSecrets": n})

	case "helm-history":
		ac := &action.Configuration{
			Releases:   helmstorage.Init(driver.NewSecrets(cs.CoreV1().Secrets(a.Namespace))),
			KubeClient: &kubefake.PrintingKubeClient{Out: io.Discard},
			Log:        func(string, ...interface{}) {},
		}
		h := action.NewHistory(ac)
		h.Max = 256
		rels, err := h.Run(a.Release)
		if err != nil {
			return err
		}
		return enc.Encode(historyOf(a.Release, rels))

	case "hop-history":
		d := hopstorage.NewChunkedSecrets(cs.CoreV1().Secrets(a.Namespace), a.Owner, hopstorage.ChunkedSecretsConfig{ChunkSize: storage.DefaultChunkSize})
		rels, err := helmstorage.Init(d).History(a.Release)
		if err != nil {
			return err
		}
		return enc.Encode(historyOf(a.Release, rels))
	}
	if a.Mode == "pluto" {
		return plutoChild(cs, enc)
	}
	return fmt.Errorf("unknown child mode %q", a.Mode)
}

func historyOf(name string, rels []*release.Release) historyOut {
	sort.Slice(rels, func(i, j int) bool { return rels[i].Version < rels[j].Version })
	out := historyOut{Release: name, Revisions: []listItem{}}
	for _, r := range rels {
		out.Revisions = append(out.Revisions, itemOf(r))
	}
	return out
}

// labelInt is the integer value of a label, 0 when it has none.
func labelInt(m metav1.Object, label string) int {
	n, _ := strconv.Atoi(m.GetLabels()[label])
	return n
}
