package ops

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	driver "helm.sh/helm/v3/pkg/storage/driver"
	driver4 "helm.sh/helm/v4/pkg/storage/driver"

	"github.com/chunkview/chunkview/storage"
)

// tracker keeps what an operation did, whichever Helm runs it: the records it
// wrote (for the account of an operation stopped halfway), the status it last
// gave each, whether it met a release that moved on, and whether Helm changed
// the release's resources. The drivers and kube clients under an operation
// report to it; Helm ignores or flattens some of their errors, so the tracker,
// not the error Helm returns, says whether a conflict was met.
type tracker struct {
	mu       sync.Mutex
	writes   []string
	created  []string
	statuses map[string]string
	// pins, for Helm's own stores, holds the records to the plan at the client;
	// it sees conflicts Helm's driver turns into other errors.
	pins *pins
	// conflict is set once any call met a release that moved on; resources
	// once Helm changed a resource.
	conflict, resources atomic.Bool
}

func newTracker(pn *pins) *tracker { return &tracker{statuses: map[string]string{}, pins: pn} }

// note keeps the outcome of a driver call: verb ("created", "updated",
// "deleted") on key, leaving it in status ("" for a delete or a read).
func (t *tracker) note(verb, key, status string, err error) {
	if isConflict(err) {
		t.conflict.Store(true)
	}
	if err != nil || verb == "" {
		return
	}
	rev := key
	if _, n, ok := storage.ParseKey(key); ok {
		rev = fmt.Sprintf("revision %d", n)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.writes = append(t.writes, rev+" "+verb)
	switch verb {
	case "created":
		t.created = append(t.created, key)
		t.statuses[key] = status
	case "updated":
		t.statuses[key] = status
	case "deleted":
		t.statuses[key] = statusDeleted
	}
}

// statusDeleted is what statusWritten says of a record the operation deleted.
const statusDeleted = "(deleted)"

// isConflict reports whether err says the release moved on from the plan.
func isConflict(err error) bool {
	return errors.Is(err, storage.ErrConflict)
}

// wasCreated reports whether the operation created the record of key.
func (t *tracker) wasCreated(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Contains(t.created, key)
}

// statusWritten returns the status the operation last wrote to key
// (statusDeleted once it deleted it), if it wrote one.
func (t *tracker) statusWritten(key string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, ok := t.statuses[key]
	return st, ok
}

// conflicted reports whether the operation met a release that moved on: through
// an error a driver returned, or one its client saw and Helm swallowed.
func (t *tracker) conflicted() bool {
	return t.conflict.Load() || (t.pins != nil && t.pins.conflicted())
}

// untouched reports whether the operation has changed nothing yet: no record
// written, no resource changed.
func (t *tracker) untouched() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.writes) == 0 && !t.resources.Load()
}

// changedResources notes that Helm changed the release's resources.
func (t *tracker) changedResources() { t.resources.Store(true) }

// done says what the operation wrote before it stopped.
func (t *tracker) done() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	resources := ""
	if t.resources.Load() {
		resources = ", and Helm had changed the release's resources"
	}
	if len(t.writes) == 0 {
		if resources != "" {
			return "Before it stopped, Helm had changed the release's resources"
		}
		return "Nothing was changed"
	}
	return "Before it stopped, chunkview had " + strings.Join(t.writes, ", ") + resources
}

// helmLog keeps the failures Helm logs during one action, for its error message:
// Helm reports some causes only there (an uninstall whose resources cannot be
// deleted returns just "failed to delete release: NAME" and logs why). It keeps
// only lines that say something failed, at most maxHelmFailures of them, and
// prints nothing: release data never reaches a log.
type helmLog struct {
	mu       sync.Mutex
	failures []string
}

// maxHelmFailures bounds the log lines kept for an error message.
const maxHelmFailures = 5

// Log is Helm 3's log function.
func (l *helmLog) Log(format string, v ...any) { l.keep(fmt.Sprintf(format, v...)) }

func (l *helmLog) keep(line string) {
	lower := strings.ToLower(line)
	if !strings.Contains(lower, "fail") && !strings.Contains(lower, "error") {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < maxHelmFailures {
		l.failures = append(l.failures, line)
	}
}

// explain adds the failures Helm logged to err, unless err says them already.
func (l *helmLog) explain(err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var extra []string
	for _, f := range l.failures {
		if !strings.Contains(err.Error(), f) {
			extra = append(extra, f)
		}
	}
	if len(extra) == 0 {
		return err
	}
	return fmt.Errorf("%w (Helm reported: %s)", err, strings.Join(extra, "; "))
}

// handler is the log as Helm 4's slog handler: warnings and errors are kept,
// with their attributes, as Helm 3's log lines were.
func (l *helmLog) handler() slog.Handler { return logHandler{l: l} }

type logHandler struct {
	l     *helmLog
	attrs []slog.Attr
}

func (h logHandler) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelWarn }

func (h logHandler) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	b.WriteString(rec.Message)
	add := func(a slog.Attr) bool {
		// A release's values or manifest never travel as an attribute of
		// Helm's warnings; names, revisions and errors do.
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	rec.Attrs(add)
	h.l.keep(b.String())
	return nil
}

func (h logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{l: h.l, attrs: append(slices.Clone(h.attrs), attrs...)}
}

func (h logHandler) WithGroup(string) slog.Handler { return h }

// notFound reports whether err is a store's "no such record".
func notFound(err error) bool {
	return errors.Is(err, driver.ErrReleaseNotFound) || errors.Is(err, driver4.ErrReleaseNotFound) || apierrors.IsNotFound(err)
}
