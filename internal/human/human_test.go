package human

import (
	"strings"
	"testing"
	"time"
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
	if got := Wrap("sh.helm.release.v1.ledger.v3", 10); len(got) != 3 || got[0] != "sh.helm.re" {
		t.Errorf("a long word: %q", got)
	}
	for _, l := range Wrap("ünïcode wörds wrap by runes not bytes", 8) {
		if n := len([]rune(l)); n > 8 {
			t.Errorf("line %q has %d runes", l, n)
		}
	}
}
