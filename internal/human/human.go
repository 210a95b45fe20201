// Package human formats sizes, ages, times and counts for people, one way for
// the CLI's tables and the TUI's screens, so that the two never disagree on
// what a number means.
package human

import (
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/dustin/go-humanize"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Unknown is what a value that is not known reads as.
const Unknown = "-"

// Bytes renders a byte count as kubectl users read it (KiB, MiB); a negative
// count is not known and reads as Unknown. Zero is "0 B": a count, not a gap.
func Bytes(n int64) string {
	if n < 0 {
		return Unknown
	}
	return humanize.IBytes(uint64(n))
}

// StoredBytes is Bytes for a record's stored size, which is never zero once
// known: zero there means it was not measured, and reads as Unknown.
func StoredBytes(n int64) string {
	if n == 0 {
		return Unknown
	}
	return Bytes(n)
}

// Age renders how long before now t was, as kubectl's AGE does ("90s", "5m30s",
// "3h", "2d4h", "120d"), in at most 5 cells: from two years on, whole years ("2y")
// where kubectl adds the days. Unknown when t is not known; a t after now is "0s".
func Age(now, t time.Time) string {
	if t.IsZero() {
		return Unknown
	}
	return Duration(now.Sub(t))
}

// Duration renders a span as Age does.
func Duration(d time.Duration) string {
	const year = 365 * 24 * time.Hour
	if d >= 2*year {
		return strconv.Itoa(int(d/year)) + "y"
	}
	return duration.HumanDuration(max(d, 0))
}

// Span renders a span for a sentence, in hours and minutes past the hour, days
// and hours past the day: "42s", "47m", "2h30m", "3d4h". A duration the user gave
// ("--stuck-after 1h") reads back as they wrote it.
func Span(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	switch {
	case d < time.Minute:
		return d.String()
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return strconv.Itoa(h) + "h"
		}
		return strconv.Itoa(h) + "h" + strconv.Itoa(m) + "m"
	}
	days, h := int(d.Hours())/24, int(d.Hours())%24
	if h == 0 {
		return strconv.Itoa(days) + "d"
	}
	return strconv.Itoa(days) + "d" + strconv.Itoa(h) + "h"
}

// Timestamp renders t in the local zone to the second, the zone named, so that a
// time read off one machine means the same on another; Unknown when t is not
// known.
func Timestamp(t time.Time) string {
	if t.IsZero() {
		return Unknown
	}
	return t.Local().Format("2006-01-02 15:04:05 MST")
}

// Minute is Timestamp to the minute, for sentences on screen.
func Minute(t time.Time) string {
	if t.IsZero() {
		return Unknown
	}
	return t.Local().Format("2006-01-02 15:04 MST")
}

// Plural renders n things: "1 revision", "3 revisions".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// OrUnknown returns s, or Unknown when s is empty.
func OrUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}

// There are two ways to wrap text, and both are here so that no front end
// writes a third: Wrap keeps every word whole, for what a person may copy (a
// name, a command, a path), and is what the CLI prints; WrapCells breaks a long
// path at its slashes (and a word with no break at all where the line ends), for
// a screen of a fixed width that must not be pushed wider. WrapHanging is Wrap
// with an indent for the lines after the first, as the CLI's paragraphs are set.

// Wrap breaks s into lines of at most width runes at spaces, its runs of spaces
// made one, never inside a size ("1.9 MiB"). A word longer than a line stays
// whole on a line of its own: a name or a command cut in two could not be
// copied.
func Wrap(s string, width int) []string {
	var lines []string
	line := ""
	// A size ("1.9 MiB") is one word here, as in WrapCells.
	for _, word := range strings.Fields(joinUnbreakable(s)) {
		word = unjoin.Replace(word)
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
			lines = append(lines, line)
			line = word
		default:
			line += " " + word
		}
	}
	return append(lines, line)
}

// WrapHanging wraps one line of text at width, as Wrap does, keeping its leading
// spaces on the first line and indenting the lines after it by indent; the
// result ends with a newline.
func WrapHanging(s string, width int, indent string) string {
	lead := len(s) - len(strings.TrimLeft(s, " "))
	words := strings.Join(strings.Fields(s), " ")
	first := Wrap(words, width-lead)[0]
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", lead) + first)
	if rest := strings.TrimSpace(strings.TrimPrefix(words, first)); rest != "" {
		for _, q := range Wrap(rest, width-len(indent)) {
			b.WriteString("\n" + indent + q)
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// WrapCells breaks s into lines of at most width terminal cells, joined by
// newlines: at spaces, and after a comma, a semicolon, a slash or a hyphen, so
// that a long path or list wraps where it divides; a word with none of these is
// cut where the line ends. A flag ("(--history-max)") and a size ("1.9 MiB")
// are joined: never broken, unless longer than a line. Escape codes in s are
// kept and take no cells. A width of 0 or less leaves s as it is.
func WrapCells(s string, width int) string {
	if width <= 0 {
		return s
	}
	s = joinUnbreakable(s)
	out := ansi.Wrap(s, width, " ,;/")
	for _, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > width {
			// ansi.Wrap can keep a breakpoint character past the width
			// ("values," at 81 of 80): break at spaces only then.
			out = ansi.Wrap(s, width, " ")
			break
		}
	}
	return unjoin.Replace(out)
}

// The joins of WrapCells: within a flag or a size, a hyphen and a space stand
// in for themselves as characters of the Private Use Area, one cell wide, that
// no wrap breaks at; unjoin puts them back once the lines are made, so that
// what is shown, and copied from the terminal, is the text itself.
const (
	joinedHyphen = '\uE000'
	joinedSpace  = '\uE001'
)

var (
	unbreakable = regexp.MustCompile(`\(?--[A-Za-z0-9][A-Za-z0-9-]*\)?|\b\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB|kB|MB|GB)\b`)
	unjoin      = strings.NewReplacer(string(joinedHyphen), "-", string(joinedSpace), " ")
)

// joinUnbreakable joins the flags and sizes of s (see WrapCells).
func joinUnbreakable(s string) string {
	return unbreakable.ReplaceAllStringFunc(s, func(m string) string {
		return strings.NewReplacer("-", string(joinedHyphen), " ", string(joinedSpace)).Replace(m)
	})
}

// FoldLines folds a message onto one line, its lines joined by "; ": API server
// errors and Helm's descriptions sometimes span several.
func FoldLines(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", "")
	parts := strings.Split(s, "\n")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

// Cut is Wrap for a cell of a fixed width: a word longer than the line is cut
// where the line ends.
func Cut(s string, width int) []string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" || width < 2 {
		return []string{s}
	}
	var out []string
	for utf8.RuneCountInString(s) > width {
		rs := []rune(s)
		cut := width
		for i := width; i > width/2; i-- {
			if rs[i] == ' ' {
				cut = i
				break
			}
		}
		out = append(out, strings.TrimRight(string(rs[:cut]), " "))
		s = strings.TrimLeft(string(rs[cut:]), " ")
	}
	return append(out, s)
}

// FirstLine returns s up to its first newline, at most n bytes (then "..."):
// an error's first line, short enough for a table cell.
func FirstLine(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
