package revdiff

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// maskKey holds the HMAC key that masked tokens are derived from. It is random and
// never leaves the process, so a token cannot be brute-forced offline, while equal
// values still get equal tokens within one run.
var maskKey atomic.Pointer[[]byte]

func init() { SetMaskKey(nil) }

// SetMaskKey sets the key that masked tokens are derived from. Tests and golden
// files use it to make tokens reproducible; a nil or empty key draws a fresh random
// key, which is what the package starts with. Results computed before the call keep
// their old tokens, so call it before comparing anything.
func SetMaskKey(key []byte) {
	k := bytes.Clone(key)
	if len(k) == 0 {
		k = make([]byte, 32)
		rand.Read(k) // never fails since Go 1.24
	}
	maskKey.Store(&k)
}

// MaskPrefix starts every masked token; a token reads "<masked:1a2b3c4d>", where
// the hex part is the start of an HMAC-SHA256 of the value under the process key.
const MaskPrefix = "<masked:"

// minScrubLen is the shortest masked value that is also searched for, and masked,
// in the rest of the text (notes, other resources, embedded connection strings).
// Shorter strings are masked where they sit but not searched for, since they would
// hit ordinary words.
const minScrubLen = 8

func maskToken(key []byte, value string) string {
	return tokenWith(hmac.New(sha256.New, key), value)
}

// tokenWith is maskToken with a keyed HMAC made once, for the many tokens of a
// replacer: making one costs as much as the token.
func tokenWith(mac hash.Hash, value string) string {
	mac.Reset()
	mac.Write([]byte(value))
	var sum [sha256.Size]byte
	return MaskPrefix + hex.EncodeToString(mac.Sum(sum[:0])[:4]) + ">"
}

// masker masks values and remembers what it masked, so that a second pass can
// scrub the same secrets wherever else they were copied to. With reveal set it
// masks nothing.
type masker struct {
	reveal  bool
	key     []byte
	secrets map[string]struct{}
}

func newMasker(reveal bool) *masker {
	return &masker{reveal: reveal, key: *maskKey.Load(), secrets: map[string]struct{}{}}
}

// mask returns the token for s and remembers s for scrubbing.
func (m *masker) mask(s string) string {
	m.remember(s)
	return maskToken(m.key, s)
}

// maskBase64 masks a Secret's data value and also remembers the decoded secret.
func (m *masker) maskBase64(s string) string {
	if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s)); err == nil && utf8.Valid(b) {
		m.remember(string(b))
	}
	return m.mask(s)
}

func (m *masker) remember(s string) {
	add := func(v string) {
		if len(v) >= minScrubLen && !strings.HasPrefix(v, MaskPrefix) && !looksLikeName(v) {
			m.secrets[v] = struct{}{}
		}
	}
	add(s)
	add(strings.TrimSpace(s))
	add(base64.StdEncoding.EncodeToString([]byte(s)))
	if strings.Contains(s, "\n") {
		// A multi-line secret (a PEM key, a config file) is re-indented wherever
		// it is embedded, so look for it line by line. PEM armour lines are the
		// same in every certificate and give nothing away.
		for line := range strings.Lines(s) {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "-----") {
				add(line)
			}
		}
	}
}

// replacer returns a replacer that turns every remembered secret into its token,
// or nil when there is nothing to replace.
func (m *masker) replacer() *strings.Replacer {
	if m.reveal || len(m.secrets) == 0 {
		return nil
	}
	olds := make([]string, 0, len(m.secrets))
	for s := range m.secrets {
		olds = append(olds, s)
	}
	// At any position strings.Replacer takes the first old string that matches,
	// in argument order: longest first, so a secret that contains another one is
	// replaced whole.
	slices.SortFunc(olds, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	// A bundle of certificates is remembered line by line: tens of thousands of
	// tokens, made in parts side by side.
	pairs := make([]string, 2*len(olds))
	parts := min(runtime.GOMAXPROCS(0), 1+len(olds)/2048)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			mac := hmac.New(sha256.New, m.key)
			for i := p; i < len(olds); i += parts {
				pairs[2*i], pairs[2*i+1] = olds[i], tokenWith(mac, olds[i])
			}
		})
	}
	wg.Wait()
	return strings.NewReplacer(pairs...)
}

