// Package chunks is the screen that shows how one revision is stored: the
// index and chunk Secrets of a chunked record, or the one object of a Helm
// record, with their sizes against the 1 MiB limit and their integrity.
package chunks
