package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/ops"
	"github.com/chunkview/chunkview/storage"
)

// Exit codes Run returns. See the package documentation.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitNotFound    = 3
	ExitProblems    = 4
	ExitRefused     = 5
	ExitUnreachable = 6
	ExitChanged     = 7
	// ExitCancelled is the shell's code for a command ended by Ctrl-C (128+SIGINT).
	ExitCancelled = 130
)

// exitCodesHelp is the exit code table of `chunkview --help`.
const exitCodesHelp = `Exit codes:
  0  success
  1  other failure
  2  usage error (unknown command or flag, wrong arguments, a release name two
     stores hold without --driver)
  3  not found (no such release or revision)
  4  verify found problems, or inspect a revision that cannot be read
  5  refused (--read-only, not confirmed, no terminal and no --yes, or an active
     Flux HelmRelease or OLMv1 ClusterExtension reconciles the release)
  6  no kubeconfig or no such --context, cluster unreachable, timed out, credentials
     rejected or access forbidden
  7  the release changed after the plan was shown (another writer): nothing or
     only what the message says was changed; look again before retrying
  drift exits as kubectl diff: 0 no drift, 1 drift found, 8 a failure other
     than the above (see 'chunkview drift --help'); fit and diff --exit-code
     likewise: 0 fits every store checked / the same, 1 does not fit some /
     they differ, 8 another failure
  status exits 0 when every object is Current, 1 when one is not, 6 for any
     failure to read it (see 'chunkview status --help')
  logs exits 1 when some log could not be read (each said on stderr)
  130  cancelled with Ctrl-C at a confirmation prompt: nothing was changed`

// Errors the CLI itself raises, wrapped into the messages it prints.
var (
	// ErrUsage marks an error in the command line.
	ErrUsage = errors.New("usage")
	// ErrRefused marks an operation that was not confirmed.
	ErrRefused = errors.New("refused")
	// ErrCancelled marks a confirmation cancelled with Ctrl-C.
	ErrCancelled = errors.New("cancelled")
	// ErrProblems marks a verification that found problems.
	ErrProblems = errors.New("problems found")
)

// codedError carries the exit code and the message to print; a nil message prints
// nothing (the command already said what happened).
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit code %d", e.code)
	}
	return e.err.Error()
}

func (e *codedError) Unwrap() error { return e.err }

// silent returns an error that sets the exit code and prints nothing more.
func silent(code int) error { return &codedError{code: code} }

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// exitCode picks the exit code of err.
func exitCode(err error) int {
	var ce *codedError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ce):
		return ce.code
	case errors.Is(err, ErrCancelled):
		return ExitCancelled
	case errors.Is(err, ErrUsage), errors.Is(err, kube.ErrAmbiguous):
		// A name two stores hold needs --driver: the command line is short of it.
		return ExitUsage
	case errors.Is(err, storage.ErrConflict):
		// kube.ErrChanged among them: the release moved on under the operation.
		return ExitChanged
	case errors.Is(err, kube.ErrReadOnly), errors.Is(err, ErrRefused), errors.Is(err, ops.ErrControlled), errors.Is(err, ops.ErrFieldConflicts):
		return ExitRefused
	case errors.Is(err, kube.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, ErrProblems):
		return ExitProblems
	case errors.Is(err, kube.ErrUnreachable), errors.Is(err, kube.ErrTimeout),
		errors.Is(err, kube.ErrUnauthorized), errors.Is(err, kube.ErrForbidden), errors.Is(err, kube.ErrNoKubeconfig), errors.Is(err, kube.ErrNoContext):
		return ExitUnreachable
	}
	return ExitFailure
}

// message returns the one line printed for err, or "" for none.
func message(err error) string {
	var ce *codedError
	if errors.As(err, &ce) && ce.err == nil {
		return ""
	}
	msg := err.Error()
	// The CLI's own sentinels pick the exit code; they need not be read.
	for _, s := range []error{ErrUsage, ErrRefused} {
		msg = strings.TrimPrefix(msg, s.Error()+": ")
	}
	if errors.Is(err, storage.ErrConflict) && !strings.Contains(msg, "retry") {
		msg += ": refresh and retry"
	}
	return human.FoldLines(msg)
}

// warnPartial passes err through, except a *kube.PartialError (listing every
// namespace was forbidden, and those the user may read were looked at instead):
// that one is printed as a warning and returned as the note for the output.
//
// A store skipped (kube.StoreSkipError) is said once a run, in a short note
// (noteStoreSkips); the note for the output keeps it in full.
func (r *run) warnPartial(err error) (partial string, _ error) {
	if errors.Is(err, kube.ErrPartial) {
		partial = message(err)
		if rest := r.noteStoreSkips(err); rest != nil {
			fmt.Fprintf(r.stderr, "Warning: %s\n", message(rest))
		}
		return partial, nil
	}
	return "", err
}
