// Package ui is chunkview's interactive front end: a Bubble Tea program with one
// sub-model per screen (releases, history, revision, chunk layout, diff) and the
// dialogs that confirm an operation. It reads and acts through kube.Client; every
// call to the cluster runs in a tea.Cmd, so the screen never waits on the network.
package ui

import (
	"context"
	"errors"
	"io"
	"log"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// Run runs the interactive UI on client until the user quits or ctx is done.
// While it runs, the standard logger writes nowhere: Helm's chartutil warns through
// it, and any line it printed would tear the screen. (klog, client-go's logger, is
// main's to silence: it cannot be put back as it was.)
func Run(ctx context.Context, client *kube.Client, opts Options) error {
	restore := silenceLogs()
	defer restore()

	m := newModel(newCommon(ctx, client, opts), opts)
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	popts = append(popts, opts.ProgramOptions...)
	p := tea.NewProgram(m, popts...)
	m.send = p.Send
	_, err := p.Run()
	m.stopLive()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// newCommon builds what every screen shares.
func newCommon(ctx context.Context, client *kube.Client, opts Options) common.Common {
	c := common.New(ctx, client, opts.Now)
	c.KubeContext, c.Contexts = opts.ContextName, opts.Contexts
	return c
}

// silenceLogs sends the standard logger to io.Discard and returns a function that
// puts it back.
func silenceLogs() func() {
	prev := log.Writer()
	log.SetOutput(io.Discard)
	return func() { log.SetOutput(prev) }
}
