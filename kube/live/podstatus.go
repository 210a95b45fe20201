package live

import (
	"context"
	"time"
)

// HookJob is the live state of a hook Job: its kstatus, its Pods and the end of
// the log of the container that failed.
type HookJob struct {
	Status  string     `json:"status"`
	Message string     `json:"message"`
	Pods    []PodState `json:"pods"`
	// Log is the end of the failed container's log, of the newest Pod that has
	// one; nil when no container failed.
	Log *ContainerLog `json:"log,omitempty"`
	// Remarks say what could not be read.
	Remarks []string `json:"remarks,omitempty"`
}

// PodState is a Pod of a workload or a hook Job: its phase, its containers'
// states, and what kubectl get pods shows of it.
type PodState struct {
	Name    string `json:"name"`
	Phase   string `json:"phase"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Status is the Pod's state in a word, as kubectl get pods's STATUS
	// (Running, CrashLoopBackOff, Init:0/1, Completed, Terminating, ...).
	Status string `json:"status"`
	// Ready counts its containers that are ready, of Containers (init
	// containers aside); Restarts sums their restarts, the last of them at
	// LastRestart.
	Ready       int              `json:"ready"`
	Total       int              `json:"total"`
	Restarts    int32            `json:"restarts"`
	LastRestart time.Time        `json:"lastRestart,omitzero"`
	Node        string           `json:"node,omitempty"`
	Created     time.Time        `json:"created,omitzero"`
	Containers  []ContainerState `json:"containers"`
}

// ContainerState is one container of a Pod as its status says: waiting,
// running or terminated, and how its last run ended when it restarted.
type ContainerState struct {
	Name string `json:"name"`
	// Init is set for an init container.
	Init  bool   `json:"init,omitempty"`
	State string `json:"state"`
	Ready bool   `json:"ready"`
	// Reason, ExitCode and Message are the current state's (a terminated
	// container's termination message, as it wrote it).
	Reason   string `json:"reason,omitempty"`
	ExitCode *int32 `json:"exitCode,omitempty"`
	Message  string `json:"message,omitempty"`
	Restarts int32  `json:"restarts"`
	// LastExitCode and LastReason are how the previous run ended, for a
	// container that restarted.
	LastExitCode *int32 `json:"lastExitCode,omitempty"`
	LastReason   string `json:"lastReason,omitempty"`
}

// Failed reports whether the container's current run, or else its previous
// one, ended with a non-zero exit code; previous tells which.
func (c ContainerState) Failed() (failed, previous bool) {
	switch {
	case c.ExitCode != nil && *c.ExitCode != 0:
		return true, false
	case c.ExitCode == nil && c.LastExitCode != nil && *c.LastExitCode != 0:
		return true, true
	}
	return false, false
}

// ContainerLog is the end of one container's log.
type ContainerLog struct {
	Pod       string `json:"pod"`
	Container string `json:"container"`
	// Previous is set when the log is that of the run before the current one.
	Previous bool     `json:"previous,omitempty"`
	Lines    []string `json:"lines"`
	// Masked is set when the secrets the release holds were masked in it.
	Masked bool `json:"masked"`
	// Unavailable says why the log could not be read (no kubelet to serve it,
	// the node gone, no right to pods/log).
	Unavailable string `json:"unavailable,omitempty"`
}

// LogSource reads the end of a container's log.
type LogSource interface {
	// TailLog returns up to lines lines of the end of the log of container in
	// pod ns/pod, of its previous run when previous is set.
	TailLog(ctx context.Context, ns, pod, container string, previous bool, lines int) (string, error)
}

// WorkloadPods are the Pods behind one workload of the release: a Deployment,
// StatefulSet, DaemonSet or Job of its manifest, or one of its hook Jobs.
type WorkloadPods struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Hook is set for a hook Job.
	Hook bool `json:"hook,omitempty"`
	// Pods are those the workload's selector selects in its namespace, newest
	// first, at most MaxWorkloadPods.
	Pods []PodState `json:"pods"`
	// More is set when the workload has more Pods than MaxWorkloadPods.
	More bool `json:"more,omitempty"`
	// Remark says why its Pods are not shown, or not all of them.
	Remark string `json:"remark,omitempty"`
}

// Key names the workload as kubectl does: "Kind/name".
func (w WorkloadPods) Key() string { return w.Kind + "/" + w.Name }

// MaxWorkloadPods bounds the Pods read for one workload: one list of at most
// that many.
const MaxWorkloadPods = 100
