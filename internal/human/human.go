// Package human formats sizes, ages, times and counts for people, one way for
// the CLI's tables and the TUI's screens, so that the two never disagree on
// what a number means.
package human

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
// "3h", "2d4h", "120d"); Unknown when t is not known. A t after now is "0s".
func Age(now, t time.Time) string {
	if t.IsZero() {
		return Unknown
	}
	return Duration(now.Sub(t))
}

// Duration renders a span as Age does.
func Duration(d time.Duration) string {
	return duration.HumanDuration(max(d, 0))
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

// Wrap cuts s into lines of at most width runes, at spaces where it can (a word
// longer than half a line is cut), its runs of spaces made one.
func Wrap(s string, width int) []string {
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
