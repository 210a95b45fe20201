package main

// Issue 32's requests per operation, the locate: a release looked up by name is
// looked for in the chunked store and in Helm's Secrets with one list of the
// Secrets that carry its name (kube/named.go). Each entry breaks what that list
// must keep of the two it replaces.
func init() {
	mutants = append(mutants, namedMutants...)
}

var namedMutants = []mutant{
	{
		Name:      "named-list-per-store",
		File:      "kube/named.go",
		Find:      "cp.md = prelisted{Interface: c.md, held: held}",
		Replace:   "_ = held",
		Guarantee: "a release looked up by name costs one list of the Secrets that carry its name for the chunked store and Helm's Secrets together",
		Kill:      []target{{"./kube", "TestReleasesNamedListsSecretsOnce"}, {"./cli", "TestOperationRequests"}},
	},
	{
		Name:      "named-list-other-namespace",
		File:      "kube/named.go",
		Find:      "if ns != metav1.NamespaceAll && m.Namespace != ns {",
		Replace:   "if false {",
		Guarantee: "the one list answers each store only with the Secrets of the namespace it looks in: a namesake's record in another namespace is not the release's",
		Kill:      []target{{"./kube", "TestReleasesNamedListsSecretsOnce"}},
		Equivalent: "ReleasesNamed narrows every row to the namespace in view afterwards (Config.inView: a Helm record, unread, by the namespace it is stored in), " +
			"so a record of another namespace that this filter lets through never reaches a caller; the filter keeps each store's answer what the server's would be",
	},
	{
		Name:      "named-list-helm-type-ignored",
		File:      "kube/named.go",
		Find:      "if !sel.Matches(labels.Set(m.Labels)) || helmOnly && !helmRecord(&m) {",
		Replace:   "if !sel.Matches(labels.Set(m.Labels)) || helmOnly && !strings.HasPrefix(m.Name, \"\") {",
		Guarantee: "Helm's Secrets store answered from the one list keeps only Helm's records, as its field selector on the Secret's type does: a Secret of the chart's with the same labels is not a revision",
		Kill:      []target{{"./kube", "TestReleasesNamedListsSecretsOnce"}},
	},
	{
		Name:      "named-list-chunked-as-helm",
		File:      "kube/named.go",
		Find:      "return m.Labels[storage.LabelType] == \"\" || m.Labels[storage.LabelKey] != m.Name",
		Replace:   "return true",
		Guarantee: "a chunked index, named as Helm's records are, is never taken for a record of Helm's Secrets store, which selects its records by the Secret's type",
		Kill:      []target{{"./kube", "TestReleasesNamedListsSecretsOnce"}, {"./cli", "TestRollbackReadsRevisionsTwice"}},
	},
	{
		Name:      "named-list-refusal-repeated",
		File:      "kube/named.go",
		Find:      "if ns == metav1.NamespaceAll && n.denied != nil {",
		Replace:   "if ns == metav1.NamespaceAll && n.denied != nil && false {",
		Guarantee: "a user refused the list of every namespace is refused it once per lookup, not once per store",
		Kill:      []target{{"./kube", "TestReleasesNamedListsSecretsOnce"}},
	},
}
