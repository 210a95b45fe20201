// Package releases is the first screen: every release the view can read,
// in every store, with its status, chart, size and share of the limit, a
// filter, the namespace and context pickers, and the live view's updates.
package releases
