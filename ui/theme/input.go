package theme

import "charm.land/bubbles/v2/textinput"

// NewTextInput returns a text field with a steady cursor: a blinking one redraws
// the screen twice a second for nothing.
func NewTextInput() textinput.Model {
	in := textinput.New()
	st := in.Styles()
	st.Cursor.Blink = false
	in.SetStyles(st)
	return in
}
