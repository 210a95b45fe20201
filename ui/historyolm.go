package ui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
)

// extensionMsg answers loadExtension: what OLMv1 says of the ClusterExtension that
// owns release ns/name (nil when its API is not served).
type extensionMsg struct {
	ns, name string
	ext      *kube.ClusterExtension
}

// loadExtension reads ClusterExtension ext, which owns release ns/name.
func loadExtension(ctx context.Context, c *kube.Client, ns, name, ext string) tea.Cmd {
	return func() tea.Msg {
		return extensionMsg{ns: ns, name: name, ext: c.ClusterExtension(ctx, ext)}
	}
}

// askExtension asks, once per extension, what OLMv1 says of the one that owns the
// release, when its latest revision names one.
func (s *historyScreen) askExtension() tea.Cmd {
	l := s.latest()
	if l == nil {
		return nil
	}
	name := kube.ExtensionName(*l)
	if name == "" || name == s.extAsked {
		return nil
	}
	s.extAsked = name
	return loadExtension(s.ctx, s.client, s.ns, s.name, name)
}

// controllerMsg answers loadController: the Flux HelmRelease that manages
// release ns/name, nil when none does (or none could be read).
type controllerMsg struct {
	ns, name string
	ctl      *kube.Controller
}

// loadController reads the controller of the release whose latest revision is
// row.
func loadController(ctx context.Context, c *kube.Client, ns, name string, row kube.RevisionRow) tea.Cmd {
	return func() tea.Msg {
		ctl, _ := c.ControllerOf(ctx, row)
		return controllerMsg{ns: ns, name: name, ctl: ctl}
	}
}

// askController asks, once, whether a Flux HelmRelease manages the release (an
// OLMv1 extension is asked by askExtension).
func (s *historyScreen) askController() tea.Cmd {
	l := s.latest()
	if l == nil || s.ctlAsked || kube.ExtensionName(*l) != "" {
		return nil
	}
	s.ctlAsked = true
	return loadController(s.ctx, s.client, s.ns, s.name, *l)
}

// controllerLines say which HelmRelease manages the release and, while it is
// not suspended, that the operations are refused and how to suspend it.
func (s *historyScreen) controllerLines() []string {
	c := s.ctl
	if c == nil || c.Kind != kube.KindHelmRelease || c.Unreadable != "" {
		return nil
	}
	st := s.styles
	state := "suspended"
	if !c.Suspended {
		state = "not suspended"
	}
	line := fmt.Sprintf("Managed by %s · Ready %s · %s", st.Bold.Render(c.ID()), c.Ready, state)
	if c.LastAttempted != "" {
		line += " · last attempted " + c.LastAttempted
	}
	lines := []string{cutLines(line, s.width)}
	if !c.Suspended {
		lines = append(lines, cutLines(st.Warning.Render(fmt.Sprintf("⚠ R, X, U and F are refused while Flux reconciles it: flux suspend helmrelease %s -n %s", c.Name, c.Namespace)), s.width))
	}
	return lines
}

// olmBundleLabel is the label operator-controller puts the bundle's name in.
const olmBundleLabel = "olm.operatorframework.io/bundle-name"

// ownerLines say who owns the release, from its latest record's metadata, and
// what OLMv1 says of that owner: the installed bundle, the conditions, and that
// the Helm records are history once ClusterObjectSets hold the revisions.
func (s *historyScreen) ownerLines() []string {
	st := s.styles
	l := s.latest()
	if l == nil {
		return nil
	}
	if lines := s.controllerLines(); lines != nil {
		return lines
	}
	if l.ControlledBy == "" && kube.ExtensionName(*l) == "" {
		return nil
	}
	owner := l.ControlledBy
	if owner == "" {
		owner = kube.KindClusterExtension + "/" + kube.ExtensionName(*l)
	}
	first := "Owner " + st.Bold.Render(owner)
	e := s.ext
	switch {
	case e != nil && e.Bundle.Name != "":
		first += " · installed " + e.Bundle.Name
		if e.Bundle.Version != "" {
			first += " (" + e.Bundle.Version + ")"
		}
	case l.Labels[olmBundleLabel] != "":
		first += " · bundle " + l.Labels[olmBundleLabel]
	}
	lines := []string{first}
	switch {
	case e == nil:
	case e.Unreadable != "":
		lines = append(lines, st.Warning.Render(kube.KindClusterExtension+" not readable: "+e.Unreadable))
	default:
		var conds []string
		for _, c := range e.Conditions {
			text := c.Type + " " + c.Status
			if c.Reason != "" {
				text += " (" + c.Reason + ")"
			}
			if c.Status != "True" {
				text = st.Warning.Render(text)
			}
			conds = append(conds, text)
		}
		if len(conds) > 0 {
			lines = append(lines, "Conditions "+strings.Join(conds, " · "))
		}
		if e.Historical() {
			// The name first: a narrow screen cuts the end of the line.
			lines = append(lines, st.Warning.Render(fmt.Sprintf("⚠ Historical: ClusterObjectSet %s (newest of %d) now holds %s; these Helm records are history", e.ObjectSet, e.ObjectSets, e.Name)))
		}
	}
	for i := range lines {
		lines[i] = cutLines(lines[i], s.width)
	}
	return lines
}
