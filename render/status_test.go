package render_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/render/rendertest"
)

// TestStatusOf: the resources' columns (NAMESPACE only when an object lives
// outside the release's namespace), each object's status and what it means,
// the hooks' last runs, the Job's details down to the last exit code of a
// container that restarted, and the events.
func TestStatusOf(t *testing.T) {
	st := rendertest.Status()
	s := render.StatusOf(st, rendertest.Now)

	if got := s.Resources.Head(); !slices.Equal(got, []string{"KIND", "NAMESPACE", "NAME", "STATUS", "MESSAGE"}) {
		t.Errorf("resource columns %v", got)
	}
	for i, want := range []render.Cell{{Text: "InProgress", Meaning: render.Warning}, {Text: "NotFound", Meaning: render.Failed}, {Text: "Current", Meaning: render.OK}} {
		if got := s.Resources.Cell(i, "STATUS"); got != want {
			t.Errorf("row %d STATUS %+v, want %+v", i, got, want)
		}
	}
	if got := s.Resources.Cell(2, "NAMESPACE"); got.Text != "shared" {
		t.Errorf("NAMESPACE %q", got.Text)
	}
	if s.Helm != (render.Cell{Text: "deployed", Meaning: render.OK}) || s.Objects != (render.Cell{Text: "1 of 3 Current (1 InProgress, 1 NotFound)", Meaning: render.Warning}) {
		t.Errorf("head: helm %+v, objects %+v", s.Helm, s.Objects)
	}
	if s.Deployed != "Last deployed "+human.Timestamp(rendertest.Now.Add(-24*time.Hour))+": Upgrade complete" || s.Latest != nil || !s.HooksRead {
		t.Errorf("deployed %q, latest %+v, hooks read %v", s.Deployed, s.Latest, s.HooksRead)
	}
	if len(s.Remarks) != 1 || s.Remarks[0] != (render.Line{Text: "watching deployments was refused", Meaning: render.Muted}) {
		t.Errorf("remarks %+v", s.Remarks)
	}

	ht := s.HookTable()
	if got := ht.Head(); !slices.Equal(got, []string{"KIND", "NAME", "EVENTS", "LAST RUN"}) {
		t.Errorf("hook columns %v", got)
	}
	if got := ht.Cell(0, "LAST RUN"); got != (render.Cell{Text: "Failed 9m48s ago, after 12s", Meaning: render.Failed}) {
		t.Errorf("failed hook's run %+v", got)
	}
	if got := ht.Cell(1, "LAST RUN"); got != (render.Cell{Text: "never run", Meaning: render.Muted}) {
		t.Errorf("hook never run %+v", got)
	}
	h := s.Hooks[0]
	if h.Job == nil || *h.Job != (render.Cell{Text: "Failed: BackoffLimitExceeded", Meaning: render.Failed}) {
		t.Errorf("job %+v", h.Job)
	}
	wantDetails := []render.Line{
		{Text: "note: an earlier Pod was deleted", Meaning: render.Muted, Depth: 1},
		{Text: "Pod web-migrate-x7k2p: Failed", Depth: 1},
		{Text: fmt.Sprintf("migrate: terminated, exit code 1 (Error), 2 restarts, the last ended with exit code %d", rendertest.LastExitCode), Depth: 2},
		{Text: "The log of the previous run of web-migrate-x7k2p/migrate, last 2 lines:", Meaning: render.Muted, Depth: 1},
	}
	if !slices.Equal(h.Details, wantDetails) {
		t.Errorf("details:\n%+v\nwant:\n%+v", h.Details, wantDetails)
	}
	if !slices.Equal(h.Log, []string{"applying 0042", "exit status 1"}) || s.Hooks[1].Job != nil {
		t.Errorf("log %q, second hook's job %+v", h.Log, s.Hooks[1].Job)
	}

	ev := s.Events
	if got := ev.Head(); !slices.Equal(got, []string{"LAST SEEN", "OBJECT", "REASON", "MESSAGE"}) || ev.Columns[0].Title() != "AGE" || !ev.Columns[0].Right {
		t.Errorf("event columns %+v", ev.Columns)
	}
	if got := ev.Rows[0]; !slices.Equal(got, []render.Cell{{Text: "60s"}, {Text: "Pod/web-7d9f8c-abcde"}, {Text: "BackOff", Meaning: render.Warning}, {Text: "Back-off restarting failed container (x14)"}}) {
		t.Errorf("event row %+v", got)
	}
}

