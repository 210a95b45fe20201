package dialog

import (
	"strings"
	"testing"
)

func TestWindowLines(t *testing.T) {
	l := []string{"a", "b", "c", "d", "e", "f"}
	cases := []struct {
		n, keep int
		want    string
	}{
		{6, -1, "a b c d e f"},
		{4, -1, "a b c …"},
		{3, 0, "a b …"},
		{3, 3, "… d …"},
		{4, 3, "… d e f"},
		{4, 1, "a b c …"},
		{3, 5, "… e f"},
		{4, 5, "… d e f"},
	}
	for _, c := range cases {
		if got := strings.Join(windowLines(l, c.n, c.keep), " "); got != c.want {
			t.Errorf("n %d keep %d: %q, want %q", c.n, c.keep, got, c.want)
		}
	}
}
