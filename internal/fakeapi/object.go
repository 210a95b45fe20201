package fakeapi

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
)

// The objects the store holds: how each is read, prepared, validated and
// matched against a list's selectors.

// object is what the store keeps: every typed API object is both.
type object interface {
	runtime.Object
	metav1.Object
}

// asObject takes a copy of obj, refusing what has no object metadata.
func asObject(obj runtime.Object) (object, error) {
	o, ok := obj.DeepCopyObject().(object)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%T has no object metadata", obj))
	}
	return o, nil
}

func copyOf(o object) object { return o.DeepCopyObject().(object) }

// qualifiedKind names obj's kind for Invalid errors, as the API server does.
func qualifiedKind(obj runtime.Object, gvr schema.GroupVersionResource) schema.GroupKind {
	if gvks, _, err := scheme.Scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		return gvks[0].GroupKind()
	}
	return schema.GroupKind{Group: gvr.Group, Kind: gvr.Resource}
}

// prepare applies the server-side defaulting and conversion that matter here, and
// drops apiVersion and kind: typed clients of a real server return objects without
// them.
func prepare(o object) {
	o.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	o.SetManagedFields(nil)
	if s, ok := o.(*corev1.Secret); ok {
		prepareSecret(s)
	}
}

func validateCreate(o object, namespaced bool) field.ErrorList {
	switch o := o.(type) {
	case *corev1.Secret:
		return validateSecret(o)
	case *corev1.ConfigMap:
		return validateConfigMap(o)
	}
	return validateGenericCreate(o, namespaced)
}

func validateUpdate(o, old object) field.ErrorList {
	switch o := o.(type) {
	case *corev1.Secret:
		if oldSecret, ok := old.(*corev1.Secret); ok {
			return validateSecretUpdate(o, oldSecret)
		}
	case *corev1.ConfigMap:
		if oldCM, ok := old.(*corev1.ConfigMap); ok {
			return validateConfigMapUpdate(o, oldCM)
		}
	}
	return validateGenericUpdate(o, old)
}

// selectors parses a list's selectors, refusing what the API server refuses, in its
// words.
func selectors(gvr schema.GroupVersionResource, opts metav1.ListOptions) (labels.Selector, fields.Selector, error) {
	ls, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	fs, err := fields.ParseSelector(opts.FieldSelector)
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	if err := checkFieldSelector(fs, gvr == secretsGVR, gvr == eventsGVR); err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	return ls, fs, nil
}

func matches(o object, ls labels.Selector, fs fields.Selector) bool {
	return ls.Matches(labels.Set(o.GetLabels())) && fs.Matches(selectableFields(o, o))
}

func isDryRun(dryRun []string) bool { return slices.Contains(dryRun, metav1.DryRunAll) }

// settleNamespace applies the request's namespace to o as the API server does.
func settleNamespace(o object, ns string) error {
	switch {
	case ns == "":
		o.SetNamespace("")
	case o.GetNamespace() == "":
		o.SetNamespace(ns)
	case o.GetNamespace() != ns:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}
