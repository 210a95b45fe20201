package cli_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"helm.sh/helm/v3/pkg/release"

	"github.com/chunkview/chunkview/cli"
	"github.com/chunkview/chunkview/internal/kubetest"
	"github.com/chunkview/chunkview/storage"
)

// answerAfter is a terminal where the user answers, after another writer moved
// the release on while the plan was on screen.
type answerAfter struct {
	once   sync.Once
	move   func()
	answer io.Reader
}

func (a *answerAfter) Read(p []byte) (int, error) {
	a.once.Do(a.move)
	return a.answer.Read(p)
}

// state returns every Secret and ConfigMap of the env's namespace with its
// resourceVersion: equal states mean nothing changed.
func (e *env) state() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	ss, err := cluster.Client.CoreV1().Secrets(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, s := range ss.Items {
		out["Secret/"+s.Name] = s.ResourceVersion
	}
	cms, err := cluster.Client.CoreV1().ConfigMaps(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, c := range cms.Items {
		out["ConfigMap/"+c.Name] = c.ResourceVersion
	}
	return out
}

// TestAppliesWhatWasConfirmed: each command that changes a release shows its plan,
// and while the user reads it another writer moves the release on. The command
// refuses, changes nothing and exits 7, saying what changed.
func TestAppliesWhatWasConfirmed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cases := []struct {
		cmd    string
		args   []string
		answer string
		// move is the other writer's change to release name; want what the
		// refusal says of it.
		move func(name string)
		want string
	}{
		{"rollback", []string{"1"}, "y", func(name string) { e.addPending(byPlugins, name, release.StatusPendingUpgrade, time.Second) }, "revision 3 (pending-upgrade) was added"},
		{"uninstall", nil, "", func(name string) { e.addPending(byChunkview, name, release.StatusDeployed, 0) }, "revision 3 (deployed) was added"},
		{"delete-revision", []string{"1"}, "", func(name string) {
			if _, err := driverFor(byChunkview, e.ns).Delete(storage.RecordKey(name, 2)); err != nil {
				t.Fatal(err)
			}
		}, "revision 2 was deleted"},
		{"fix-stuck", []string{"--mark-failed"}, "y", func(name string) {
			d := driverFor(byPlugins, e.ns)
			r, err := d.Get(storage.RecordKey(name, 3))
			if err != nil {
				t.Fatal(err)
			}
			r.Info.Status = release.StatusDeployed
			if err := d.Update(storage.RecordKey(name, 3), r); err != nil {
				t.Fatal(err)
			}
		}, "revision 3 was rewritten (deployed, was pending-upgrade)"},
		{"fix-apis", []string{"--drop-unserved"}, "y", func(name string) { e.addPending(byPlugins, name, release.StatusDeployed, 0) }, "revision 2 (deployed) was added"},
	}
	for _, tc := range cases {
		name := "moved-" + tc.cmd
		if tc.cmd == "fix-apis" {
			// A release whose stored manifest uses APIs the server no
			// longer serves: one revision, then the other writer's.
			kubetest.InstallLegacy3(t, e.actionConfig(byPlugins), driverFor(byPlugins, e.ns), e.ns, name, false)
		} else {
			e.install(byPlugins, name, 2)
		}
		if tc.cmd == "fix-stuck" {
			e.addPending(byPlugins, name, release.StatusPendingUpgrade, time.Hour)
		}
		if tc.answer == "" {
			tc.answer = name
		}
		var before map[string]string
		in := &answerAfter{answer: strings.NewReader(tc.answer + "\n"), move: func() {
			tc.move(name)
			before = e.state()
		}}
		app := &cli.App{IsTerminal: func(io.Reader) bool { return true }}
		r := e.runAppIn(app, in, append([]string{tc.cmd, name}, tc.args...)...)
		mustCode(t, r, cli.ExitChanged)
		// The prompt, then the error on the same line, as a terminal shows it.
		last := r.stderr[strings.LastIndex(strings.TrimRight(r.stderr, "\n"), "\n")+1:]
		for _, want := range []string{"Error: ", "the release changed while you were looking", tc.want, "Nothing was changed"} {
			if !strings.Contains(last, want) {
				t.Errorf("%s: the refusal does not say %q: %s", tc.cmd, want, r)
			}
		}
		if before == nil {
			t.Fatalf("%s: never asked for confirmation: %s", tc.cmd, r)
		}
		after := e.state()
		for k, v := range before {
			if after[k] != v {
				t.Errorf("%s: %s changed (%s -> %s) although refused", tc.cmd, k, v, after[k])
			}
		}
		if len(after) != len(before) {
			t.Errorf("%s: %d objects before, %d after a refusal", tc.cmd, len(before), len(after))
		}
	}
}
