package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxSecretBytes is the API server's limit on the sum of the lengths of a Secret's
// data values (core.MaxSecretSize in kube-apiserver). The same limit bounds a
// ConfigMap's data and binaryData values together.
const MaxSecretBytes = 1 << 20

// immutableSetMsg is kube-apiserver's wording for a change to an immutable Secret
// or ConfigMap.
const immutableSetMsg = "field is immutable when `immutable` is set"

// prepareSecret does to a Secret what kube-apiserver does before validating it:
// stringData is merged into data (its keys win) and dropped, as the v1 to internal
// conversion does, and an empty type defaults to Opaque.
func prepareSecret(s *corev1.Secret) {
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = make(map[string][]byte, len(s.StringData))
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// secretDataBytes is the size the API server holds against MaxSecretBytes.
func secretDataBytes(s *corev1.Secret) int {
	n := 0
	for _, v := range s.Data {
		n += len(v)
	}
	return n
}

// validateSecret mirrors ValidateSecret in kube-apiserver (pkg/apis/core/validation):
// metadata, data keys, total size and the keys each well-known type requires. It
// expects prepareSecret to have run.
func validateSecret(s *corev1.Secret) field.ErrorList {
	errs := genericvalidation.ValidateObjectMetaAccessor(&s.ObjectMeta, true, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))

	dataPath := field.NewPath("data")
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(dataPath.Key(k), k, msg))
		}
	}
	if secretDataBytes(s) > MaxSecretBytes {
		errs = append(errs, field.TooLong(dataPath, "", MaxSecretBytes))
	}

	required := func(keys ...string) {
		for _, k := range keys {
			if _, ok := s.Data[k]; !ok {
				errs = append(errs, field.Required(dataPath.Key(k), ""))
			}
		}
	}
	validJSON := func(k string) {
		b, ok := s.Data[k]
		if !ok {
			required(k)
			return
		}
		if err := json.Unmarshal(b, &map[string]any{}); err != nil {
			errs = append(errs, field.Invalid(dataPath.Key(k), "<secret contents redacted>", err.Error()))
		}
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		validJSON(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		validJSON(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, u := s.Data[corev1.BasicAuthUsernameKey]
		_, p := s.Data[corev1.BasicAuthPasswordKey]
		if !u && !p {
			required(corev1.BasicAuthUsernameKey, corev1.BasicAuthPasswordKey)
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			errs = append(errs, field.Required(dataPath.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		required(corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	return errs
}

// validateSecretUpdate mirrors ValidateSecretUpdate: the type never changes, an
// immutable Secret keeps its data and stays immutable, and the result must still be
// a valid Secret. Metadata (labels, annotations, ownerReferences) may change.
func validateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	errs := genericvalidation.ValidateObjectMetaAccessorUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, genericvalidation.ValidateImmutableField(s.Type, old.Type, field.NewPath("type"))...)
	if old.Immutable != nil && *old.Immutable {
		if s.Immutable == nil || !*s.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableSetMsg))
		}
		if !sameData(s.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableSetMsg))
		}
	}
	return append(errs, validateSecret(s)...)
}

// sameData compares data maps the way a round trip through etcd sees them: an empty
// map and a missing one are the same, and so are an empty value and a missing one.
func sameData(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// sameObject reports whether an update changes nothing, comparing Secret data
// bytewise (reflection over megabytes is slow).
func sameObject(a, b runtime.Object) bool {
	sa, ok1 := a.(*corev1.Secret)
	sb, ok2 := b.(*corev1.Secret)
	if !ok1 || !ok2 {
		return apiequality.Semantic.DeepEqual(a, b)
	}
	if !sameData(sa.Data, sb.Data) {
		return false
	}
	ca, cb := *sa, *sb
	ca.Data, cb.Data = nil, nil
	return apiequality.Semantic.DeepEqual(&ca, &cb)
}

// configMapDataBytes is the size the API server holds against MaxSecretBytes: data
// and binaryData values together.
func configMapDataBytes(cm *corev1.ConfigMap) int {
	n := 0
	for _, v := range cm.Data {
		n += len(v)
	}
	for _, v := range cm.BinaryData {
		n += len(v)
	}
	return n
}

// validateConfigMap mirrors ValidateConfigMap in kube-apiserver: metadata, the keys
// of data and binaryData (a key may not be in both) and their total size, which
// it reports against the whole object (an empty path). Keys are checked in order
// so that the errors are the same from run to run.
func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	errs := genericvalidation.ValidateObjectMetaAccessor(&cm.ObjectMeta, true, genericvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	dataPath, binPath := field.NewPath("data"), field.NewPath("binaryData")
	for _, k := range slices.Sorted(maps.Keys(cm.Data)) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(dataPath.Key(k), k, msg))
		}
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, field.Invalid(dataPath.Key(k), k, "duplicate of key present in binaryData"))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cm.BinaryData)) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(binPath.Key(k), k, msg))
		}
	}
	if configMapDataBytes(cm) > MaxSecretBytes {
		errs = append(errs, field.TooLong(field.NewPath(""), "", MaxSecretBytes))
	}
	return errs
}

