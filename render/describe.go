package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/chunkview/chunkview/internal/human"
	"github.com/chunkview/chunkview/kube/live"
)

// DescribeOf is a description as both front ends show it, as of now: the
// object and its age, its owner, its conditions (one line each, a condition
// that is not True marked), then each container's image and probes.
func DescribeOf(d *live.Description, now time.Time) []Line {
	out := []Line{{Text: fmt.Sprintf("%s %s/%s · created %s ago", d.Kind, d.Namespace, d.Name, human.Age(now, d.Created))}}
	owner := "none"
	if len(d.Owners) > 0 {
		owner = strings.Join(d.Owners, ", ")
	}
	out = append(out, Line{Text: "Owner: " + owner, Depth: 1})
	if d.Node != "" {
		out = append(out, Line{Text: "Node: " + d.Node, Depth: 1})
	}
	out = append(out, Line{Text: "Conditions:"})
	if len(d.Conditions) == 0 {
		out = append(out, Line{Text: "none", Meaning: Muted, Depth: 1})
	}
	for _, c := range d.Conditions {
		s := fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != "" {
			s += " " + c.Reason
		}
		if !c.LastTransition.IsZero() {
			s += fmt.Sprintf(" (%s ago)", human.Age(now, c.LastTransition))
		}
		if c.Message != "" {
			s += ": " + OneLine(c.Message)
		}
		out = append(out, Line{Text: s, Meaning: conditionMeaning(c), Depth: 1})
	}
	out = append(out, Line{Text: "Containers:"})
	for _, c := range d.Containers {
		name := c.Name
		if c.Init {
			name += " (init)"
		}
		out = append(out, Line{Text: name + ": " + c.Image, Depth: 1})
		for _, p := range [][2]string{{"Liveness", c.Liveness}, {"Readiness", c.Readiness}, {"Startup", c.Startup}} {
			if p[1] != "" {
				out = append(out, Line{Text: p[0] + ": " + p[1], Depth: 2})
			}
		}
		if c.Liveness == "" && c.Readiness == "" && c.Startup == "" {
			out = append(out, Line{Text: "no probes", Meaning: Muted, Depth: 2})
		}
	}
	return out
}

// conditionMeaning is what a condition says: True is well, except for the
// conditions that say something went wrong (a Job's Failed, a Pod's
// DisruptionTarget, a Deployment's ReplicaFailure); False of those is well.
func conditionMeaning(c live.Condition) Meaning {
	bad := c.Type == "Failed" || c.Type == "FailureTarget" || c.Type == "ReplicaFailure" || c.Type == "DisruptionTarget"
	switch {
	case c.Status == "Unknown":
		return Warning
	case (c.Status == "True") != bad:
		return OK
	case bad:
		return Failed
	}
	return Warning
}
