package kube

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/chunkview/chunkview/kube/internal/paging"
)

// Namespaces lists the names of the cluster's namespaces, sorted, in pages as
// every listing of kube (a continue token that expired starts it over), through
// the connection's request timeout. The TUI's namespace picker offers them; an
// error says what the user may do (list them, or type a name).
func (c *Client) Namespaces(ctx context.Context) ([]string, error) {
	items, err := paging.All(ctx, func(ctx context.Context, cont string) ([]corev1.Namespace, string, error) {
		list, err := c.cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: metadataPage, Continue: cont})
		if err != nil {
			return nil, "", err
		}
		return list.Items, list.Continue, nil
	})
	if err != nil {
		return nil, Explain(err, "list", "namespaces", "")
	}
	names := make([]string, len(items))
	for i, ns := range items {
		names[i] = ns.Name
	}
	sort.Strings(names)
	return names, nil
}

// NamespaceExists reports whether namespace name exists, by a GET of it: a
// typed namespace (the TUI's :ns) that does not exist is said so, rather than
// read as one without releases. An error says it could not be told (a user
// who may not get namespaces), and what the user may do.
func (c *Client) NamespaceExists(ctx context.Context, name string) (bool, error) {
	_, err := c.cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	}
	return false, Explain(err, "get", "namespaces", "")
}
