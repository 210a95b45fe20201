package main

import (
	"context"
	"strings"

	"github.com/chunkview/chunkview/storage"
)

// measurer runs the process-level comparisons against one seeded cluster.
type measurer struct {
	ctx  context.Context
	bc   *benchCluster
	f    *fleet
	bin  string // the chunkview binary
	self string // this program, for the peers' child processes
	runs int
}

func (m *measurer) chunkview(label string, want int, args ...string) contender {
	return contender{
		Label: label, Want: want, Env: []string{"CHUNKVIEW_STATS=1"}, Cmd: m.bin,
		Args: append(args, "--kubeconfig", m.bc.Kubeconfig),
	}
}

func (m *measurer) peer(label string, want int, mode string, args ...string) contender {
	return contender{
		Label: label, Want: want, Cmd: m.self,
		Args: append([]string{"-child", mode, "-child-kubeconfig", m.bc.Kubeconfig}, args...),
	}
}

// listResult is the listing comparison.
type listResult struct {
	Fleet []summary // chunkview, Helm, original driver, floor, index metadata, index and chunk metadata
	Orig  []summary // chunkview, original driver, floor over the original driver's copy
	// OrigBound is the most requests "one payload decode per release" allows over
	// the original driver's copy: the list, then the index and chunks of each
	// release's latest revision.
	OrigBound int
	// OrigAllRevisions is what decoding every revision would take, for contrast.
	OrigAllRevisions int
}

func (m *measurer) listing(rep *report) error {
	f := m.f
	helmReleases := 0
	for _, s := range f.Specs {
		if s.fitsHelm() {
			helmReleases++
		}
	}
	nsList := f.fleetNamespaces()
	fleet, err := compare("list", m.runs, []contender{
		// --driver chunked: the fleet's chunked copy only, not the Helm copy in
		// helm-NN that chunkview's default (every store) lists too.
		m.chunkview("chunkview ls -A --driver chunked -o json", len(f.Specs), "ls", "-A", "--driver", "chunked", "-o", "json", "--owner", fleetOwner),
		m.peer("Helm v3 action.List (helm ls -A --all)", helmReleases, "helm-list"),
		m.peer("helm-operator-plugins v0.9.1 List", len(f.Specs), "hop-list", "-child-namespaces", strings.Join(nsList, ","), "-child-owner", fleetOwner),
		m.peer("floor: metadata-only list of the same index Secrets, bare", len(f.Specs)*revisions, "floor", "-child-namespace", floorNamespace, "-child-owner", floorOwner),
		m.peer("metadata-only list of chunkview's index Secrets", len(f.Specs)*revisions, "floor", "-child-owner", fleetOwner),
		m.peer("the same, then of the chunk Secrets of each release's latest revision", len(f.Specs)*revisions, "floor", "-child-owner", fleetOwner, "-child-health"),
	})
	if err != nil {
		return err
	}
	orig, err := compare("list (original driver's copy)", m.runs, []contender{
		m.chunkview("chunkview ls -n "+origNamespace+" --driver chunked -o json", len(f.Orig), "ls", "-n", origNamespace, "--driver", "chunked", "-o", "json", "--owner", origOwner),
		m.peer("helm-operator-plugins v0.9.1 List", len(f.Orig), "hop-list", "-child-namespaces", origNamespace, "-child-owner", origOwner),
		m.peer("floor: metadata-only list of its index Secrets", len(f.Orig)*revisions, "floor", "-child-namespace", origNamespace, "-child-owner", origOwner),
	})
	if err != nil {
		return err
	}
	lr := &listResult{Fleet: fleet, Orig: orig, OrigBound: 1, OrigAllRevisions: 1}
	for _, s := range f.Orig {
		for rev := 1; rev <= revisions; rev++ {
			gz, _, err := storage.EncodePayload(buildRelease(s, rev, origNamespace))
			if err != nil {
				return err
			}
			n := len(storage.Split(gz, storage.DefaultChunkSize))
			// An index Secret listed holds the first chunk; each further one is a GET.
			lr.OrigAllRevisions += n - 1
			if rev == revisions {
				lr.OrigBound += n // its index, as a GET would read it, then its other chunks
			}
		}
	}
	rep.List = lr
	return nil
}

// historyResult is the history comparison.
type historyResult struct {
	Release string
	Class   string
	GZ      int
	Rows    []summary // chunkview, Helm, original driver
}

// historySpec is the release whose history is compared: the first medium one, a
// release Helm's driver holds too. In the large fleet, the first medium one of
// the first namespace: the TUI moves its cursor down to it a row at a time, which
// should stay a few dozen rows, not hundreds.
func (f *fleet) historySpec() relSpec {
	for _, s := range f.Specs {
		if s.Class == classMedium && (f.Shape.Name == "small" || s.NS == 0) {
			return s
		}
	}
	return f.Specs[0]
}

func (m *measurer) history(rep *report) error {
	s := m.f.historySpec()
	rows, err := compare("history", m.runs, []contender{
		m.chunkview("chunkview history --driver chunked -o json", revisions, "history", s.Name, "-n", s.fleetNS(), "--driver", "chunked", "-o", "json", "--owner", fleetOwner),
		m.peer("Helm v3 action.History (helm history)", revisions, "helm-history", "-child-namespace", s.helmNS(), "-child-release", s.Name),
		m.peer("helm-operator-plugins v0.9.1 (Helm storage History)", revisions, "hop-history", "-child-namespace", s.fleetNS(), "-child-release", s.Name, "-child-owner", fleetOwner),
	})
	if err != nil {
		return err
	}
	rep.History = &historyResult{Release: s.fleetNS() + "/" + s.Name, Class: s.Class, GZ: s.GZ, Rows: rows}
	return nil
}
