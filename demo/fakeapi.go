package demo

import "github.com/chunkview/chunkview/internal/fakeapi"

// The demo's in-memory API server is internal/fakeapi's; these names keep the
// demo's API as it was for its callers.

// Cluster is the in-memory Kubernetes API the samples are seeded into (see
// fakeapi.Cluster).
type Cluster = fakeapi.Cluster

// Authorizer judges the requests of a Cluster (see fakeapi.Authorizer).
type Authorizer = fakeapi.Authorizer

// NewCluster returns an empty cluster holding only SystemNamespaces.
func NewCluster() *Cluster { return fakeapi.NewCluster() }

// Namespace returns a Namespace object named name, for Cluster.Add.
var Namespace = fakeapi.Namespace

// Verbs counted by Cluster.Requests, named as in RBAC and audit logs.
const (
	VerbGet              = fakeapi.VerbGet
	VerbList             = fakeapi.VerbList
	VerbWatch            = fakeapi.VerbWatch
	VerbCreate           = fakeapi.VerbCreate
	VerbUpdate           = fakeapi.VerbUpdate
	VerbPatch            = fakeapi.VerbPatch
	VerbDelete           = fakeapi.VerbDelete
	VerbDeleteCollection = fakeapi.VerbDeleteCollection
	VerbAccessReview     = fakeapi.VerbAccessReview
)

// WriteVerbs are the verbs that change the cluster.
var WriteVerbs = fakeapi.WriteVerbs

// SystemNamespaces are the namespaces a new Cluster holds.
var SystemNamespaces = fakeapi.SystemNamespaces

// DemoUser is the user name in the Forbidden errors of Cluster.Authorize.
const DemoUser = fakeapi.DemoUser
