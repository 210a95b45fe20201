package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
)

func TestLargestSecret(t *testing.T) {
	lc := newLayoutCache()
	row := func(stored int64, chunks int) kube.RevisionRow {
		return kube.RevisionRow{StorageNamespace: "ns", Key: "k", ResourceVersion: "1", Known: true,
			Summary: storage.Summary{StoredBytes: stored, Chunks: chunks}}
	}
	for _, tc := range []struct {
		name      string
		row       kube.RevisionRow
		chunkSize int
		want      int64
		ok        bool
	}{
		{"unknown", kube.RevisionRow{}, 100, 0, false},
		{"one Secret", row(700, 1), 1000, 700, true},
		{"configured chunk size fits", row(2500, 3), 1000, 1000, true},
		// Written with another chunk size: stored/n rounded up.
		{"other chunk size", row(2500, 3), 400, 834, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := largestSecret(tc.row, tc.chunkSize, lc)
			if got != tc.want || ok != tc.ok {
				t.Errorf("largestSecret = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	// A layout seen is exact.
	lc.put(row(2500, 3), &storage.Layout{Index: storage.SecretInfo{Bytes: 900}, Chunks: []storage.SecretInfo{{Bytes: 950}, {Bytes: 10}}})
	if got, _ := largestSecret(row(2500, 3), 1000, lc); got != 950 {
		t.Errorf("with a layout known, largestSecret = %d, want 950", got)
	}
}

func TestFitColumns(t *testing.T) {
	cols := []column{
		{title: "A", width: 10},
		{title: "B", width: 10, prio: 2},
		{title: "C", width: 10, prio: 1},
		{title: "D", width: 10, flex: 1},
	}
	titles := func(cs []column) (s string) {
		for _, c := range cs {
			s += c.title
		}
		return s
	}
	// Gutter 2 + 4 columns of 10 + 3 spaces = 45.
	if got := fitColumns(cols, 45); titles(got) != "ABCD" || got[3].width != 10 {
		t.Errorf("at 45: %s, D %d wide", titles(got), got[3].width)
	}
	if got := fitColumns(cols, 60); got[3].width != 25 {
		t.Errorf("at 60 the flexible column is %d wide, want 25", got[3].width)
	}
	if got := fitColumns(cols, 40); titles(got) != "ABD" {
		t.Errorf("at 40: %s, want the lowest priority (C) dropped", titles(got))
	}
	if got := fitColumns(cols, 25); titles(got) != "AD" {
		t.Errorf("at 25: %s, want AD", titles(got))
	}
}

func TestBarsAndSparks(t *testing.T) {
	st := DefaultStyles()
	for _, tc := range []struct {
		share float64
		want  string
	}{
		{0, "····"},
		{0.001, "▏···"},
		{0.5, "██··"},
		{0.5625, "██▎·"},
		{1, "████"},
		{3, "████"},
	} {
		if got := ansi.Strip(bar(tc.share, 4, &st.GaugeLow, &st.GaugeEmpty)); got != tc.want {
			t.Errorf("bar(%v) = %q, want %q", tc.share, got, tc.want)
		}
	}
	if got := sparkline([]int64{0, 50, -1, 100}); got != "▁▅ █" {
		t.Errorf("sparkline = %q", got)
	}
}

func TestClipLines(t *testing.T) {
	long := string(make([]byte, maxLineBytes*3))
	got := clipLines("short\n" + long + "\nend")
	if len(got) > maxLineBytes+100 || !containsAll(got, "short\n", "more on this line]\nend") {
		t.Fatalf("clipLines kept %d bytes: %q", len(got), got[len(got)-60:])
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
