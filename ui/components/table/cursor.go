package table

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Model is a table's cursor: the selected row and the first one shown, moved by
// its KeyMap. It knows how many rows there are and how many fit, not what they
// hold: the screen draws them (RenderRow), marking the row at Cursor and
// showing rows Offset to End.
type Model struct {
	KeyMap KeyMap
	Styles Styles

	cursor, offset int
	rows, height   int
}

// New returns a cursor over no rows, with the default keys and styles.
func New() Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), cursor: -1}
}

// Cursor is the selected row, -1 when there is none.
func (m Model) Cursor() int { return m.cursor }

// Offset is the first row shown.
func (m Model) Offset() int { return m.offset }

// End is one past the last row shown.
func (m Model) End() int { return min(m.offset+m.height, m.rows) }

// SetCursor selects row i; Fit then keeps it on a row and in view.
func (m *Model) SetCursor(i int) { m.cursor = i }

// Fit sets the number of rows and how many are shown, keeping the cursor on a
// row (-1 when there is none) and the window around it.
func (m *Model) Fit(rows, height int) {
	m.rows, m.height = rows, height
	if rows == 0 {
		m.cursor, m.offset = -1, 0
		return
	}
	m.cursor = max(0, min(m.cursor, rows-1))
	m.offset = ScrollWindow(m.cursor, m.offset, height, rows)
}

// SetHeight sets how many rows are shown, leaving the window where it starts
// until the cursor moves or Fit is called.
func (m *Model) SetHeight(height int) { m.height = height }

// Moves reports whether msg is one of the keys that move the cursor.
func (m Model) Moves(msg tea.KeyPressMsg) bool { return key.Matches(msg, m.KeyMap.Bindings()...) }

// Update moves the cursor for the keys of its KeyMap, a page being the rows
// shown (as Fit last set them).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	switch {
	case key.Matches(k, m.KeyMap.Up):
		m.cursor--
	case key.Matches(k, m.KeyMap.Down):
		m.cursor++
	case key.Matches(k, m.KeyMap.PageUp):
		m.cursor -= m.height
	case key.Matches(k, m.KeyMap.PageDown):
		m.cursor += m.height
	case key.Matches(k, m.KeyMap.Top):
		m.cursor = 0
	case key.Matches(k, m.KeyMap.Bottom):
		m.cursor = m.rows - 1
	default:
		return m, nil
	}
	m.Fit(m.rows, m.height)
	return m, nil
}
