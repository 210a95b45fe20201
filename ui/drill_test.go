package ui

import (
	"fmt"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/chunkview/chunkview/demo"
	"github.com/chunkview/chunkview/ui/internal/screentest"
	"github.com/chunkview/chunkview/ui/screens/pods"
)

// openStatus filters the list to release name and opens its resources view.
func openStatus(h *harness, name string) *harness {
	h.t.Helper()
	h.press("/")
	h.typeText(name)
	h.press("enter", "s")
	statusOf(h.t, h)
	return h
}

// TestDrillGolden walks, on the demo at 80x24 and 160x45, from the stuck
// release's resources view (its cursor on the Deployment that is not
// Current) to its Pods (enter), the crashing Pod's log (l), the Pod's
// description (d), and the Deployment's (d in the resources view); the help
// of the resources view names enter, l and d.
func TestDrillGolden(t *testing.T) {
	for _, sz := range statusGoldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			h := newHarness(t, screentest.DemoLive(t, demo.StuckRelease), Options{Demo: true}, sz.w, sz.h)
			openStatus(h, demo.StuckRelease)
			h.contains("▶ Deployment")
			step := func(name string) {
				t.Helper()
				t.Run(name, func(t *testing.T) { h.t = t; h.golden() })
				h.t = t
			}
			step("status")
			h.press("?")
			h.contains("enter Pods", "l     log", "d     describe")
			step("status_help")
			h.press("esc", "enter")
			if _, ok := h.top().(*pods.Screen); !ok {
				t.Fatalf("enter on the Deployment opened %T:\n%s", h.top(), h.screen())
			}
			h.contains("Deployment web-frontend: 5 Pods, 2 failing", "CrashLoopBackOff", "BackOff")
			step("pods")
			h.press("l")
			h.contains(`unknown directive "brotli"`, "tail 100 · current run (p: previous)", "masked (v: reveal)")
			step("log")
			h.press("esc", "d")
			h.contains("Owner: ReplicaSet/web-frontend-", "Ready=False", "Liveness: http-get")
			step("describe_pod")
			h.press("esc", "esc", "d")
			h.contains("Deployment demo/web-frontend", "Progressing=", "Available=")
			step("describe_deployment")

			// payments-api's failed migration hook: its Pods, and the log
			// of one, the database password masked.
			h = newHarness(t, screentest.DemoLive(t, demo.FailedHookRelease), Options{Demo: true}, sz.w, sz.h)
			openStatus(h, demo.FailedHookRelease)
			for i := 0; i < 10 && !strings.Contains(h.screen(), "▶ Job/payments-api-migrate"); i++ {
				h.press("down")
			}
			h.press("enter")
			h.contains("hook Job payments-api-migrate: 3 Pods, 3 failing", "BackoffLimitExceeded")
			step("hook_pods")
			h.press("l")
			h.contains("migrate: connecting to postgres://<masked:", "database is dirty").lacks("r0tated-2q4W!zT8")
			step("hook_log")
		})
	}
}

// TestDrillKeysOneMeaning: on the resources view, the Pods, a log and a
// description, at 80x24 and 160x45, the help overlay shows every key of the
// screen, and no key has two meanings on one screen (the global keys
// included): l is the log, not a scroll to the right, where it shows one.
func TestDrillKeysOneMeaning(t *testing.T) {
	for _, sz := range statusGoldenSizes {
		h := newHarness(t, screentest.DemoLive(t, demo.StuckRelease), Options{Demo: true}, sz.w, sz.h)
		openStatus(h, demo.StuckRelease)
		for _, step := range []struct {
			name string
			keys []string
		}{{"status", nil}, {"pods", []string{"enter"}}, {"log", []string{"l"}}, {"describe", []string{"esc", "d"}}} {
			h.press(step.keys...)
			top := h.top()
			h.press("?")
			scr := h.screen()
			meaning := map[string]string{}
			for _, col := range append([][]key.Binding{h.m.Keys.Global.Bindings()}, top.Help().Full...) {
				for _, b := range col {
					if !b.Enabled() {
						continue
					}
					if !strings.Contains(scr, b.Help().Desc) {
						t.Errorf("%dx%d %s: the help lacks %q:\n%s", sz.w, sz.h, step.name, b.Help().Desc, scr)
					}
					for _, k := range b.Keys() {
						if m, ok := meaning[k]; ok && m != b.Help().Desc {
							t.Errorf("%s: %q means %q and %q", step.name, k, m, b.Help().Desc)
						}
						meaning[k] = b.Help().Desc
					}
				}
			}
			h.press("esc")
		}
	}
}