// looksLikeName reports whether s reads like a Kubernetes name or a plain word
// (lowercase letters, digits, dots and dashes, not all digits). Such a value is
// still masked where it sits, but not searched for elsewhere: a database user
// called "payments" would otherwise mask the release's own name in every resource.
func looksLikeName(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r == '-', r == '.':
		case r >= '0' && r <= '9':
			digits++
		default:
			return false
		}
	}
	return digits < len(s)
}

func scrub(r *strings.Replacer, s string) string {
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// Sensitive keys.
//
// A key is split into lower-case words at camelCase boundaries and at any
// character that is not a letter or digit ("dbPassword", "db-password",
// "DB_PASSWORD" and "tls.crt" are all two words). A few modifier words at the end
// are dropped first ("passwordHash", "tokenValue", "certData" count as "password",
// "token", "cert"). The key is sensitive when its last word, or that word without
// a plural "s", is one of secretWords, or a single word ends with one of
// secretSuffixes ("dbpassword", "apikey"). The last word decides, so
// "secretName", "passwordFile", "tokenTTL", "certManager" and "secretKeyRef" name
// or configure a secret without holding one and stay visible.
//
// "key" is sensitive too ("apiKey", "private_key", "tls.key", a bare "key" under
// "tls"), except after a word that makes it an ordinary key ("topologyKey",
// "publicKey", see plainKeyQualifiers), and a bare "key" inside a list item or a
// "...Ref" map, where it names a key (tolerations, matchExpressions, volume items,
// secretKeyRef).
//
// Everything under a sensitive key is masked, down to every leaf, except booleans
// and nulls, which hold no secret. In a map whose "name" or "key" entry holds a
// sensitive name ({name: DB_PASSWORD, value: ...}, as in env lists), the "value"
// entry is masked as well.

var secretWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "pass": true, "pwd": true,
	"htpasswd": true, "secret": true, "token": true, "cert": true, "certificate": true,
	"crt": true, "pem": true, "credential": true, "cred": true, "key": true,
	"apikey": true, "privatekey": true, "secretkey": true, "accesskey": true,
	"keystore": true, "jwt": true,
}

var secretSuffixes = []string{
	"password", "passwd", "passphrase", "secret", "token", "cert", "certificate",
	"apikey", "privatekey", "secretkey", "accesskey",
}

// modifierWords are dropped from the end of a key before its last word decides.
var modifierWords = map[string]bool{
	"hash": true, "hashed": true, "b64": true, "base64": true, "value": true,
	"data": true, "enc": true, "encoded": true, "encrypted": true, "plain": true,
	"plaintext": true, "raw": true, "string": true, "str": true,
}

// plainKeyQualifiers make a following "key" an ordinary, non-secret key.
var plainKeyQualifiers = map[string]bool{
	"topology": true, "label": true, "node": true, "sort": true, "partition": true,
	"routing": true, "cache": true, "lookup": true, "index": true, "primary": true,
	"foreign": true, "field": true, "selector": true, "match": true, "map": true,
	"annotation": true, "public": true, "idempotency": true, "shard": true,
	"group": true, "object": true, "metric": true, "config": true,
}

// plainKeys are well-known keys that would match the rule but only list names of
// Secrets.
var plainKeys = map[string]bool{"imagepullsecrets": true}

// lastApplied is kubectl's copy of an applied object, Secret data included.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// splitWords splits a key into lower-case words at camelCase boundaries and at
// every character that is not a letter or digit.
func splitWords(k string) []string {
	var words []string
	rs := []rune(k)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev) ||
			(unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return words
}

