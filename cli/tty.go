package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// tuiTerminal reports whether the interactive view can run on these streams: it
// draws on stdout, which must be a terminal, and reads keys from stdin, or from
// the controlling terminal (/dev/tty) when stdin is redirected. Without them the
// view would fail on its first read with the terminal library's raw error.
func tuiTerminal(stdin io.Reader, stdout io.Writer) bool {
	out, ok := stdout.(*os.File)
	if !ok || !term.IsTerminal(int(out.Fd())) {
		return false
	}
	if stdinIsTerminal(stdin) {
		return true
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	_ = tty.Close()
	return true
}

// canOpenTUI is tuiTerminal, or the App's replacement for it.
func (a *App) canOpenTUI(stdin io.Reader, stdout io.Writer) bool {
	if a.TUITerminal != nil {
		return a.TUITerminal(stdin, stdout)
	}
	return tuiTerminal(stdin, stdout)
}

// noTerminalError is the usage error of the interactive view started without a
// terminal (in a pipe, a CI job, a container without -t); ls is the command it
// advises, with the flags of this run (--demo, --context, ...) so that it pastes.
func noTerminalError(ls string) error {
	return usageErrorf("the interactive view needs a terminal, and this output is not one: run it in a terminal (with -t in a container), or run a command such as `%s`", ls)
}

// terminalWidth is the width of the terminal stdout is, 0 when it is none (a
// pipe, a file): the App's TerminalWidth, or golang.org/x/term's.
func (r *run) terminalWidth() int {
	if r.app.TerminalWidth != nil {
		return r.app.TerminalWidth(r.stdout)
	}
	out, ok := r.stdout.(*os.File)
	if !ok || !term.IsTerminal(int(out.Fd())) {
		return 0
	}
	w, _, err := term.GetSize(int(out.Fd()))
	if err != nil {
		return 0
	}
	return w
}
