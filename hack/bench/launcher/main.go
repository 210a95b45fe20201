// Command launcher runs the processes the benchmark measures and reports each one's
// wall time and peak resident memory.
//
// It exists because ru_maxrss lies for a child of a large process: on exec, Linux
// folds the high-water mark of the memory the process had before exec into the new
// program's ru_maxrss, and Go starts children with vfork, so that memory is the
// parent's. The harness, having generated the fleet, is hundreds of MiB; this
// program is a few. Its children's ru_maxrss is therefore their own.
//
// Protocol: one JSON request per line on stdin, one JSON response per line on stdout.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"time"
)

type request struct {
	Env  []string `json:"env"`
	Cmd  string   `json:"cmd"`
	Args []string `json:"args"`
}

type response struct {
	WallNs int64  `json:"wallNs"`
	MaxRSS int64  `json:"maxRSS"` // bytes
	CPUNs  int64  `json:"cpuNs"`  // user and system time
	Stdout []byte `json:"stdout"`
	Stderr []byte `json:"stderr"`
	Err    string `json:"err,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		var resp response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			resp.Err = err.Error()
			_ = enc.Encode(resp)
			continue
		}
		cmd := exec.Command(req.Cmd, req.Args...)
		cmd.Env = req.Env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		resp.WallNs = int64(time.Since(start))
		if err != nil {
			resp.Err = err.Error()
		}
		if cmd.ProcessState != nil {
			resp.CPUNs = int64(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				resp.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
			}
		}
		resp.Stdout, resp.Stderr = stdout.Bytes(), stderr.Bytes()
		_ = enc.Encode(resp)
	}
}
