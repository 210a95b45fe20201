package status

import (
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/ui/theme"
)

// statusStyle is the style a kstatus word is drawn in.
func statusStyle(s *theme.Styles, st string) *lipgloss.Style {
	switch st {
	case live.StatusCurrent:
		return &s.StatusDeployed
	case live.StatusInProgress, live.StatusTerminating:
		return &s.StatusPending
	case live.StatusFailed, live.StatusNotFound:
		return &s.StatusFailed
	}
	return &s.StatusSuperseded
}

// hookPhaseStyle is the style of a hook's last run.
func hookPhaseStyle(s *theme.Styles, phase string) *lipgloss.Style {
	switch phase {
	case "Succeeded":
		return &s.StatusDeployed
	case "Failed":
		return &s.StatusFailed
	case "Running":
		return &s.StatusPending
	}
	return &s.StatusSuperseded
}

// releaseStatusStyle is the style of Helm's status of a revision.
func releaseStatusStyle(s *theme.Styles, status string) *lipgloss.Style {
	switch {
	case status == "deployed":
		return &s.StatusDeployed
	case status == "failed":
		return &s.StatusFailed
	case kube.Pending(status):
		return &s.StatusPending
	}
	return &s.StatusSuperseded
}
