package human

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		n           int64
		bytes, stor string
	}{
		{-1, "-", "-"},
		{0, "0 B", "-"},
		{1, "1 B", "1 B"},
		{1023, "1023 B", "1023 B"},
		{1024, "1.0 KiB", "1.0 KiB"},
		{1 << 20, "1.0 MiB", "1.0 MiB"},
		{1536 << 10, "1.5 MiB", "1.5 MiB"},
	} {
		if got := Bytes(c.n); got != c.bytes {
			t.Errorf("Bytes(%d) = %q, want %q", c.n, got, c.bytes)
		}
		if got := StoredBytes(c.n); got != c.stor {
			t.Errorf("StoredBytes(%d) = %q, want %q", c.n, got, c.stor)
		}
	}
}

// TestAge: kubectl's AGE, which both the CLI's tables and the TUI's columns show.
func TestAge(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ago  time.Duration
		want string
	}{
		{-time.Minute, "0s"},
		{0, "0s"},
		{42 * time.Second, "42s"},
		{119 * time.Second, "119s"},
		{5*time.Minute + 30*time.Second, "5m30s"},
		{47 * time.Minute, "47m"},
		{3*time.Hour + 5*time.Minute, "3h5m"},
		{30 * time.Hour, "30h"},
		{52 * time.Hour, "2d4h"},
		{90 * 24 * time.Hour, "90d"},
	} {
		if got := Age(now, now.Add(-c.ago)); got != c.want {
			t.Errorf("Age(%s ago) = %q, want %q", c.ago, got, c.want)
		}
	}
	if got := Age(now, time.Time{}); got != Unknown {
		t.Errorf("Age of an unknown time = %q", got)
	}
}

func TestPluralAndUnknown(t *testing.T) {
	if got := Plural(1, "revision", "revisions"); got != "1 revision" {
		t.Error(got)
	}
	if got := Plural(0, "revision", "revisions"); got != "0 revisions" {
		t.Error(got)
	}
	if got := OrUnknown(""); got != "-" {
		t.Error(got)
	}
	if got := Timestamp(time.Time{}); got != "-" {
		t.Error(got)
	}
}

func TestWrap(t *testing.T) {
	got := Wrap("the  release   is over the limit by far", 12)
	want := []string{"the release", "is over the", "limit by far"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
	// A name longer than a line stays whole, on a line of its own.
	if got := Wrap("delete sh.helm.release.v1.ledger.v3 now", 10); strings.Join(got, "|") != "delete|sh.helm.release.v1.ledger.v3|now" {
		t.Errorf("a long word: %q", got)
	}
	if got := Cut("sh.helm.release.v1.ledger.v3", 10); len(got) != 3 || got[0] != "sh.helm.re" {
		t.Errorf("Cut of a long word: %q", got)
	}
	for _, l := range Wrap("ünïcode wörds wrap by runes not bytes", 8) {
		if n := len([]rune(l)); n > 8 {
			t.Errorf("line %q has %d runes", l, n)
		}
	}
}

// TestAgeFitsItsColumn: every age, up to a decade, fits the TUI's AGE column of
// 5 cells.
func TestAgeFitsItsColumn(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for d := time.Duration(0); d < 10*365*24*time.Hour; d += d/7 + 13*time.Second {
		if got := Age(now, now.Add(-d)); len(got) > 5 {
			t.Fatalf("Age(%s ago) = %q: %d cells", d, got, len(got))
		}
	}
	if got := Age(now, now.Add(-800*24*time.Hour)); got != "2y" {
		t.Errorf("800 days: %q", got)
	}
}

func TestSpan(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{42 * time.Second, "42s"},
		{47 * time.Minute, "47m"},
		{time.Hour, "1h"},
		{2*time.Hour + 30*time.Minute, "2h30m"},
		{52 * time.Hour, "2d4h"},
		{72 * time.Hour, "3d"},
	} {
		if got := Span(c.d); got != c.want {
			t.Errorf("Span(%s) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestWrapHanging: the first line keeps its leading spaces, the rest take the
// indent, and each line fits the width.
func TestWrapHanging(t *testing.T) {
	got := WrapHanging("  Job migrate: Failed: BackoffLimitExceeded after three tries", 30, "    ")
	want := "  Job migrate: Failed:\n    BackoffLimitExceeded after\n    three tries\n"
	if got != want {
		t.Errorf("WrapHanging = %q, want %q", got, want)
	}
	if got := WrapHanging("short", 30, "  "); got != "short\n" {
		t.Errorf("a short line: %q", got)
	}
}

// TestWrapCells: a long path breaks after a slash, a word with no break is cut
// where the line ends, and no line is wider than the width; a width of 0 leaves
// the text alone.
func TestWrapCells(t *testing.T) {
	if got := WrapCells("Get https://example.com/api/v1/namespaces/default/secrets now", 24); got != "Get https://example.com/\napi/v1/namespaces/\ndefault/secrets now" {
		t.Errorf("a path: %q", got)
	}
	if got := WrapCells("abcdefghijklmnop", 6); got != "abcdef\nghijkl\nmnop" {
		t.Errorf("a long word: %q", got)
	}
	for _, l := range strings.Split(WrapCells("values, values, values, values, values,", 8), "\n") {
		if n := len([]rune(l)); n > 8 {
			t.Errorf("line %q has %d cells", l, n)
		}
	}
	if got := WrapCells("left alone", 0); got != "left alone" {
		t.Errorf("width 0: %q", got)
	}
}

// TestWrapCellsJoins: at every width, a flag in brackets and a size are never
// split across lines, and the text comes back as it was, without the joins.
func TestWrapCellsJoins(t *testing.T) {
	s := "Keeping fewer revisions (--history-max) frees 1.9 MiB of the 2 GiB budget; see --max-write-chunks."
	for w := 20; w <= len(s); w++ {
		got := WrapCells(s, w)
		if strings.ContainsAny(got, string([]rune{joinedHyphen, joinedSpace})) {
			t.Fatalf("width %d: a join is left in %q", w, got)
		}
		if strings.Join(strings.Fields(got), " ") != s {
			t.Fatalf("width %d: the text changed: %q", w, got)
		}
		for _, whole := range []string{"(--history-max)", "1.9 MiB", "2 GiB", "--max-write-chunks."} {
			if !strings.Contains(got, whole) {
				t.Errorf("width %d: %q is split: %q", w, whole, got)
			}
		}
		for _, l := range strings.Split(got, "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: line %q is wider", w, l)
			}
		}
	}
}

// TestWrapKeepsSizes: the CLI's wrapping never puts a size's number and unit on
// two lines.
func TestWrapKeepsSizes(t *testing.T) {
	s := "The record takes 1.9 MiB of the 2 GiB allowed (--history-max keeps 10)."
	for w := 10; w <= len(s); w++ {
		got := strings.Join(Wrap(s, w), "\n")
		if strings.Join(strings.Fields(got), " ") != s {
			t.Fatalf("width %d: the text changed: %q", w, got)
		}
		for _, whole := range []string{"1.9 MiB", "2 GiB"} {
			if !strings.Contains(got, whole) {
				t.Errorf("width %d: %q is split: %q", w, whole, got)
			}
		}
	}
}
