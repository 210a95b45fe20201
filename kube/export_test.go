package kube

// SetMetadataPage sets the page size of metadata lists for a test and returns
// what restores it.
func SetMetadataPage(n int64) (restore func()) {
	old := metadataPage
	metadataPage = n
	return func() { metadataPage = old }
}

// SetMaxSelectorKeys sets how many keys a chunk listing may name for a test and
// returns what restores it.
func SetMaxSelectorKeys(n int) (restore func()) {
	old := maxSelectorKeys
	maxSelectorKeys = n
	return func() { maxSelectorKeys = old }
}
