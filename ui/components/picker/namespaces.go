package picker

import (
	"context"
	"sort"

	tea "charm.land/bubbletea/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/ui/common"
)

// AllNamespaces is the picker's entry for looking at every namespace.
const AllNamespaces = "all namespaces"

// NamespaceChosenMsg switches the release list to a namespace, or to all of them.
type NamespaceChosenMsg struct {
	Ns  string
	All bool
}

// Namespaces chooses the namespace the release list looks at among the
// cluster's namespaces (seen until they are listed), "all namespaces" first.
func Namespaces(c common.Common, seen []string) *Picker {
	p := New(c, pickNamespace, "namespace: ", seen)
	p.heading, p.noun, p.first = "Look at releases in", "namespaces", []string{AllNamespaces}
	p.load = loadNamespaces(c.Ctx, c.Client)
	p.chosen = func(name string) tea.Msg {
		if name == AllNamespaces {
			return NamespaceChosenMsg{All: true}
		}
		return NamespaceChosenMsg{Ns: name}
	}
	return p
}

// loadNamespaces lists the cluster's namespaces for the picker. A user who may
// not list namespaces can still type one.
func loadNamespaces(ctx context.Context, c *kube.Client) tea.Cmd {
	return func() tea.Msg {
		list, err := c.Clientset().CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			return namesLoadedMsg{kind: pickNamespace, err: kube.Explain(err, "list", "namespaces", "")}
		}
		names := make([]string, 0, len(list.Items))
		for _, ns := range list.Items {
			names = append(names, ns.Name)
		}
		sort.Strings(names)
		return namesLoadedMsg{kind: pickNamespace, names: names}
	}
}
