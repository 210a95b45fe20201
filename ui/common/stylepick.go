package common

import (
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/kube/live"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/table"
)

// StateCell marks a Secret's state with a word and an icon, so it reads without
// colour too.
func (s *Styles) StateCell(st storage.SecretState) (table.Cell, *lipgloss.Style) {
	switch st {
	case storage.StateOK:
		return table.Styled("✓ ok", &s.StateOK), &s.StateOK
	case storage.StateMissing:
		return table.Styled("✗ MISSING", &s.StateMissing), &s.StateMissing
	case storage.StateCorrupt:
		return table.Styled("✗ CORRUPT", &s.StateCorrupt), &s.StateCorrupt
	case storage.StateOrphan:
		return table.Styled("! ORPHAN", &s.StateOrphan), &s.StateOrphan
	case storage.StateWrongTyp:
		return table.Styled("✗ WRONG-TYPE", &s.StateCorrupt), &s.StateCorrupt
	}
	return table.Styled("? "+string(st), &s.Warning), &s.Warning
}

// GaugeStyle picks the colour of a share of the 1 MiB Secret limit.
func (s *Styles) GaugeStyle(share float64) *lipgloss.Style {
	switch {
	case share >= 0.9:
		return &s.GaugeHigh
	case share >= 0.6:
		return &s.GaugeMid
	}
	return &s.GaugeLow
}

// StatusStyle is the style a kstatus word is drawn in.
func (s *Styles) StatusStyle(st string) *lipgloss.Style {
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

// HookPhaseStyle is the style of a hook's last run.
func (s *Styles) HookPhaseStyle(phase string) *lipgloss.Style {
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

// ReleaseStatusStyle is the style of Helm's status of a revision.
func (s *Styles) ReleaseStatusStyle(status string) *lipgloss.Style {
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
