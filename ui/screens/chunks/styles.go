package chunks

import (
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// stateCell marks a Secret's state with a word and an icon, so it reads without
// colour too.
func stateCell(s *theme.Styles, st storage.SecretState) (table.Cell, *lipgloss.Style) {
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
