// Package pods holds the screens the resources view opens on one object of a
// release: the Pods of a workload with their events, a container's log, and
// an object's description (conditions, owner, images, probes).
package pods
