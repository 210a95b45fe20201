package chunked

import (
	"strconv"
	"strings"
)

// KeyPrefix starts every record key Helm hands a driver.
const KeyPrefix = "sh.helm.release.v1."

// RecordKey returns the key of revision rev of release name.
func RecordKey(name string, rev int) string {
	return KeyPrefix + name + ".v" + strconv.Itoa(rev)
}

// ParseKey splits a record key into release name and revision.
func ParseKey(key string) (name string, rev int, ok bool) {
	rest, ok := strings.CutPrefix(key, KeyPrefix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndex(rest, ".v")
	if i <= 0 {
		return "", 0, false
	}
	rev, err := strconv.Atoi(rest[i+2:])
	if err != nil || rev <= 0 {
		return "", 0, false
	}
	return rest[:i], rev, true
}
