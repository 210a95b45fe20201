package ui

import (
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
)

// DefaultWatchInterval is how often the live view lists a store whose watch the
// server refused.
const DefaultWatchInterval = kube.DefaultPollInterval

// Options configure Run.
type Options struct {
	// Demo shows a DEMO badge in the header: the cluster is chunkview's own
	// in-memory one.
	Demo bool
	// ContextName, when set, is shown in the header (the kubeconfig context).
	ContextName string
	// Contexts, when set, are the contexts :ctx switches between.
	Contexts *kube.Contexts
	// Watch starts the live view: the release list and the open history follow
	// the cluster through a metadata watch (w switches it off and on). Where the
	// server refuses to watch, they are listed every WatchInterval
	// (DefaultWatchInterval when zero).
	Watch         bool
	WatchInterval time.Duration

	// Input and Output replace the terminal, for tests. Nil means stdin/stdout.
	Input  io.Reader
	Output io.Writer
	// Now is the clock ages are measured against; nil means time.Now. Tests fix it.
	Now func() time.Time
	// ProgramOptions are passed on to tea.NewProgram, after chunkview's own.
	ProgramOptions []tea.ProgramOption
}

func (o Options) watchInterval() time.Duration {
	if o.WatchInterval > 0 {
		return o.WatchInterval
	}
	return DefaultWatchInterval
}
