package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// stdinIsTerminal reports whether in is a terminal: the default App.IsTerminal.
func stdinIsTerminal(in io.Reader) bool {
	f, ok := in.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// confirmation is one question put before a destructive operation.
type confirmation struct {
	// what names the operation in the refusal ("uninstall release \"x\"").
	what string
	// want is the answer that confirms: "y" (also "yes", any case), or a name that
	// must be typed exactly.
	want string
	// where names the kube context and namespace the operation changes.
	where string
}

// confirm asks on stderr and reads the answer from stdin. --yes skips the question;
// without a terminal on stdin, and without --yes, it refuses.
func (r *run) confirm(yes bool, c confirmation) error {
	if yes {
		return nil
	}
	if !r.app.isTerminal(r.stdin) {
		return fmt.Errorf("%w: not going to %s without confirmation: stdin is not a terminal; pass --yes to proceed", ErrRefused, c.what)
	}
	on := ""
	if c.where != "" {
		on = " on " + c.where
	}
	if c.want == "y" {
		fmt.Fprintf(r.stderr, "Proceed to %s%s? [y/N]: ", c.what, on)
	} else {
		fmt.Fprintf(r.stderr, "To %s%s, type the release name (%s): ", c.what, on, c.want)
	}
	line, err := r.readAnswer()
	if errors.Is(err, ErrCancelled) {
		fmt.Fprintln(r.stderr)
		return fmt.Errorf("%w: nothing was changed", ErrCancelled)
	}
	if err != nil && line == "" {
		fmt.Fprintln(r.stderr)
		return fmt.Errorf("%w: no answer; nothing was changed", ErrRefused)
	}
	answer := strings.TrimSpace(line)
	ok := answer == c.want
	if c.want == "y" {
		ok = strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
	}
	if !ok {
		if c.want == "y" {
			return fmt.Errorf("%w: not confirmed; nothing was changed", ErrRefused)
		}
		return fmt.Errorf("%w: typed %q, not %q; nothing was changed", ErrRefused, answer, c.want)
	}
	return nil
}

// readAnswer reads one line from stdin, or returns ErrCancelled when the command's
// context ends first: Ctrl-C at a prompt cancels instead of being echoed while the
// next line typed becomes the answer.
func (r *run) readAnswer() (string, error) {
	ctx := r.ctx
	if ctx == nil {
		return r.readLine()
	}
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		line, err := r.readLine()
		ch <- answer{line, err}
	}()
	select {
	case a := <-ch:
		return a.line, a.err
	case <-ctx.Done():
		// The read goes on until stdin gives a line or closes; nothing more
		// is asked after a cancel, so nothing reads r.in meanwhile.
		return "", ErrCancelled
	}
}

// readLine reads one line from stdin, keeping the reader for later questions.
func (r *run) readLine() (string, error) {
	if r.in == nil {
		r.in = bufio.NewReader(r.stdin)
	}
	return r.in.ReadString('\n')
}
