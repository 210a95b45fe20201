package fakeapi

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// A cluster's state kept outside the process (Snapshot, Restore): the demo
// keeps the cluster its samples were written on in a file, so that a later
// start reads it back rather than writing every sample again.

// snapshot is what Snapshot encodes: every stored object as the store holds it
// (uid, resourceVersion, creationTimestamp and all), the resourceVersion
// counter, what discovery serves and the Pods' logs.
type snapshot struct {
	RV      uint64
	Objects []snapshotObject
	Served  []Resource
	Logs    []snapshotLog
}

// snapshotObject is one stored object: a typed one of client-go's scheme in its
// protobuf encoding (a few ms for megabytes of Secrets), anything else as JSON.
// Its Size bytes follow the index, after those of the objects before it: read
// back from the snapshot's own buffer, the data is copied once, by the decoding.
type snapshotObject struct {
	GVR   schema.GroupVersionResource
	GVK   schema.GroupVersionKind
	Typed bool
	Size  int
	data  []byte
}

type snapshotLog struct {
	NS, Pod, Container string
	Previous           bool
	Text               string
}

// protoObject is a typed object with its generated protobuf methods, as every
// type of k8s.io/api has.
type protoObject interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// Snapshot encodes every object c holds, its resourceVersion counter, the
// resources it serves and its Pods' logs, for Restore. Watches, request counts,
// authorizers and injected failures are not kept.
func (c *Cluster) Snapshot() ([]byte, error) {
	var snap snapshot
	c.mu.Lock()
	snap.Served = c.servedOrder(nil)
	for k, text := range c.logs {
		snap.Logs = append(snap.Logs, snapshotLog{k.ns, k.pod, k.container, k.previous, text})
	}
	c.mu.Unlock()
	slices.SortFunc(snap.Logs, func(a, b snapshotLog) int {
		return cmpStrings(a.NS+"/"+a.Pod+"/"+a.Container, b.NS+"/"+b.Pod+"/"+b.Container)
	})

	s := c.store
	s.mu.Lock()
	defer s.mu.Unlock()
	snap.RV = s.rv
	gvrs := slices.SortedFunc(maps.Keys(s.objects), func(a, b schema.GroupVersionResource) int { return cmpStrings(a.String(), b.String()) })
	for _, gvr := range gvrs {
		for _, key := range slices.Sorted(maps.Keys(s.objects[gvr])) {
			e, err := encodeObject(gvr, s.objects[gvr][key])
			if err != nil {
				return nil, fmt.Errorf("snapshot %s %s: %w", gvr.Resource, key, err)
			}
			snap.Objects = append(snap.Objects, e)
		}
	}
	var index bytes.Buffer
	if err := gob.NewEncoder(&index).Encode(&snap); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	size := 8 + index.Len()
	for _, e := range snap.Objects {
		size += len(e.data)
	}
	out := make([]byte, 0, size)
	out = binary.BigEndian.AppendUint64(out, uint64(index.Len()))
	out = append(out, index.Bytes()...)
	for _, e := range snap.Objects {
		out = append(out, e.data...)
	}
	return out, nil
}

func cmpStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func encodeObject(gvr schema.GroupVersionResource, o object) (snapshotObject, error) {
	if u, ok := o.(*unstructured.Unstructured); ok {
		data, err := json.Marshal(u.Object)
		return snapshotObject{GVR: gvr, GVK: u.GroupVersionKind(), Size: len(data), data: data}, err
	}
	gvks, _, err := scheme.Scheme.ObjectKinds(o)
	if err != nil {
		return snapshotObject{}, err
	}
	p, ok := o.(protoObject)
	if !ok {
		return snapshotObject{}, fmt.Errorf("%T has no protobuf encoding", o)
	}
	data, err := p.Marshal()
	return snapshotObject{GVR: gvr, GVK: gvks[0], Typed: true, Size: len(data), data: data}, err
}

func decodeObject(e snapshotObject) (object, error) {
	if !e.Typed {
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(e.data, &u.Object); err != nil {
			return nil, err
		}
		return u, nil
	}
	typed, err := scheme.Scheme.New(e.GVK)
	if err != nil {
		return nil, err
	}
	o, ok := typed.(object)
	p, isProto := typed.(protoObject)
	if !ok || !isProto {
		return nil, fmt.Errorf("%s is not a stored kind", e.GVK)
	}
	if err := p.Unmarshal(e.data); err != nil {
		return nil, err
	}
	return o, nil
}

// Restore makes c hold what data (from Snapshot) holds, in place of what it
// held: its objects as they were stored, its resourceVersion counter, its
// served resources and logs. Watches started before see none of it; the watch
// history starts at the snapshot's resourceVersion, as after Compact. Call it
// on a new cluster, before handing out clients. A snapshot that does not
// decode is refused, and c is left as it was.
func (c *Cluster) Restore(data []byte) error {
	var snap snapshot
	if len(data) < 8 || binary.BigEndian.Uint64(data) > uint64(len(data)-8) {
		return errors.New("restore: not a snapshot")
	}
	n := 8 + int(binary.BigEndian.Uint64(data))
	if err := gob.NewDecoder(bytes.NewReader(data[8:n])).Decode(&snap); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	objects := make(map[schema.GroupVersionResource]map[string]object)
	rest := data[n:]
	for _, e := range snap.Objects {
		if e.Size < 0 || e.Size > len(rest) {
			return errors.New("restore: the snapshot is cut short")
		}
		e.data, rest = rest[:e.Size], rest[e.Size:]
		o, err := decodeObject(e)
		if err != nil {
			return fmt.Errorf("restore %s: %w", e.GVR.Resource, err)
		}
		if objects[e.GVR] == nil {
			objects[e.GVR] = map[string]object{}
		}
		objects[e.GVR][storageKey(o.GetNamespace(), o.GetName())] = o
	}
	if len(rest) != 0 {
		return errors.New("restore: the snapshot has data past its objects")
	}
	c.ServeResources(snap.Served...)
	c.mu.Lock()
	for _, l := range snap.Logs {
		c.logs[logKey{l.NS, l.Pod, l.Container, l.Previous}] = l.Text
	}
	c.mu.Unlock()
	s := c.store
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objects, s.rv = objects, snap.RV
	s.history, s.historyFrom = nil, snap.RV
	return nil
}
