package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
)

// fakeMutation records which of its steps the shared step ran.
// Its operation, when it asks, deletes the release's first revision record.
type fakeMutation struct {
	in       intent
	ask      *confirmation
	planNS   string
	planned  bool
	didApply bool
}

func (f *fakeMutation) intent() intent { return f.in }

func (f *fakeMutation) plan(ctx context.Context, _ *run, rn *ops.Runner, _ operationClient, p *ops.Plan) (ops.Operation, *confirmation, error) {
	f.planned, f.planNS = true, p.Namespace
	if f.ask == nil {
		return nil, nil, nil
	}
	op, err := rn.PlanDeleteRevision(ctx, p, p.Rows[0].Revision, false)
	return op, f.ask, err
}

func (f *fakeMutation) applied(*run, ops.Operation) error {
	f.didApply = true
	return nil
}

// testRun is one invocation on the demo cluster with the given global flags;
// stdin is not a terminal.
func testRun(t *testing.T, demo bool, flags ...string) *run {
	t.Helper()
	r := &run{
		app:   &App{IsTerminal: func(io.Reader) bool { return false }},
		stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{},
		opts: kube.NewOptions(), demo: demo,
	}
	r.flags = pflag.NewFlagSet("test", pflag.ContinueOnError)
	r.opts.AddFlags(r.flags)
	if err := r.flags.Parse(flags); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMutateOrder: the shared step of the mutating commands refuses under
// --read-only before it connects or plans; a run that changes nothing (a dry run)
// is not refused and stops after its plan; a change is applied only once
// confirmed; the plan is made where the release's records are.
func TestMutateOrder(t *testing.T) {
	ctx := t.Context()
	change := intent{release: "grafana-dashboards", what: "rollback", op: kube.OpRollback, hint: "--dry-run shows what it would change"}
	ask := &confirmation{what: "roll it back", want: "y"}

	// Not a demo, no kubeconfig: connecting would fail otherwise than refused.
	m := &fakeMutation{in: change, ask: ask}
	err := testRun(t, false, "--read-only", "--kubeconfig", "/nonexistent").mutate(ctx, m)
	if !errors.Is(err, kube.ErrReadOnly) || !strings.HasSuffix(err.Error(), "; --dry-run shows what it would change") || m.planned {
		t.Errorf("--read-only: %v, planned %v; want a refusal with the hint before any plan", err, m.planned)
	}

	dry := change
	dry.what = ""
	m = &fakeMutation{in: dry}
	if err := testRun(t, true, "--read-only", "-n", "monitoring").mutate(ctx, m); err != nil || !m.planned || m.didApply {
		t.Errorf("dry run under --read-only: %v, planned %v, applied %v; want a plan and nothing applied", err, m.planned, m.didApply)
	}
	if m.planNS != "demo" {
		t.Errorf("planned in namespace %q, want demo, where grafana-dashboards (deployed to monitoring) is stored", m.planNS)
	}

	m = &fakeMutation{in: change, ask: ask}
	if err := testRun(t, true, "-n", "monitoring").mutate(ctx, m); !errors.Is(err, ErrRefused) || !m.planned || m.didApply {
		t.Errorf("no terminal, no --yes: %v, planned %v, applied %v; want refused after the plan, nothing applied", err, m.planned, m.didApply)
	}

	yes := change
	yes.yes = true
	m = &fakeMutation{in: yes, ask: ask}
	if err := testRun(t, true, "-n", "monitoring").mutate(ctx, m); err != nil || !m.didApply {
		t.Errorf("--yes: %v, applied %v", err, m.didApply)
	}
}
