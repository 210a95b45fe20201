package main

// Issue 31's house work: the judgement of a stuck revision, now a pure
// function of kube (kube.Stuck) rather than a method of the Client. A file of
// its own, so that the tables others add to stay short.
func init() {
	mutants = append(mutants, opsarrowsMutants...)
}

var opsarrowsMutants = []mutant{
	{
		Name:      "stuck-bound-exclusive",
		File:      "kube/client.go",
		Find:      "if now.Sub(r.Updated) >= after {",
		Replace:   "if now.Sub(r.Updated) > after {",
		Guarantee: "a revision in flight for --stuck-after or longer is stuck (ls STUCK, fix-stuck): at the bound itself, not only past it",
		Kill:      []target{{"./kube", "TestStuck"}},
	},
}
