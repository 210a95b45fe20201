package revdiff

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"reflect"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/release"
)

// testKey fixes the masking key so that tokens are the same on every run.
var testKey = []byte("revdiff-test-key")

func TestMain(m *testing.M) {
	SetMaskKey(testKey)
	os.Exit(m.Run())
}

func TestSensitiveKey(t *testing.T) {
	masked := []string{
		"password", "Password", "PASSWORD", "db-password", "DB_PASSWORD", "dbPassword", "dbpassword",
		"adminPasswords", "passwd", "passphrase", "redisPass", "htpasswd", "passwordHash",
		"apiKey", "api_key", "APIKey", "apikey", "private_key", "privateKey", "tls.key", "TLSKey",
		"key", "keys", "sshKeys", "AWS_SECRET_ACCESS_KEY", "accessKey",
		"secret", "clientSecret", "client-secret", "existingSecret", "secrets", "secretValue",
		"token", "authToken", "AUTH_TOKEN", "accesstoken", "tokens",
		"cert", "caCert", "tls.crt", "cacert", "certificate", "clientCertData", "pem",
		"credentials", "jwt", "keystore",
		lastApplied,
	}
	plain := []string{
		"", "name", "username", "secretName", "secretRef", "secretKeyRef", "tokenTTL", "passwordFile",
		"certManager", "certificateDuration", "keyboard", "monkey", "topologyKey", "publicKey",
		"labelKey", "imagePullSecrets", "AWS_ACCESS_KEY_ID", "bypass", "compass", "tokenizer",
		"secretary", "passthrough", "keyName", "replicaCount", "enabled", "image.tag",
		"automountServiceAccountTokenPath", "caBundle",
	}
	for _, k := range masked {
		if !sensitiveKey(k, false) {
			t.Errorf("sensitiveKey(%q) = false, want true", k)
		}
	}
	for _, k := range plain {
		if sensitiveKey(k, false) {
			t.Errorf("sensitiveKey(%q) = true, want false", k)
		}
	}
	// A bare "key" in a list item or a "...Ref" map names a key.
	if sensitiveKey("key", true) {
		t.Error(`sensitiveKey("key", inRef) = true, want false`)
	}
	if !sensitiveKey("apiKey", true) {
		t.Error(`sensitiveKey("apiKey", inRef) = false, want true`)
	}
}