// TestStatusOfVariants: a revision that is not the latest says which is; a
// status read without hooks and events says it did not read them; every object
// in the release's namespace needs no NAMESPACE column; an unknown Helm status
// reads "-".
func TestStatusOfVariants(t *testing.T) {
	st := rendertest.Status()
	st.Revision, st.ReleaseStatus, st.LatestRevision, st.LatestStatus = 3, "", 4, "failed"
	st.Hooks, st.Events = nil, nil
	st.Resources = st.Resources[:2]
	s := render.StatusOf(st, rendertest.Now)
	if s.Latest == nil || *s.Latest != (render.Line{Text: "The latest revision, 4, is failed", Meaning: render.Warning}) || s.LatestRevision != 4 {
		t.Errorf("latest %+v (%d)", s.Latest, s.LatestRevision)
	}
	if s.HooksRead || len(s.Hooks) != 0 || len(s.Events.Rows) != 0 {
		t.Errorf("hooks read %v: %+v, events %+v", s.HooksRead, s.Hooks, s.Events.Rows)
	}
	if got := s.Resources.Head(); !slices.Equal(got, []string{"KIND", "NAME", "STATUS", "MESSAGE"}) {
		t.Errorf("resource columns %v", got)
	}
	if s.Helm != (render.Cell{Text: "-", Meaning: render.Plain}) {
		t.Errorf("unknown Helm status %+v", s.Helm)
	}
}

// TestHookRuns: how each kind of last run reads, and what it means.
func TestHookRuns(t *testing.T) {
	now := rendertest.Now
	for _, c := range []struct {
		h    live.HookStatus
		want render.Cell
	}{
		{live.HookStatus{}, render.Cell{Text: "never run", Meaning: render.Muted}},
		{live.HookStatus{Phase: "Running", Started: now.Add(-90 * time.Second)}, render.Cell{Text: "Running since 90s", Meaning: render.Warning}},
		{live.HookStatus{Phase: "Succeeded", Started: now.Add(-time.Hour), Completed: now.Add(-59 * time.Minute)}, render.Cell{Text: "Succeeded 59m ago, after 60s", Meaning: render.OK}},
		// A run whose start Helm did not record has no length to tell.
		{live.HookStatus{Phase: "Succeeded", Completed: now.Add(-time.Hour)}, render.Cell{Text: "Succeeded", Meaning: render.OK}},
		{live.HookStatus{Phase: "Unknown"}, render.Cell{Text: "Unknown", Meaning: render.Muted}},
	} {
		st := &live.ReleaseStatus{Hooks: []live.HookStatus{c.h}}
		if got := render.StatusOf(st, now).Hooks[0].Run; got != c.want {
			t.Errorf("%+v: run %+v, want %+v", c.h, got, c.want)
		}
	}
}

// TestContainerLines: a container's line names an init container, its exit
// code and reason, its restarts and how the last run ended, and its message.
func TestContainerLines(t *testing.T) {
	code, last := int32(2), int32(1)
	for _, c := range []struct {
		c    live.ContainerState
		want string
	}{
		{live.ContainerState{Name: "app", State: "running"}, "app: running"},
		{live.ContainerState{Name: "init", Init: true, State: "terminated", ExitCode: &code, Reason: "Error", Message: "no db"}, "init (init): terminated, exit code 2 (Error): no db"},
		{live.ContainerState{Name: "app", State: "waiting", Reason: "CrashLoopBackOff", Restarts: 1, LastExitCode: &last}, "app: waiting (CrashLoopBackOff), 1 restart, the last ended with exit code 1"},
		{live.ContainerState{Name: "app", State: "running", Restarts: 3}, "app: running, 3 restarts"},
	} {
		st := &live.ReleaseStatus{Hooks: []live.HookStatus{{Phase: "Failed", Job: &live.HookJob{Pods: []live.PodState{{Name: "p", Containers: []live.ContainerState{c.c}}}}}}}
		d := render.StatusOf(st, rendertest.Now).Hooks[0].Details
		if len(d) != 2 || d[1] != (render.Line{Text: c.want, Depth: 2}) {
			t.Errorf("%+v: %+v, want %q", c.c, d, c.want)
		}
	}
}

// TestMeanings: what a kstatus word, a hook's phase and Helm's status mean.
func TestMeanings(t *testing.T) {
	for _, c := range []struct {
		got, want render.Meaning
		what      string
	}{
		{render.KStatus(live.StatusCurrent), render.OK, "Current"},
		{render.KStatus(live.StatusInProgress), render.Warning, "InProgress"},
		{render.KStatus(live.StatusTerminating), render.Warning, "Terminating"},
		{render.KStatus(live.StatusFailed), render.Failed, "Failed"},
		{render.KStatus(live.StatusNotFound), render.Failed, "NotFound"},
		{render.KStatus(live.StatusUnknown), render.Muted, "Unknown"},
		{render.HookPhase("Succeeded"), render.OK, "Succeeded"},
		{render.HookPhase("Failed"), render.Failed, "phase Failed"},
		{render.HookPhase("Running"), render.Warning, "Running"},
		{render.HookPhase(""), render.Muted, "never run"},
		{render.ReleaseStatus("deployed"), render.OK, "deployed"},
		{render.ReleaseStatus("failed"), render.Failed, "failed"},
		{render.ReleaseStatus("pending-upgrade"), render.Warning, "pending-upgrade"},
		{render.ReleaseStatus("uninstalling"), render.Warning, "uninstalling"},
		{render.ReleaseStatus("superseded"), render.Muted, "superseded"},
		{render.ReleaseStatus("uninstalled"), render.Muted, "uninstalled"},
		{render.ReleaseStatus("unknown"), render.Plain, "unknown"},
	} {
		if c.got != c.want {
			t.Errorf("%s means %s, want %s", c.what, c.got, c.want)
		}
	}
}
