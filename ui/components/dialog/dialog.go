package dialog

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/chunkview/chunkview/ui/components/table"
)

// State is where a confirmation dialog is: asking, waiting for the
// operation, or showing its outcome.
type State int

const (
	Asking State = iota
	Running
	Done
	// Planning: the operation is being planned (decoding what it needs);
	// nothing can be confirmed yet.
	Planning
)

// Choice is one of the ways a dialog offers (the stuck-release fixes, the
// prune's keeps): its label, and the warning shown while it is picked.
type Choice struct {
	Label   string
	Warning string
}

// Model asks before an operation that changes the cluster and shows its
// outcome in place. Destructive ones (uninstall, delete a revision) want the
// release's name typed out (Typed); the others a "y". With choices, the user
// first picks one, and its warning is shown before the "y".
type Model struct {
	KeyMap KeyMap
	Styles Styles
	// OnConfirm starts what the person confirmed, with the choice picked (0
	// without choices); the dialog then waits for Finish.
	OnConfirm func(choice int) tea.Cmd

	heading, body string
	// where names the context and namespace the operation changes: shown
	// above the question, so that the wrong cluster is noticed.
	where string
	// want, when set, must be typed to confirm.
	want  string
	input textinput.Model
	// choices, when set, are picked from; cursor is the one picked.
	choices []Choice
	cursor  int

	state   State
	result  string
	failure string
	hint    string
	closed  bool

	width, height int
}

// New asks heading and body about an operation on where (the context and
// namespace it changes), with the default keys and styles.
func New(heading, where, body string) Model {
	in := textinput.New()
	st := in.Styles()
	// A blinking cursor redraws the screen twice a second for nothing.
	st.Cursor.Blink = false
	in.SetStyles(st)
	in.Prompt = "> "
	in.SetWidth(30)
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), heading: heading, body: body, where: where, input: in}
}

// Typed makes the dialog want name typed out before it confirms.
func (d Model) Typed(name string) Model {
	d.want = name
	d.input.Placeholder = name
	return d
}

// WithChoices makes the dialog offer choices, the first picked.
func (d Model) WithChoices(choices []Choice) Model {
	d.choices = choices
	return d
}

// Planning makes the dialog wait for its operation's plan: nothing can be
// confirmed until Ask.
func (d Model) Planning() Model {
	d.state = Planning
	return d
}

// Ask ends the planning: body says what the operation will do, choices (when
// not nil) replace those offered.
func (d *Model) Ask(body string, choices []Choice) {
	d.state, d.body = Asking, body
	if choices != nil {
		d.choices = choices
	}
}

// Fail shows why the operation cannot be asked for or did not run (what, in a
// line: the screen words the error); nothing is left to confirm.
func (d *Model) Fail(what string) { d.state, d.failure = Done, what }

// Finish shows the outcome of the operation run on confirmation: result, or
// failure when it failed.
func (d *Model) Finish(result, failure string) {
	d.state, d.result, d.failure = Done, result, failure
}

// SetSize sets the area the dialog is drawn over.
func (d *Model) SetSize(w, h int) { d.width, d.height = w, h }

// State is where the dialog is.
func (d Model) State() State { return d.state }

// Failure is why the operation failed or was refused, "" when it did not.
func (d Model) Failure() string { return d.failure }

// Closed reports that the dialog is done with: cancelled, or its outcome
// closed.
func (d Model) Closed() bool { return d.closed }

// Succeeded reports that the operation ran and succeeded.
func (d Model) Succeeded() bool { return d.state == Done && d.failure == "" }

// Init focuses the name's field, when a name is to be typed.
func (d *Model) Init() tea.Cmd {
	if d.want != "" {
		return d.input.Focus()
	}
	return nil
}

// Capturing reports whether typed letters belong to the dialog.
func (d Model) Capturing() bool { return d.want != "" && d.state == Asking }

// HasTypedInput reports whether the dialog holds text the person typed, which
// ctrl+c asks before losing.
func (d Model) HasTypedInput() bool { return d.Capturing() && d.input.Value() != "" }

// Busy reports whether it waits on the cluster, for the spinner.
func (d Model) Busy() bool { return d.state == Running }

// Update handles the dialog's keys; see Closed.
func (d Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		return d.handleKey(k)
	}
	if d.want != "" && d.state == Asking {
		var c tea.Cmd
		d.input, c = d.input.Update(msg)
		return d, c
	}
	return d, nil
}

func (d Model) handleKey(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := d.KeyMap
	switch d.state {
	case Running:
		return d, nil
	case Planning:
		d.closed = key.Matches(msg, k.Back)
		return d, nil
	case Done:
		d.closed = key.Matches(msg, k.Close)
		return d, nil
	}
	if key.Matches(msg, k.Back) {
		d.closed = true
		return d, nil
	}
	if len(d.choices) > 0 && d.pick(msg) {
		return d, nil
	}
	if d.want != "" {
		if key.Matches(msg, k.Submit) {
			if strings.TrimSpace(d.input.Value()) != d.want {
				d.hint = fmt.Sprintf("Type %q exactly to confirm, or press esc.", d.want)
				return d, nil
			}
			return d.start()
		}
		var c tea.Cmd
		d.input, c = d.input.Update(msg)
		d.hint = ""
		return d, c
	}
	switch {
	case key.Matches(msg, k.Confirm):
		return d.start()
	case key.Matches(msg, k.Cancel):
		d.closed = true
	}
	return d, nil
}

