package common

import (
	"errors"
	"strings"

	"github.com/chunkview/chunkview/kube"
	"github.com/chunkview/chunkview/storage"
	"github.com/chunkview/chunkview/ui/components/table"
	"github.com/chunkview/chunkview/ui/theme"
)

// ErrorTitle names the kind of failure in a few words, so the reader knows at once
// whether to fix access, the connection or the data. kube's messages then say what
// to do.
func ErrorTitle(err error) string {
	switch {
	case errors.Is(err, kube.ErrForbidden):
		return "Forbidden"
	case errors.Is(err, kube.ErrUnauthorized):
		return "Credentials rejected"
	case errors.Is(err, kube.ErrUnreachable):
		return "Cluster unreachable"
	case errors.Is(err, kube.ErrTimeout):
		return "Timed out"
	case errors.Is(err, kube.ErrReadOnly):
		return "Read-only"
	case errors.Is(err, kube.ErrInProgress):
		return "Operation in progress"
	case errors.Is(err, kube.ErrNotFound):
		return "Not found"
	case errors.Is(err, storage.ErrConflict):
		return "Changed meanwhile"
	case errors.Is(err, storage.ErrCorrupt):
		return "Cannot decode"
	case errors.Is(err, storage.ErrTooLarge):
		return "Too large"
	}
	return "Error"
}

// RenderError draws an error as a titled, wrapped paragraph.
func RenderError(s *theme.Styles, err error, width int) string {
	if err == nil {
		return ""
	}
	return s.Error.Render(table.Wrap("✗ "+ShortError(err), max(width, 20)))
}

// ShortError is an error on one line for a table row or the status bar: its
// title, then kube's message without the sentinel the title already says.
func ShortError(err error) string {
	msg := table.OneLine(err.Error())
	for _, s := range []error{kube.ErrForbidden, kube.ErrUnauthorized, kube.ErrUnreachable, kube.ErrTimeout, kube.ErrNotFound} {
		if errors.Is(err, s) {
			msg = strings.TrimPrefix(msg, s.Error()+": ")
		}
	}
	return ErrorTitle(err) + ": " + msg
}
