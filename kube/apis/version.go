package apis

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes release, major and minor: what the lifecycle data
// speaks in.
type Version struct {
	Major, Minor int
}

// IsZero says whether v is unknown.
func (v Version) IsZero() bool { return v.Major == 0 && v.Minor == 0 }

// Before says whether v is an earlier release than o.
func (v Version) Before(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	return v.Minor < o.Minor
}

// String is "1.25", or "" when unknown.
func (v Version) String() string {
	if v.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// MarshalText writes v as String does, so that JSON says "1.25".
func (v Version) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (v *Version) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*v = Version{}
		return nil
	}
	p, err := ParseVersion(string(b))
	if err != nil {
		return err
	}
	*v = p
	return nil
}

// ParseVersion reads a release as people and servers write it: "1.38",
// "v1.38.2", "1.38.0-rc.1". A managed cluster's minor with a suffix ("38+")
// reads as its number.
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(t, ".", 3)
	if len(parts) < 2 {
		return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR, as 1.38", s)
	}
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR, as 1.38", s)
	}
	minor, err := strconv.Atoi(strings.TrimRight(parts[1], "+"))
	if err != nil {
		return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR, as 1.38", s)
	}
	return Version{Major: major, Minor: minor}, nil
}

// ServerVersion reads the major and minor a server's /version reports (Minor
// may carry a "+", as on managed clusters).
func ServerVersion(major, minor string) Version {
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(strings.TrimRight(minor, "+"))
	if err1 != nil || err2 != nil {
		return Version{}
	}
	return Version{Major: ma, Minor: mi}
}