// pick moves between the choices; it reports whether msg did. With a name to
// type, letters and digits are the name's: only the arrow keys move.
func (d *Model) pick(msg tea.KeyPressMsg) bool {
	up, down := key.Matches(msg, d.KeyMap.Up), key.Matches(msg, d.KeyMap.Down)
	if d.want != "" {
		up, down = msg.String() == "up", msg.String() == "down"
	}
	switch {
	case up:
		d.cursor = max(d.cursor-1, 0)
		return true
	case down:
		d.cursor = min(d.cursor+1, len(d.choices)-1)
		return true
	}
	if s := msg.String(); d.want == "" && len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < len(d.choices) {
		d.cursor = int(s[0] - '1')
		return true
	}
	return false
}

func (d Model) start() (Model, tea.Cmd) {
	d.state = Running
	d.input.Blur()
	if d.OnConfirm == nil {
		return d, nil
	}
	return d, d.OnConfirm(d.cursor)
}

// Bindings are the keys to show where the dialog is.
func (d Model) Bindings() []key.Binding {
	k := d.KeyMap
	switch {
	case d.state == Done:
		return []key.Binding{k.Close}
	case d.state == Running:
		return nil
	case d.state == Planning:
		return []key.Binding{k.Back}
	case d.want != "":
		return []key.Binding{k.Submit, k.Back}
	case len(d.choices) > 0:
		return []key.Binding{k.Up, k.Down, k.Confirm, k.Cancel}
	}
	return []key.Binding{k.Confirm, k.Cancel}
}

// View draws it in exactly its size.
func (d Model) View() string {
	st := &d.Styles
	width := min(d.width-4, 72)
	inner := width - 4
	var lines []string
	add := func(text string) { lines = append(lines, strings.Split(text, "\n")...) }
	add(st.Where.Render(table.Wrap("On "+d.where, inner)))
	add(table.Wrap(d.body, inner))
	selected := -1
	for i, c := range d.choices {
		add("")
		mark := "  "
		if i == d.cursor {
			mark = st.Cursor.Render("▶ ")
			selected = len(lines)
		}
		// A label the box would wrap is wrapped here, so that the lines
		// counted are the lines drawn.
		for j, l := range strings.Split(table.Wrap(fmt.Sprintf("%d. %s", i+1, c.Label), inner-2), "\n") {
			if i == d.cursor {
				l = st.Selected.Render(l)
			}
			if j > 0 {
				mark = "  "
			}
			lines = append(lines, mark+l)
		}
		if i == d.cursor && c.Warning != "" {
			add(st.Warning.Render(table.Wrap("⚠ "+c.Warning, inner)))
		}
	}
	var foot strings.Builder
	switch d.state {
	case Planning:
		foot.WriteString(st.Dim.Render(table.Wrap("Working out what this would do… (nothing is changed yet)", inner)))
	case Asking:
		if d.want != "" {
			foot.WriteString(st.Prompt.Render(fmt.Sprintf("Type the release name (%s) to confirm:", d.want)) + "\n")
			foot.WriteString(d.input.View())
			if d.hint != "" {
				foot.WriteString("\n" + st.Warning.Render(table.Wrap(d.hint, inner)))
			}
		} else {
			foot.WriteString(st.Prompt.Render("Proceed? y: yes · esc: cancel"))
		}
	case Running:
		foot.WriteString(st.Dim.Render(table.Wrap("Working… (the cluster is being changed; wait for the result)", inner)))
	case Done:
		if d.failure != "" {
			foot.WriteString(st.Error.Render(table.Wrap("✗ "+d.failure, max(inner, 20))))
		} else {
			foot.WriteString(st.OK.Render(table.Wrap("✓ "+d.result, inner)))
		}
		foot.WriteString("\n" + st.Dim.Render("enter: close"))
	}
	// The box must fit the screen with its buttons: the text above them gives
	// way, keeping the selected choice in view.
	footLines := strings.Count(foot.String(), "\n") + 1
	room := d.height - st.Box.GetVerticalFrameSize() - 2 - 1 - footLines
	lines = windowLines(lines, max(room, 1), selected)
	return Box(st.Box, st.Title, d.heading, strings.Join(lines, "\n")+"\n\n"+foot.String(), width)
}

// windowLines returns at most n of lines, a window that shows line keep (-1: the
// first ones), with "…" in place of the first or last line shown when lines
// continue above or below it.
func windowLines(lines []string, n, keep int) []string {
	if len(lines) <= n {
		return lines
	}
	start := 0
	if keep >= 0 {
		// The selected line and the two after it (its warning) in view, and
		// never under the "…" that marks the lines above.
		start = max(0, min(keep+3-n, keep-1, len(lines)-n))
	}
	out := append([]string(nil), lines[start:start+n]...)
	if start > 0 {
		out[0] = "…"
	}
	if start+n < len(lines) && n > 1 {
		out[n-1] = "…"
	}
	return out
}
