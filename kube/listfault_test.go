package kube_test

import (
	"net/http"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/chunkview/chunkview/internal/faultproxy"
	"github.com/chunkview/chunkview/storage"
)

// TestListingFailsOnChunkReadFailure: storage's promise that "any other failure
// fails the listing", tested here because the fault proxy is the app's (the
// storage module does not import it). A listing whose read of one record's
// chunks fails for a reason other than the record (the server answers 500, or
// the connection is cut in the middle of the answer) fails, naming that record,
// through List and through Query, rather than skip it: Helm would act on a
// history without that revision. The fault proxy breaks every read of revision
// 2's chunks (both the cached read and the one from etcd), and the rule is
// shown to have fired; without it the same listing returns the three revisions.
func TestListingFailsOnChunkReadFailure(t *testing.T) {
	t.Parallel()
	ns := cluster.Namespace(t)
	const owner = "list-fault"
	cfg := storage.ChunkedSecretsConfig{ChunkSize: 4 << 10}
	seed(t, storage.NewChunkedSecrets(secrets(ns), owner, cfg), history("app", ns, 3, 10_000)...)
	key := storage.RecordKey
	if n := len(chunkNames(t, ns, key("app", 2))); n < 2 {
		t.Fatalf("revision 2 takes %d chunk Secrets besides its index: want several", n)
	}
	p, err := faultproxy.New(cluster.Config, faultproxy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cs, err := kubernetes.NewForConfig(p.Config())
	if err != nil {
		t.Fatal(err)
	}
	chunkOf2 := "/secrets/" + key("app", 2) + "-"
	listings := map[string]func() (int, error){
		"List": func() (int, error) {
			rs, err := storage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), owner, cfg).List(nil)
			return len(rs), err
		},
		"Query": func() (int, error) {
			rs, err := storage.NewChunkedSecrets(cs.CoreV1().Secrets(ns), owner, cfg).Query(map[string]string{"name": "app", "owner": "helm"})
			return len(rs), err
		},
	}
	for name, list := range listings {
		p.Reset()
		if n, err := list(); err != nil || n != 3 {
			t.Fatalf("%s with no fault: %d revisions, %v", name, n, err)
		}
		for _, kind := range []faultproxy.Kind{faultproxy.Status500, faultproxy.CloseMidResponse} {
			p.SetRule(faultproxy.Rule{Kind: kind, Match: func(r *http.Request) bool {
				return r.Method == http.MethodGet && strings.Contains(r.URL.Path, chunkOf2)
			}})
			n, err := list()
			if p.Fired() == 0 {
				t.Fatalf("%s, %s: the rule never fired", name, kind)
			}
			if err == nil || !strings.Contains(err.Error(), key("app", 2)) {
				t.Errorf("%s with revision 2's chunks failing (%s): %d revisions, %v; want the listing to fail naming revision 2", name, kind, n, err)
			}
		}
	}
}
