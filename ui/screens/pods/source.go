package pods

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"
	"k8s.io/client-go/kubernetes"

	"github.com/chunkview/chunkview/kube/live"
)

// LogSource reads one container's log, line by line, as they are, until the
// log ends or, when opts.Follow, until ctx ends. The screen masks the lines.
type LogSource interface {
	Stream(ctx context.Context, t live.LogTarget, opts live.LogOptions, line func(string)) error
}

// clusterLogs reads logs through the API server, as `chunkview logs` does
// (live.Stream); the screen masks them with the release's scrub, as it does.
type clusterLogs struct{ cs kubernetes.Interface }

func (c clusterLogs) Stream(ctx context.Context, t live.LogTarget, opts live.LogOptions, line func(string)) error {
	return live.Stream(ctx, c.cs, []live.LogTarget{t}, opts, func(s string) string { return s }, lineWriter(line))
}

// lineWriter hands each line live.Stream writes ("line\n" a write) to line.
type lineWriter func(string)

func (w lineWriter) Write(p []byte) (int, error) {
	for _, l := range strings.SplitAfter(string(p), "\n") {
		if l != "" {
			w(strings.TrimSuffix(l, "\n"))
		}
	}
	return len(p), nil
}

// logMsg carries lines of the gen-th read of the log; done is set once the
// read ended, err when it failed.
type logMsg struct {
	gen   int
	lines []string
	done  bool
	err   error
}

// readLog reads the end of a log at once (no follow).
func readLog(ctx context.Context, src LogSource, t live.LogTarget, opts live.LogOptions, gen int) tea.Cmd {
	return func() tea.Msg {
		var lines []string
		err := src.Stream(ctx, t, opts, func(l string) { lines = append(lines, l) })
		return logMsg{gen: gen, lines: lines, done: true, err: err}
	}
}

// followLog starts streaming a log: each line arrives through send as it is
// written, until ctx ends (the view closed, or read another way), when the
// stream stops and nothing more is sent.
func followLog(ctx context.Context, src LogSource, t live.LogTarget, opts live.LogOptions, gen int, send func(tea.Msg)) tea.Cmd {
	return func() tea.Msg {
		go func() {
			err := src.Stream(ctx, t, opts, func(l string) {
				if ctx.Err() == nil {
					send(logMsg{gen: gen, lines: []string{l}})
				}
			})
			if ctx.Err() == nil {
				send(logMsg{gen: gen, done: true, err: err})
			}
		}()
		return nil
	}
}
