package main

// Issue 31: the chunk layout's cells and their meaning in render/layout.go.
// A file of its own, so that the tables others add to stay short.
func init() {
	mutants = append(mutants, render3Mutants...)
}

var render3Mutants = []mutant{
	{
		Name:      "layout-missing-not-failed",
		File:      "render/layout.go",
		Find:      "case storage.StateMissing, storage.StateCorrupt, storage.StateWrongTyp:",
		Replace:   "case storage.StateCorrupt, storage.StateWrongTyp:",
		Guarantee: "a missing chunk's state means Failed",
		Kill:      []target{{"./render", "TestLayoutTable"}},
	},
	{
		Name:      "layout-mismatch-shown-ok",
		File:      "render/layout.go",
		Find:      `row = append(row, check(s.HashOK, "ok", "MISMATCH"), check(s.Owned, "ok", "missing"))`,
		Replace:   `row = append(row, check(true, "ok", "MISMATCH"), check(s.Owned, "ok", "missing"))`,
		Guarantee: "a chunk whose hash does not match shows MISMATCH, meaning Failed",
		Kill:      []target{{"./render", "TestLayoutTable"}},
	},
}
