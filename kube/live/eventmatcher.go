package live

import "regexp"

// eventMatcher tells which events concern the release: those of its objects and
// hook Jobs, and those of the Pods and ReplicaSets their controllers create,
// recognised by the names the controllers give them (a Deployment's ReplicaSet
// NAME-HASH and Pods NAME-HASH-XXXXX, a StatefulSet's Pods NAME-N, a DaemonSet's
// or a Job's Pods NAME-XXXXX, a CronJob's Jobs NAME-N and their Pods). Reading
// each controller's Pods would cost a list per object; names cost nothing.
type eventMatcher struct {
	exact map[string]string // "Kind/ns/name" → its own key
	owned []ownedName
}

type ownedName struct {
	ns, kind string
	re       *regexp.Regexp
	owner    string
}

func newEventMatcher() *eventMatcher { return &eventMatcher{exact: map[string]string{}} }

// add makes the events of kind ns/name, and of what it runs, concern the
// release.
func (m *eventMatcher) add(kind, ns, name string) {
	self := kind + "/" + name
	m.exact[kind+"/"+ns+"/"+name] = self
	q := regexp.QuoteMeta(name)
	own := func(k, pattern string) {
		m.owned = append(m.owned, ownedName{ns: ns, kind: k, re: regexp.MustCompile("^" + q + pattern + "$"), owner: self})
	}
	const hash, suffix = `-[a-z0-9]+`, `-[a-z0-9]{5}`
	switch kind {
	case "Deployment":
		own("ReplicaSet", hash)
		own("Pod", hash+suffix)
	case "StatefulSet":
		own("Pod", `-[0-9]+`)
	case "DaemonSet", "Job":
		own("Pod", suffix)
	case "ReplicaSet":
		own("Pod", suffix)
	case "CronJob":
		own("Job", `-[0-9]+`)
		own("Pod", `-[0-9]+`+suffix)
	}
}

// match returns the object an event about kind ns/name concerns ("" for the
// object itself), and whether it concerns the release at all.
func (m *eventMatcher) match(kind, ns, name string) (forKey string, ok bool) {
	if _, ok := m.exact[kind+"/"+ns+"/"+name]; ok {
		return "", true
	}
	for _, o := range m.owned {
		if o.kind == kind && o.ns == ns && o.re.MatchString(name) {
			return o.owner, true
		}
	}
	return "", false
}
