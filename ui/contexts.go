package ui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
	"github.com/chunkview/chunkview/ui/screens/releases"
)

// ctxSwitchedMsg answers switchContext: a client on context name that answered,
// or why there is none.
type ctxSwitchedMsg struct {
	name   string
	client *kube.Client
	err    error
}

// switchContext connects to context name and asks the API server for its
// version, so that a context that cannot be reached is reported while the view
// stays on the one in use.
func switchContext(ctx context.Context, cs *kube.Contexts, name string) tea.Cmd {
	return func() tea.Msg {
		c, err := cs.Connect(name)
		if err == nil {
			err = c.Ping(ctx)
		}
		return ctxSwitchedMsg{name: name, client: c, err: err}
	}
}

// askContext starts a switch to context name, from the command line or the
// picker.
func (m *model) askContext(name string) tea.Cmd {
	switch {
	case m.Contexts == nil:
		return common.Status("This view cannot switch contexts: it was started without a kubeconfig.", true)
	case name == m.KubeContext:
		return common.Status("Already on context "+name+".", false)
	}
	m.switching = name
	m.status, m.statusErr = "Switching to context "+name+"…", false
	return tea.Batch(switchContext(m.Ctx, m.Contexts, name), m.startSpinner())
}

// contextSwitched takes the answer of a switch: the view starts over on the new
// client, at the release list, or stays where it was and says why.
func (m *model) contextSwitched(msg ctxSwitchedMsg) tea.Cmd {
	if msg.name != m.switching {
		return nil
	}
	m.switching = ""
	if msg.err != nil {
		// The outcome first: a narrow status line cuts the reason short.
		m.status, m.statusErr = fmt.Sprintf("Still on %s: cannot switch to context %s. %s", m.contextLabel(), msg.name, common.ShortError(msg.err)), true
		return nil
	}
	m.Common.SetClient(msg.client)
	m.Common.KubeContext, m.Common.Layouts = msg.name, common.NewLayoutCache()
	rs := releases.New(m.Common)
	w, h := m.bodySize()
	rs.SetSize(w, h)
	closeScreens(m.stack)
	m.stack = []common.Screen{rs}
	m.status, m.statusErr = "Switched to context "+msg.name+".", false
	cmds := []tea.Cmd{rs.Init(), m.startSpinner()}
	if m.watch {
		// The live view follows the new cluster; the old watch ends.
		m.setLive(true)
		cmds = append(cmds, m.startLive())
	} else {
		m.stopLive()
	}
	return tea.Batch(cmds...)
}

// contextLabel names the context in use for messages.
func (m *model) contextLabel() string {
	if m.KubeContext == "" {
		return "the current context"
	}
	return m.KubeContext
}