// sensitiveKey reports whether a mapping key holds a secret. inRef tells that the
// key's map is a list item or sits under a "...Ref" key, where a bare "key" names a
// key rather than holding one.
func sensitiveKey(k string, inRef bool) bool {
	if k == lastApplied {
		return true
	}
	words := splitWords(k)
	if len(words) == 0 || plainKeys[strings.Join(words, "")] {
		return false
	}
	for len(words) > 1 && modifierWords[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	last := words[len(words)-1]
	if !secretWords[last] && strings.HasSuffix(last, "s") && secretWords[last[:len(last)-1]] {
		last = last[:len(last)-1]
	}
	if last == "key" {
		if len(words) == 1 {
			return !inRef
		}
		return !plainKeyQualifiers[words[len(words)-2]]
	}
	if secretWords[last] {
		return true
	}
	if len(words) == 1 {
		for _, suf := range secretSuffixes {
			if strings.HasSuffix(last, suf) {
				return true
			}
		}
	}
	return false
}

// lastWord returns the last word of a key, lower-cased.
func lastWord(k string) string {
	w := splitWords(k)
	if len(w) == 0 {
		return ""
	}
	return w[len(w)-1]
}

// namesSecret reports whether a map names a secret in its "name" or "key" entry,
// so that its "value" entry holds one.
func namesSecret(name any, key any) bool {
	for _, v := range []any{name, key} {
		if s, ok := v.(string); ok && sensitiveKey(s, false) {
			return true
		}
	}
	return false
}

// MaskValues returns a deep copy of vals with every value under a sensitive key
// replaced by a masked token, and every other string that contains such a value
// scrubbed of it. It does not modify vals. Maps of other key types and typed
// slices come back as map[string]interface{} and []interface{}.
func MaskValues(vals map[string]interface{}) map[string]interface{} {
	if vals == nil {
		return nil
	}
	m := newMasker(false)
	out := m.maskMap(vals, false, false)
	scrubTree(m.replacer(), out)
	return out
}

// ValuesYAML renders values as YAML with sorted keys, so that the same values
// always give the same text. Unless reveal is set, secrets are masked as by
// MaskValues. Empty values render as "{}".
func ValuesYAML(vals map[string]interface{}, reveal bool) (string, error) {
	if reveal {
		return valuesYAML(newMasker(true).maskMap(vals, false, false))
	}
	return valuesYAML(MaskValues(vals))
}

func valuesYAML(vals map[string]any) (string, error) {
	if len(vals) == 0 {
		return "{}\n", nil
	}
	// sigs.k8s.io/yaml goes through encoding/json, which sorts map keys.
	b, err := yaml.Marshal(vals)
	if err != nil {
		return "", fmt.Errorf("render values as YAML: %w", err)
	}
	return string(b), nil
}

// maskMap deep-copies a values map, masking what the rules in this file call
// sensitive. secret marks a map that lies under a sensitive key; inRef one that is a
// list item or sits under a "...Ref" key.
func (m *masker) maskMap(in map[string]any, secret, inRef bool) map[string]any {
	if in == nil {
		return nil
	}
	out := make(map[string]any, len(in))
	valueSecret := namesSecret(in["name"], in["key"])
	for k, v := range in {
		s := secret || (!m.reveal && (sensitiveKey(k, inRef) || (valueSecret && k == "value")))
		out[k] = m.maskAny(v, s, lastWord(k) == "ref")
	}
	return out
}

func (m *masker) maskAny(v any, secret, inRef bool) any {
	leaf := func(s string) any {
		if secret {
			return m.mask(s)
		}
		return s
	}
	switch t := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return m.maskMap(t, secret, inRef)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = m.maskAny(e, secret, true)
		}
		return out
	case string:
		return leaf(t)
	case bool:
		return t
	case json.Number:
		if secret {
			return m.mask(t.String())
		}
		return t
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		mm := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			mm[fmt.Sprint(it.Key().Interface())] = it.Value().Interface()
		}
		return m.maskMap(mm, secret, inRef)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = m.maskAny(rv.Index(i).Interface(), secret, true)
		}
		return out
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return m.maskAny(rv.Elem().Interface(), secret, inRef)
	case reflect.String:
		return leaf(rv.String())
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Uintptr, reflect.Float32, reflect.Float64:
		if secret {
			return m.mask(fmt.Sprint(v))
		}
		return v
	}
	// Anything else (a struct, say) is copied through its JSON form, so that its
	// fields are masked by the same rules and nothing is shared with the input.
	b, err := json.Marshal(v)
	if err != nil {
		return leaf(fmt.Sprint(v))
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return leaf(string(b))
	}
	return m.maskAny(x, secret, inRef)
}

// scrubTree replaces remembered secrets inside the strings of a tree built by
// maskMap, in place.
func scrubTree(r *strings.Replacer, v any) {
	if r == nil {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if s, ok := e.(string); ok {
				t[k] = r.Replace(s)
			} else {
				scrubTree(r, e)
			}
		}
	case []any:
		for i, e := range t {
			if s, ok := e.(string); ok {
				t[i] = r.Replace(s)
			} else {
				scrubTree(r, e)
			}
		}
	}
}
