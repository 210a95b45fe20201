// Package status is the screen that says whether a release's objects are
// healthy, as Helm 4 waits on them (kstatus), with its hooks, following the
// cluster while it is open.
package status
