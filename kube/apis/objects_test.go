package apis

import (
	"strings"
	"testing"
)

func TestSplitDocuments(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"helm's manifest", "---\n# Source: a\nkind: A\n---\n# Source: b\nkind: B\n", []string{"---\n# Source: a\nkind: A\n", "---\n# Source: b\nkind: B\n"}},
		{"no leading marker", "kind: A\n---\nkind: B", []string{"kind: A\n", "---\nkind: B"}},
		{"marker with a comment", "kind: A\n--- # two\nkind: B\n", []string{"kind: A\n", "--- # two\nkind: B\n"}},
		{"dashes in a value are not a marker", "kind: A\ndata:\n  x: |\n    ---x\n    a\n", []string{"kind: A\ndata:\n  x: |\n    ---x\n    a\n"}},
		{"----- is not a marker", "a: 1\n-----\n", []string{"a: 1\n-----\n"}},
		{"empty", "", []string{""}},
		{"crlf", "---\r\nkind: A\r\n---\r\nkind: B\r\n", []string{"---\r\nkind: A\r\n", "---\r\nkind: B\r\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, d := range splitDocuments(tc.text) {
				got = append(got, tc.text[d.start:d.end])
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestObjectsOf(t *testing.T) {
	text := "---\n# Source: shop/templates/pdb.yaml\napiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: shop\n  namespace: web\n" +
		"---\n# Source: shop/templates/hpa.yaml\n\"apiVersion\": \"autoscaling/v2beta2\"\n'kind': 'HorizontalPodAutoscaler'\nmetadata: {name: 'shöp-é'}\n" +
		"---\n# Source: shop/templates/empty.yaml\n# nothing rendered\n" +
		"---\n{\"metadata\": {\"name\": \"é-json\"}, \"kind\": \"Ingress\", \"apiVersion\": \"extensions/v1beta1\"}\n" +
		"---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: batch/v1beta1\n  kind: CronJob\n  metadata:\n    name: nightly\n" +
		"---\napiVersion: !!str apps/v1beta2\nkind: Deployment\nmetadata:\n  name: tagged\n"
	objs, errs := objectsOf(text, "")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := []struct{ ref, apiVersion, template, span string }{
		{"PodDisruptionBudget/web/shop", "policy/v1beta1", "shop/templates/pdb.yaml", "policy/v1beta1"},
		{"HorizontalPodAutoscaler/shöp-é", "autoscaling/v2beta2", "shop/templates/hpa.yaml", "autoscaling/v2beta2"},
		{"Ingress/é-json", "extensions/v1beta1", "", "extensions/v1beta1"},
		{"CronJob/nightly", "batch/v1beta1", "", "batch/v1beta1"},
		{"Deployment/tagged", "apps/v1beta2", "", ""}, // a tag: read, not rewritable in place
	}
	if len(objs) != len(want) {
		t.Fatalf("got %d objects %+v, want %d", len(objs), objs, len(want))
	}
	for i, w := range want {
		o := objs[i]
		if o.Ref() != w.ref || o.APIVersion != w.apiVersion || o.Template != w.template {
			t.Errorf("object %d: got %s %s %q, want %s %s %q", i, o.Ref(), o.APIVersion, o.Template, w.ref, w.apiVersion, w.template)
		}
		got := ""
		if o.apiVersion.valid() {
			got = text[o.apiVersion.start:o.apiVersion.end]
		}
		if got != w.span {
			t.Errorf("object %d: the apiVersion's span holds %q, want %q", i, got, w.span)
		}
	}
	if !objs[3].listItem || objs[0].listItem {
		t.Error("only the List's item is marked as one")
	}

	_, errs = objectsOf("apiVersion: v1\nkind: ConfigMap\n---\nkind: [unclosed\n", "pre-install-job")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "hook pre-install-job: document 2") {
		t.Fatalf("an unreadable document is named with its hook: %v", errs)
	}
}
