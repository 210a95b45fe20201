package ops

import (
	"context"
	"slices"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
)

// rulesTTL is how long a runner answers from the rules it read of a namespace:
// long enough that an operation's apply reuses its plan's (the CLI's are a
// second apart), short enough that a grant or a revocation since a screen was
// opened is seen at the next operation.
const rulesTTL = 30 * time.Second

// rulesCache holds the SelfSubjectRulesReview of each namespace a runner asked
// about, with when it was read.
type rulesCache struct {
	mu    sync.Mutex
	byNS  map[string]rulesAnswer
	now   func() time.Time
	fetch func(ctx context.Context, ns string) (*authorizationv1.SubjectRulesReviewStatus, error)
}

type rulesAnswer struct {
	status *authorizationv1.SubjectRulesReviewStatus
	at     time.Time
}

// rules returns the rules the user has in namespace ns, read once per rulesTTL.
func (c *rulesCache) rules(ctx context.Context, ns string) (*authorizationv1.SubjectRulesReviewStatus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.byNS[ns]; ok && c.now().Sub(a.at) < rulesTTL {
		return a.status, nil
	}
	st, err := c.fetch(ctx, ns)
	if err != nil {
		return nil, err
	}
	if c.byNS == nil {
		c.byNS = map[string]rulesAnswer{}
	}
	c.byNS[ns] = rulesAnswer{status: st, at: c.now()}
	return st, nil
}

// rulesGrant reports whether one of rules allows access a as RBAC reads it: the
// verb, the API group and the resource each listed or "*", and no resource
// names (which allow only the objects they name).
func rulesGrant(rules []authorizationv1.ResourceRule, a Access) bool {
	for _, rule := range rules {
		if len(rule.ResourceNames) > 0 {
			continue
		}
		if matches(rule.Verbs, a.Verb) && matches(rule.APIGroups, a.Resource.Group) && matches(rule.Resources, a.Resource.Resource) {
			return true
		}
	}
	return false
}

// matches reports whether list holds want or "*".
func matches(list []string, want string) bool {
	return slices.Contains(list, want) || slices.Contains(list, "*")
}
