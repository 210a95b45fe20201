package fakeapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// Lists: the objects a selector picks, a page at a time, with continue
// tokens that hold the page's resourceVersion.

// selectLocked returns the stored objects of gvr in ns (all namespaces when ns is
// empty) that match the selectors and whose key sorts after the key after, in key
// order, at most limit of them when limit is positive. more tells whether any
// object, matching or not, follows the last one returned: the API server's watch
// cache hands out a continue token on that ground, so a selective list can end
// with an empty page. The objects are the stored ones: copy before handing out.
func (s *store) selectLocked(gvr schema.GroupVersionResource, ns string, ls labels.Selector, fs fields.Selector, after string, limit int64) (out []object, more bool) {
	objs := s.objects[gvr]
	keys := slices.Sorted(maps.Keys(objs))
	keys = slices.DeleteFunc(keys, func(k string) bool {
		return (ns != "" && !strings.HasPrefix(k, ns+"/")) || (after != "" && k <= after)
	})
	for i, k := range keys {
		if matches(objs[k], ls, fs) {
			out = append(out, objs[k])
		}
		if limit > 0 && int64(len(out)) >= limit {
			return out, i < len(keys)-1
		}
	}
	return out, false
}

// continueToken has the shape of kube-apiserver's continue tokens (base64url JSON):
// the key to start after, relative to the list's prefix, and a resourceVersion.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	Start           string `json:"start"`
}

func encodeContinue(ns, lastKey string, rv uint64) string {
	start := lastKey
	if ns != "" {
		start = strings.TrimPrefix(lastKey, ns+"/")
	}
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: int64(rv), Start: start + "\x00"})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeContinue returns the key a continued list starts after, refusing tokens
// as storage.DecodeContinue does, with its wording.
func decodeContinue(ns, tok string) (after string, err error) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return "", fmt.Errorf("continue key is not valid: %v", err)
	}
	var t continueToken
	if err := json.Unmarshal(b, &t); err != nil {
		return "", fmt.Errorf("continue key is not valid: %v", err)
	}
	switch {
	case t.APIVersion != "meta.k8s.io/v1":
		return "", fmt.Errorf("continue key is not valid: server does not recognize this encoded version %v", t.APIVersion)
	case t.ResourceVersion == 0:
		return "", errors.New("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	case t.Start == "":
		return "", errors.New("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
	}
	start := strings.TrimSuffix(t.Start, "\x00")
	if ns != "" {
		start = ns + "/" + start
	}
	return start, nil
}

// list returns copies of the matching objects, one page of them when opts.Limit is
// set, with the list's metadata. Unlike etcd, later pages are read from the current
// state rather than from the first page's snapshot.
func (s *store) list(gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions) ([]object, metav1.ListMeta, error) {
	return listAs(s, gvr, ns, opts, copyOf)
}

// listAs is list, each object handed out as as makes it from the stored one,
// under the store's lock: the metadata client copies the metadata alone,
// not megabytes of Secret data it would drop.
func listAs[T any](s *store, gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions, as func(object) T) ([]T, metav1.ListMeta, error) {
	ls, fs, err := selectors(gvr, opts)
	if err != nil {
		return nil, metav1.ListMeta{}, err
	}
	var after string
	if opts.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return nil, metav1.ListMeta{}, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		if after, err = decodeContinue(ns, opts.Continue); err != nil {
			return nil, metav1.ListMeta{}, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	found, more := s.selectLocked(gvr, ns, ls, fs, after, opts.Limit)
	lm := metav1.ListMeta{ResourceVersion: strconv.FormatUint(s.rv, 10)}
	if more {
		last := found[len(found)-1]
		lm.Continue = encodeContinue(ns, storageKey(last.GetNamespace(), last.GetName()), s.rv)
		if ls.Empty() && fs.Empty() {
			all, _ := s.selectLocked(gvr, ns, ls, fs, after, 0)
			rest := int64(len(all) - len(found))
			lm.RemainingItemCount = &rest
		}
	}
	out := make([]T, len(found))
	for i, o := range found {
		out[i] = as(o)
	}
	return out, lm, nil
}

// listTyped is list as a typed list object (a *corev1.SecretList for Secrets).
func (s *store) listTyped(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns string, opts metav1.ListOptions) (runtime.Object, error) {
	items, lm, err := s.list(gvr, ns, opts)
	if err != nil {
		return nil, err
	}
	list, err := scheme.Scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("no list type for %s: %w", gvk, err))
	}
	objs := make([]runtime.Object, len(items))
	for i, o := range items {
		objs[i] = o
	}
	if err := meta.SetList(list, objs); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	la, err := meta.ListAccessor(list)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	la.SetResourceVersion(lm.ResourceVersion)
	la.SetContinue(lm.Continue)
	la.SetRemainingItemCount(lm.RemainingItemCount)
	return list, nil
}
