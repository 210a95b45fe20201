package history

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/components/table"
)

// askExtension asks, once per extension, what OLMv1 says of the one that owns the
// release, when its latest revision names one.
func (s *Screen) askExtension() tea.Cmd {
	l := s.latest()
	if l == nil {
		return nil
	}
	name := kube.ExtensionName(*l)
	if name == "" || name == s.extAsked {
		return nil
	}
	s.extAsked = name
	return loadExtension(s.Ctx, s.Client, s.ns, s.name, name)
}

// askController asks, once, whether a Flux HelmRelease manages the release (an
// OLMv1 extension is asked by askExtension).
func (s *Screen) askController() tea.Cmd {
	l := s.latest()
	if l == nil || s.ctlAsked || kube.ExtensionName(*l) != "" {
		return nil
	}
	s.ctlAsked = true
	return loadController(s.Ctx, s.Client, s.ns, s.name, *l)
}

// controllerLines say which HelmRelease manages the release and, while it is
// not suspended, that the operations are refused and how to suspend it.
func (s *Screen) controllerLines() []string {
	c := s.ctl
	if c == nil || c.Kind != kube.KindHelmRelease || c.Unreadable != "" {
		return nil
	}
	st := s.Styles
	state := "suspended"
	if !c.Suspended {
		state = "not suspended"
	}
	line := fmt.Sprintf("Managed by %s · Ready %s · %s", st.Bold.Render(c.ID()), c.Ready, state)
	if c.LastAttempted != "" {
		line += " · last attempted " + c.LastAttempted
	}
	lines := []string{table.CutLines(line, s.Width)}
	if !c.Suspended {
		lines = append(lines, table.CutLines(st.Warning.Render(fmt.Sprintf("⚠ R, X, U and F are refused while Flux reconciles it: flux suspend helmrelease %s -n %s", c.Name, c.Namespace)), s.Width))
	}
	return lines
}

// OlmBundleLabel is the label operator-controller puts the bundle's name in.
const OlmBundleLabel = "olm.operatorframework.io/bundle-name"

// ownerLines say who owns the release, from its latest record's metadata, and
// what OLMv1 says of that owner: the installed bundle, the conditions, and that
// the Helm records are history once ClusterObjectSets hold the revisions.
func (s *Screen) ownerLines() []string {
	st := s.Styles
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
	case l.Labels[OlmBundleLabel] != "":
		first += " · bundle " + l.Labels[OlmBundleLabel]
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
		lines[i] = table.CutLines(lines[i], s.Width)
	}
	return lines
}
