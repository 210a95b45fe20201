package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/chunkview/chunkview/kube"
)

// StatsEnv names the environment variable that makes chunkview count the API requests
// it sends and the response bytes it receives, and print them to stderr as it exits.
// It is for the benchmarks (hack/bench), not a user-facing option: set it to 1.
const StatsEnv = "CHUNKVIEW_STATS"

// StatsPrefix starts the line WriteStats prints.
const StatsPrefix = "chunkview-stats: "

// StatsReport is the JSON WriteStats prints after StatsPrefix.
type StatsReport struct {
	Requests      int            `json:"requests"`
	ByMethod      map[string]int `json:"byMethod"`
	BytesReceived int64          `json:"bytesReceived"`
}

// StatsFromEnv returns a Stats for App.Stats when CHUNKVIEW_STATS is set (to anything
// but "" or "0"), nil otherwise.
func StatsFromEnv() *kube.Stats {
	if v := os.Getenv(StatsEnv); v == "" || v == "0" {
		return nil
	}
	return &kube.Stats{}
}

// WriteStats prints s on one line: StatsPrefix, then a StatsReport as JSON. It prints
// nothing for a nil s.
func WriteStats(w io.Writer, s *kube.Stats) {
	if s == nil {
		return
	}
	rep := StatsReport{Requests: s.Total(), ByMethod: s.Requests(), BytesReceived: s.BytesReceived()}
	b, err := json.Marshal(rep)
	if err != nil {
		return
	}
	fmt.Fprintf(w, "%s%s\n", StatsPrefix, b)
}
