package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/ui/common"
)

// cmdLineKeys are the keys shown while a command is typed.
func (m *model) cmdLineKeys() []key.Binding {
	return []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run")),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		m.Keys.Global.ForceQuit,
	}
}

// handleCmdLine takes the keys while a command is typed.
func (m *model) handleCmdLine(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		m.cmd.active = false
		m.cmd.input.Blur()
		return nil
	case "enter":
		m.cmd.active = false
		m.cmd.input.Blur()
		res := parseCommand(m.cmd.input.Value())
		m.cmd.input.SetValue("")
		switch {
		case res.quit:
			return tea.Quit
		case res.log:
			m.showLog = true
			return nil
		case res.ns != nil && res.ns.All:
			return m.chooseNamespace(*res.ns, "")
		case res.ns != nil:
			// A typed name is checked first: a typo must not read as a
			// namespace without releases.
			c, ns := m.Common, *res.ns
			return func() tea.Msg {
				ok, err := c.Client.NamespaceExists(c.Ctx, ns.Ns)
				return nsCheckedMsg{ns: ns, exists: ok, err: err}
			}
		case res.ctx != nil:
			return m.askContext(res.ctx.Name)
		case res.pickCtx:
			if m.Contexts == nil {
				return m.askContext("")
			}
			// The picker opens over the release list, as the namespace one.
			closeScreens(m.stack[1:])
			m.stack = m.stack[:1]
			m.status = ""
			return func() tea.Msg { return common.OpenCtxPickerMsg{} }
		case res.status != "":
			m.status, m.statusErr = res.status, res.err
		}
		return nil
	}
	var cmd tea.Cmd
	m.cmd.input, cmd = m.cmd.input.Update(msg)
	return cmd
}

// typedInput is a screen holding text typed by the user that quitting would lose.
type typedInput interface{ HasTypedInput() bool }

// confirmForceQuit reports whether ctrl+c should ask first: a dialog holds text
// the user typed. A second ctrl+c quits.
func (m *model) confirmForceQuit() bool {
	t, ok := m.top().(typedInput)
	if !ok || !t.HasTypedInput() || m.quitArmed {
		return false
	}
	m.quitArmed = true
	m.status, m.statusErr = "Press ctrl+c again to quit: what you typed in the dialog is lost. Any other key goes on.", true
	return true
}

// nsCheckedMsg answers the check of a namespace typed after :ns.
type nsCheckedMsg struct {
	ns     common.NamespaceChosenMsg
	exists bool
	err    error
}

// namespaceChecked switches to the namespace checked when it exists, or when
// it could not be told (saying so); says that it does not exist otherwise,
// staying where the view was.
func (m *model) namespaceChecked(msg nsCheckedMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		return m.chooseNamespace(msg.ns, fmt.Sprintf("Whether namespace %q exists could not be told (%s): showing it.", msg.ns.Ns, common.ShortError(msg.err)))
	case !msg.exists:
		m.status, m.statusErr = fmt.Sprintf("Namespace %q does not exist; n picks one.", msg.ns.Ns), true
		return nil
	}
	return m.chooseNamespace(msg.ns, "")
}

// chooseNamespace goes back to the release list, whose namespace it is, and
// switches it to ns; note, when set, is said on the status line.
func (m *model) chooseNamespace(ns common.NamespaceChosenMsg, note string) tea.Cmd {
	closeScreens(m.stack[1:])
	m.stack = m.stack[:1]
	m.status, m.statusErr = note, note != ""
	return func() tea.Msg { return ns }
}
