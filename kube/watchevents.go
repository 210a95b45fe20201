package kube

import "time"

// WatchEventType says what a WatchEvent reports.
type WatchEventType string

// The events of Watch.
const (
	// WatchSynced: every store was listed (metadata only) and is now watched or
	// polled from that list on. Initial is set the first time; afterwards it
	// follows a resync (the watch fell too far behind, 410 Gone), and a caller
	// showing rows lists them again.
	WatchSynced WatchEventType = "synced"
	// WatchChanged: a revision record was added or changed; Row is its row, read
	// from metadata alone.
	WatchChanged WatchEventType = "changed"
	// WatchDeleted: a revision record was deleted; Row names it.
	WatchDeleted WatchEventType = "deleted"
	// WatchMode: how the stores are followed changed; Polling and Note say how.
	WatchMode WatchEventType = "mode"
	// WatchHealth: whether the stores are followed changed; State says how,
	// LastContact when the server was last heard from, Err what went wrong.
	// A watch starts up and says nothing until its state changes; once up again
	// after a loss, a caller showing rows lists them again (what the watch
	// replays on reopening is reported as it always is, but what the caller
	// itself failed to read meanwhile is not).
	WatchHealth WatchEventType = "health"
)

// WatchEvent is one thing Watch reports.
type WatchEvent struct {
	Type WatchEventType
	// Row is the revision of a WatchChanged or WatchDeleted event. Rows of
	// chunked records carry their summary when chunkview's annotations hold it;
	// those of Helm's stores are not summarized (Details reads the one record).
	Row RevisionRow
	// New is set on WatchChanged when the record was not there before: a
	// revision added, not one rewritten (a status change).
	New bool
	// Initial is set on the first WatchSynced.
	Initial bool
	// Polling is set, on WatchMode, when a store could not be watched (the
	// server refused it) and is listed every PollInterval instead; Note says
	// which and why.
	Polling bool
	Note    string
	// State, LastContact and Err are set on WatchHealth. LastContact is zero
	// when the server was never heard from; Err is the last failure, worded by
	// Explain, nil once up.
	State       WatchState
	LastContact time.Time
	Err         error
}

// WatchState says whether Watch follows the cluster: what a live view may claim.
type WatchState string

// The states of a watch, worst last.
const (
	// WatchUp: every store followed is listed, and its watch is open (or its
	// poll answered): what the view shows is the cluster's.
	WatchUp WatchState = "up"
	// WatchRetrying: a store's watch broke, or the server answered its reopening
	// with an error (a 5xx, 429), and it is being reopened with backoff.
	WatchRetrying WatchState = "retrying"
	// WatchOffline: the server could not be reached at all: the connection was
	// refused, or nothing answered within the request timeout.
	WatchOffline WatchState = "offline"
)

func (s WatchState) rank() int {
	switch s {
	case WatchRetrying:
		return 1
	case WatchOffline:
		return 2
	}
	return 0
}