func TestSplitWords(t *testing.T) {
	tests := map[string]string{
		"dbPassword":            "db password",
		"DB_PASSWORD":           "db password",
		"TLSKey":                "tls key",
		"tls.crt":               "tls crt",
		"sha256Key":             "sha256 key",
		"AWS_SECRET_ACCESS_KEY": "aws secret access key",
		"x-API-token":           "x api token",
		"--":                    "",
	}
	for in, want := range tests {
		if got := strings.Join(splitWords(in), " "); got != want {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMaskToken(t *testing.T) {
	a := maskToken(testKey, "hunter2")
	if a != maskToken(testKey, "hunter2") {
		t.Error("equal values give different tokens")
	}
	if a == maskToken(testKey, "hunter3") {
		t.Error("different values give the same token")
	}
	if a == maskToken([]byte("another key"), "hunter2") {
		t.Error("the token does not depend on the key")
	}
	sum := sha256.Sum256([]byte("hunter2"))
	if strings.Contains(a, hex.EncodeToString(sum[:4])) {
		t.Error("the token is a plain hash of the value")
	}
	if !strings.HasPrefix(a, MaskPrefix) || len(a) != len(maskToken(testKey, strings.Repeat("x", 1000))) {
		t.Errorf("token %q should have the prefix and a fixed length", a)
	}
}

func TestSetMaskKey(t *testing.T) {
	defer SetMaskKey(testKey)
	SetMaskKey(nil)
	a := MaskValues(map[string]any{"password": "x"})["password"]
	SetMaskKey(nil)
	b := MaskValues(map[string]any{"password": "x"})["password"]
	if a == b {
		t.Error("two random keys gave the same token")
	}
	SetMaskKey(testKey)
	if got, want := MaskValues(map[string]any{"password": "x"})["password"], maskToken(testKey, "x"); got != want {
		t.Errorf("fixed key: token %v, want %v", got, want)
	}
}

func TestMaskValues(t *testing.T) {
	tok := func(s string) string { return maskToken(testKey, s) }
	in := map[string]any{
		"replicaCount": float64(2),
		"image":        map[string]any{"repository": "nginx", "tag": "1.27"},
		"auth": map[string]any{
			"enabled":        true,
			"username":       "admin",
			"password":       "s3cr3t-PLANTED",
			"existingSecret": "",
			"secretName":     "db-auth",
		},
		"apiKey": 12345,
		"tls": map[string]any{
			"cert": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
			"key":  "pk",
		},
		"credentials": map[string]any{"aws": map[string]any{"id": "AKIA", "region": "eu"}},
		"extraEnv": []any{
			map[string]any{"name": "DB_PASSWORD", "value": "pw-in-list"},
			map[string]any{"name": "LOG_LEVEL", "value": "debug"},
		},
		"tolerations": []any{map[string]any{"key": "dedicated", "operator": "Equal"}},
		"tokens":      []any{"t1", "t2", false, nil},
		"url":         "postgres://admin:s3cr3t-PLANTED@db/app",
		"typed":       map[string]string{"clientSecret": "cs", "mode": "m"},
		"legacy":      map[any]any{"authToken": "at"},
	}
	want := map[string]any{
		"replicaCount": float64(2),
		"image":        map[string]any{"repository": "nginx", "tag": "1.27"},
		"auth": map[string]any{
			"enabled":        true,
			"username":       "admin",
			"password":       tok("s3cr3t-PLANTED"),
			"existingSecret": tok(""),
			"secretName":     "db-auth",
		},
		"apiKey": tok("12345"),
		"tls": map[string]any{
			"cert": tok("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
			"key":  tok("pk"),
		},
		"credentials": map[string]any{"aws": map[string]any{"id": tok("AKIA"), "region": tok("eu")}},
		"extraEnv": []any{
			map[string]any{"name": "DB_PASSWORD", "value": tok("pw-in-list")},
			map[string]any{"name": "LOG_LEVEL", "value": "debug"},
		},
		"tolerations": []any{map[string]any{"key": "dedicated", "operator": "Equal"}},
		"tokens":      []any{tok("t1"), tok("t2"), false, nil},
		"url":         "postgres://admin:" + tok("s3cr3t-PLANTED") + "@db/app",
		"typed":       map[string]any{"clientSecret": tok("cs"), "mode": "m"},
		"legacy":      map[string]any{"authToken": tok("at")},
	}
	before := deepCopyForTest(in)
	got := MaskValues(in)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MaskValues =\n%#v\nwant\n%#v", got, want)
	}
	if !reflect.DeepEqual(in, before) {
		t.Error("MaskValues modified its input")
	}
	// The copy is deep: changing it leaves the input alone.
	got["image"].(map[string]any)["tag"] = "changed"
	if in["image"].(map[string]any)["tag"] != "1.27" {
		t.Error("MaskValues shares maps with its input")
	}
	if MaskValues(nil) != nil {
		t.Error("MaskValues(nil) should be nil")
	}
}

func deepCopyForTest(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			out[k] = deepCopyForTest(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopyForTest(e)
		}
		return out
	case map[string]string:
		out := map[string]string{}
		for k, e := range t {
			out[k] = e
		}
		return out
	case map[any]any:
		out := map[any]any{}
		for k, e := range t {
			out[k] = e
		}
		return out
	}
	return v
}

func TestValuesYAML(t *testing.T) {
	vals := map[string]any{
		"zeta":  1,
		"alpha": map[string]any{"password": "s3cr3t-PLANTED", "b": []any{"x"}, "a": true},
	}
	tests := []struct {
		name   string
		vals   map[string]any
		reveal bool
		want   string
	}{
		{"masked, sorted", vals, false, "alpha:\n  a: true\n  b:\n  - x\n  password: " + maskToken(testKey, "s3cr3t-PLANTED") + "\nzeta: 1\n"},
		{"revealed, sorted", vals, true, "alpha:\n  a: true\n  b:\n  - x\n  password: s3cr3t-PLANTED\nzeta: 1\n"},
		{"nil", nil, false, "{}\n"},
		{"empty", map[string]any{}, true, "{}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 5 { // map order must not matter
				got, err := ValuesYAML(tt.vals, tt.reveal)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Fatalf("ValuesYAML =\n%s\nwant\n%s", got, tt.want)
				}
			}
		})
	}
}

// A masked value that reads like a name is masked where it sits but not searched
// for elsewhere; one that reads like a secret is scrubbed everywhere.
func TestScrubSkipsNameLikeValues(t *testing.T) {
	SetMaskKey([]byte("fixed-test-key"))
	defer SetMaskKey(testKey)
	manifest := "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: payments-db\nstringData:\n  username: payments\n  password: Zx9-PLANTED-pw\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: payments-api\ndata:\n  url: postgres://payments:Zx9-PLANTED-pw@db/payments\n"
	from := &release.Release{Name: "payments-api", Version: 1, Manifest: manifest, Info: &release.Info{}}
	to := &release.Release{Name: "payments-api", Version: 2, Manifest: strings.ReplaceAll(manifest, "db/payments", "db2/payments"), Info: &release.Info{}}
	res, err := Diff(from, to, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := res.Unified()
	if strings.Contains(out, "Zx9-PLANTED-pw") {
		t.Fatalf("the password leaked into the diff:\n%s", out)
	}
	if !strings.Contains(out, "ConfigMap/payments-api") || !strings.Contains(out, "db2/payments") {
		t.Fatalf("a name-like masked value (the user name) masked ordinary text elsewhere:\n%s", out)
	}
}
