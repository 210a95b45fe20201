package chunks

import (
	"charm.land/lipgloss/v2"

	"github.com/chunkview/chunkview/render"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// stateCell marks a Secret's state with its word and sign (render.SecretState),
// so it reads without colour too, in the state's colour.
func stateCell(s *theme.Styles, st storage.SecretState) (table.Cell, *lipgloss.Style) {
	style := &s.Warning
	switch st {
	case storage.StateOK:
		style = &s.StateOK
	case storage.StateMissing:
		style = &s.StateMissing
	case storage.StateCorrupt, storage.StateWrongTyp:
		style = &s.StateCorrupt
	case storage.StateOrphan:
		style = &s.StateOrphan
	}
	return table.Styled(render.SecretState(st).Marked(), style), style
}
