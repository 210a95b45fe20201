package main

import (
	"fmt"
	"os"
	"strings"
)

// BENCHMARKS.md holds, in order: the small fleet's report (make bench), the large
// fleet's section (make bench-large), from largeMarker, and what was measured by
// hand, from handMarker. Each run rewrites its own part and keeps the others. The
// large fleet's target rows sit in the small report's Targets table, marked by
// largeTargetPrefix, and are carried over when either run rewrites it.

// handMarker starts the part of BENCHMARKS.md written by hand, which a new
// report keeps.
const handMarker = "<!-- measured by hand below: make bench keeps what follows -->"

// largeMarker starts the large fleet's section, which ends at handMarker.
const largeMarker = "<!-- the large fleet: make bench-large writes from here to the part measured by hand -->"

// largeTargetPrefix starts each of the large fleet's rows in the Targets table.
const largeTargetPrefix = "| Large fleet: "

type reportPart int

const (
	smallReport reportPart = iota
	largeSection
)

// writeReport writes text as its part of the report file -out names (by default
// BENCHMARKS.md at full scale, none otherwise).
func writeReport(o options, text string, part reportPart) error {
	out := o.out
	if out == "" && o.scale == 1 {
		out = "BENCHMARKS.md"
	}
	if out == "" || out == "-" {
		return nil
	}
	old, err := os.ReadFile(out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var doc string
	if part == smallReport {
		doc = mergeSmall(string(old), text)
	} else {
		doc = mergeLarge(string(old), text)
	}
	if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "report: written to", out)
	return nil
}

// mergeSmall puts a new small report in place of old's, keeping old's large
// section, hand-measured part and large target rows.
func mergeSmall(old, text string) string {
	text = strings.TrimRight(text, "\n") + "\n"
	if i := strings.Index(old, largeMarker); i >= 0 {
		// The large section's own Targets table holds its rows.
		section := old[i:]
		if j := strings.Index(section, handMarker); j >= 0 {
			section = section[:j]
		}
		text = withTargetRows(text, targetRows(section, largeTargetPrefix))
	}
	if i := firstIndex(old, largeMarker, handMarker); i >= 0 {
		text += "\n" + old[i:]
	}
	return text
}

// mergeLarge puts a new large section (whose own Targets table lists its rows)
// in place of old's, with its target rows in the small report's Targets table,
// keeping the small report and the hand-measured part.
func mergeLarge(old, section string) string {
	head, hand := old, ""
	if i := firstIndex(old, largeMarker, handMarker); i >= 0 {
		head = old[:i]
	}
	if i := strings.Index(old, handMarker); i >= 0 {
		hand = old[i:]
	}
	head = strings.TrimRight(withTargetRows(head, targetRows(section, largeTargetPrefix)), "\n") + "\n"
	doc := head + "\n" + largeMarker + "\n" + strings.TrimRight(section, "\n") + "\n"
	if hand != "" {
		doc += "\n" + hand
	}
	return doc
}

// firstIndex is the index in s of the first of marks found, or -1.
func firstIndex(s string, marks ...string) int {
	for _, m := range marks {
		if i := strings.Index(s, m); i >= 0 {
			return i
		}
	}
	return -1
}

// targetRows returns the lines of doc that start with prefix.
func targetRows(doc, prefix string) []string {
	var rows []string
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, prefix) {
			rows = append(rows, l)
		}
	}
	return rows
}

// withTargetRows returns doc with the large fleet's rows of its "## Targets" table
// replaced by rows, placed at the table's end. A doc without that table is
// returned as it is.
func withTargetRows(doc string, rows []string) string {
	start := strings.Index(doc, "\n## Targets\n")
	if start < 0 {
		return doc
	}
	// The table runs from its header to the first blank line after it.
	tbl := strings.Index(doc[start:], "\n|")
	if tbl < 0 {
		return doc
	}
	tbl += start + 1
	end := strings.Index(doc[tbl:], "\n\n")
	if end < 0 {
		end = len(doc)
	} else {
		end += tbl + 1
	}
	var keep []string
	for _, l := range strings.Split(strings.TrimRight(doc[tbl:end], "\n"), "\n") {
		if !strings.HasPrefix(l, largeTargetPrefix) {
			keep = append(keep, l)
		}
	}
	keep = append(keep, rows...)
	return doc[:tbl] + strings.Join(keep, "\n") + "\n" + doc[end:]
}
