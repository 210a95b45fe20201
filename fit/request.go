package fit

import (
	"errors"
	"time"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/cli/values"
	"helm.sh/helm/v3/pkg/release"
	release4 "helm.sh/helm/v4/pkg/release/v1"
)

// Errors Render wraps, for the caller to tell a wrong command line from a chart
// that does not render.
var (
	// ErrNotFound is wrapped when the chart or a values file does not exist.
	ErrNotFound = errors.New("not found")
	// ErrValues is wrapped when the values given do not parse.
	ErrValues = errors.New("bad values")
)

// Request is a chart to render as an install, or as the upgrade of a release.
type Request struct {
	// Chart is a chart directory or a packaged chart (.tgz).
	Chart string
	// Name is the release name; "" means the chart's name. An upgrade takes
	// the name of the release it upgrades.
	Name string
	// Namespace is the release's namespace ("" means default); an upgrade keeps
	// the one its release has.
	Namespace string
	// Values are -f, --set and the like, merged as helm merges them.
	Values values.Options
	// KubeVersion and APIVersions are the capabilities an install is rendered
	// against, as helm template's --kube-version and --api-versions; by default
	// Helm's own defaults. An upgrade uses Base's.
	KubeVersion string
	APIVersions []string

	// Upgrade, when set, renders the upgrade of the release it describes.
	Upgrade *Base
	// Helm is the major whose action renders and stores the record: 3 or 4
	// (0 means 3). Helm 4's record holds more than Helm 3's (see renderHelm4).
	Helm int
	// ReuseValues, ResetValues and ResetThenReuseValues are helm upgrade's
	// flags of those names; none set applies Helm's default (the last
	// release's values when none are given).
	ReuseValues, ResetValues, ResetThenReuseValues bool
}

// Base is what an upgrade starts from: the release's latest revision and its
// latest deployed one, decoded, and the cluster's capabilities.
type Base struct {
	Last *release.Release
	// Deployed is the latest deployed revision; nil when there is none, or when
	// it is Last.
	Deployed     *release.Release
	Capabilities *chartutil.Capabilities
	// ApplyMethod is Last's apply_method, which Helm 3's types drop: Helm 4's
	// upgrade applies as the latest revision was applied.
	ApplyMethod string
}

// Rendered is the record Helm's action would store for a request.
type Rendered struct {
	// Release is the record once the action succeeded: deployed, its hooks
	// run.
	Release *release.Release
	// Upgrade reports whether it was rendered as an upgrade.
	Upgrade bool
	// Helm is the major whose action rendered it: 3 or 4.
	Helm int
	// Release4 is the record as Helm 4 stores it, when Helm is 4; Release is
	// then the same record as Helm 3 reads it, for what takes the room.
	Release4 *release4.Release
}

// hookStep is about how long a hook that creates objects takes: it only sets
// the times a stored record shows.
const hookStep = 9 * time.Millisecond
