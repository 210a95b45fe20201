// Package apis finds the objects of a release that use a Kubernetes API the
// cluster no longer serves, and rewrites a release's manifest and hooks onto the
// versions that replace them.
//
// When Kubernetes stops serving an API version, Helm can no longer upgrade,
// roll back or uninstall a release whose stored manifest still uses it: it
// builds the objects of the stored manifest first, and that fails with "no
// matches for kind". This package is the pure core of chunkview's answer, with
// no cluster access of its own:
//
//   - Served is what the cluster serves, built from one discovery pass (built-in
//     kinds and custom resources alike: a CRD whose old version was removed from
//     spec.versions no longer lists it);
//   - Check reads a revision's manifest and hooks and reports each object whose
//     apiVersion and kind the cluster does not serve, and, from the lifecycle
//     data k8s.io/api generates (APILifecycleDeprecated, APILifecycleRemoved,
//     APILifecycleReplacement), each one deprecated and due for removal, for the
//     cluster's version or a target version;
//   - Served.Successor names the served version that replaces a removed one: the
//     lifecycle data's replacement, else the table of removals since 1.16 in
//     removals.go, else a version of the same group that still serves the kind
//     (for a custom resource, a version its CRD still serves);
//   - PlanFix writes the manifest and hooks again with each
//     unserved version replaced by its successor, every other byte kept; a kind
//     with no successor is dropped only when asked.
package apis