// validateConfigMapUpdate mirrors ValidateConfigMapUpdate: an immutable ConfigMap
// keeps its data and binaryData and stays immutable, and the result must still be
// a valid ConfigMap. Metadata may change.
func validateConfigMapUpdate(cm, old *corev1.ConfigMap) field.ErrorList {
	errs := genericvalidation.ValidateObjectMetaAccessorUpdate(&cm.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if old.Immutable != nil && *old.Immutable {
		if cm.Immutable == nil || !*cm.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableSetMsg))
		}
		if !maps.Equal(cm.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableSetMsg))
		}
		if !sameData(cm.BinaryData, old.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableSetMsg))
		}
	}
	return append(errs, validateConfigMap(cm)...)
}

// validateGenericCreate is the metadata validation every resource gets. Names are
// checked as path segments, the loosest rule the API server applies to any kind,
// so that no valid object of another kind is refused.
func validateGenericCreate(m metav1.Object, namespaced bool) field.ErrorList {
	return genericvalidation.ValidateObjectMetaAccessor(m, namespaced, path.ValidatePathSegmentName, field.NewPath("metadata"))
}

// validateGenericUpdate is the metadata validation every update gets.
func validateGenericUpdate(m, old metav1.Object) field.ErrorList {
	return genericvalidation.ValidateObjectMetaAccessorUpdate(m, old, field.NewPath("metadata"))
}

// selectableFields is the set a field selector is matched against: metadata.name
// and metadata.namespace for every resource, plus type for Secrets and the
// fields of eventFields for Events, as the API server offers them.
func selectableFields(obj runtime.Object, m metav1.Object) fields.Set {
	set := fields.Set{"metadata.name": m.GetName(), "metadata.namespace": m.GetNamespace()}
	switch o := obj.(type) {
	case *corev1.Secret:
		set["type"] = string(o.Type)
	case *corev1.Event:
		io := o.InvolvedObject
		set["involvedObject.kind"], set["involvedObject.namespace"], set["involvedObject.name"] = io.Kind, io.Namespace, io.Name
		set["involvedObject.uid"], set["involvedObject.apiVersion"] = string(io.UID), io.APIVersion
		set["involvedObject.resourceVersion"], set["involvedObject.fieldPath"] = io.ResourceVersion, io.FieldPath
		set["reason"], set["reportingComponent"], set["source"], set["type"] = o.Reason, o.ReportingController, o.Source.Component, o.Type
	}
	return set
}

// eventFields are the fields of core/v1 Events a field selector may name,
// besides metadata's (the API server's field label conversion for events).
var eventFields = []string{
	"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
	"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
	"reason", "reportingComponent", "source", "type",
}

// checkFieldSelector rejects field selectors on fields the API server cannot
// select on, with its wording: Secrets have a field label conversion of their own,
// other resources the default one.
func checkFieldSelector(sel fields.Selector, isSecret, isEvent bool) error {
	for _, r := range sel.Requirements() {
		switch {
		case r.Field == "metadata.name", r.Field == "metadata.namespace":
		case isSecret && r.Field == "type":
		case isEvent && slices.Contains(eventFields, r.Field):
		case isSecret, isEvent:
			return fmt.Errorf("field label not supported: %s", r.Field)
		default:
			return fmt.Errorf("%q is not a known field selector: only %q, %q", r.Field, "metadata.name", "metadata.namespace")
		}
	}
	return nil
}
