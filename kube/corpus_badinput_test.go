package kube_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/chunkview/chunkview/internal/badinput"
	"github.com/chunkview/chunkview/kube"
)

// mustNotLeakSecret fails if s repeats the planted secret, plain or base64.
func mustNotLeakSecret(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, badinput.PlantedSecret) || strings.Contains(s, badinput.PlantedSecretBase64) {
		t.Errorf("%s repeats the planted secret: %s", what, s)
	}
}

// TestBadInputThroughKube loads each malformed record of the corpus and reads it
// the ways the CLI and the TUI do: the release list (then its rows filled in), the
// history, a revision's details, its layout, verify. Broken revisions are marked
// broken with a problem that names the Secret, and nothing else fails; no request
// fetches a Secret outside the key being read; no message repeats payload data.
func TestBadInputThroughKube(t *testing.T) {
	ctx := t.Context()
	for _, c := range badinput.Loaded() {
		t.Run(c.Name, func(t *testing.T) {
			ns := cluster.Namespace(t)
			if err := badinput.Apply(ctx, secrets(ns), c); err != nil {
				t.Fatal(err)
			}
			wire := &wireLog{}
			cl := connect(t, adminKubeconfig(t, ns), nil, func(o *kube.Options) { o.WrapConfig = wire.install })

			rows, err := cl.Releases(ctx)
			if err != nil {
				t.Fatalf("Releases: %v", err)
			}
			var row *kube.RevisionRow
			for i := range rows {
				if rows[i].Latest.Key == c.Key() {
					row = &rows[i].Latest
				}
			}
			if row == nil {
				t.Fatalf("the release is not listed: %+v", rows)
			}
			wire.Reset()
			if err := cl.FillDetails(ctx, []*kube.RevisionRow{row}); err != nil {
				t.Errorf("FillDetails: %v", err)
			}
			if row.Known && !row.Broken {
				// A summary annotation fills the row without decoding (summary-lies
				// carries one): opening the revision decodes it.
				d, err := cl.Details(ctx, *row)
				if err != nil {
					t.Fatalf("Details: %v", err)
				}
				row = &d.Row
			}
			mustReadOwnKey(t, wire.Requests(), c.Key())
			if row.Broken == c.Readable {
				t.Errorf("row broken %v (%s), want %v", row.Broken, row.Problem, !c.Readable)
			}
			if row.Broken {
				if !strings.Contains(row.Problem, c.Secret) {
					t.Errorf("the row's problem does not name %s: %s", c.Secret, row.Problem)
				}
				t.Logf("row: broken: %s", row.Problem)
			}
			mustNotLeakSecret(t, "the row's problem", row.Problem)

			hist, err := cl.History(ctx, ns, c.Name)
			if err != nil || len(hist) != 1 {
				t.Fatalf("History: %+v, %v", hist, err)
			}
			wire.Reset()
			l, err := kube.NewInspector(cl).Layout(ctx, ns, c.Name, hist[0].Revision)
			if err != nil {
				t.Errorf("Layout: %v", err)
			} else {
				if l.Broken() == c.Readable {
					t.Errorf("layout broken %v (%s)", l.Broken(), l.DecodeError)
				}
				mustNotLeakSecret(t, "the layout's decode error", l.DecodeError)
			}
			mustReadOwnKey(t, wire.Requests(), c.Key())

			_, err = decode(ctx, cl, ns, c.Name, hist[0].Revision)
			if (err == nil) != c.Readable {
				t.Errorf("Release: %v", err)
			}
			if err != nil {
				mustNotLeakSecret(t, "Release's error", err.Error())
				if errors.Is(err, kube.ErrForbidden) || errors.Is(err, kube.ErrUnreachable) {
					t.Errorf("Release: %v", err)
				}
			}

			reps, err := kube.NewChecker(cl).Verify(ctx, "", true)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			found := false
			for _, r := range reps {
				for _, p := range r.Problems {
					if p.Kind == c.Problem && p.Secret == c.Secret {
						found = true
					}
					mustNotLeakSecret(t, "a verify detail", p.Detail)
				}
			}
			if !found {
				t.Errorf("verify does not report %s on %s: %+v", c.Problem, c.Secret, reps)
			}
			// gc finds nothing of the corpus to remove.
			leftovers, err := kube.NewChecker(cl).FindLeftovers(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range leftovers {
				if len(r.Leftovers) > 0 {
					t.Errorf("gc would remove %+v", r.Leftovers)
				}
			}
		})
	}
}

// mustReadOwnKey fails unless every Secret read by name was key's index or one of
// its chunks.
func mustReadOwnKey(t *testing.T, reqs []wireRequest, key string) {
	t.Helper()
	for _, r := range reqs {
		ns, name, ok := secretGet(r)
		if ok && name != key && !strings.HasPrefix(name, key+"-") {
			t.Errorf("read Secret %s/%s while reading %s", ns, name, key)
		}
	}
}
