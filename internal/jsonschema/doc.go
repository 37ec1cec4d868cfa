// Package jsonschema is santhosh-tekuri/jsonschema v6.0.3 (Apache-2.0, see
// LICENSE), copied with one change: the drafts' metaschemas are compiled the
// first time one is needed (loadDrafts, draft.go) instead of in init, so a
// program that imports the package but never compiles a schema pays nothing
// for it at start-up. Everything else is upstream's; the kind package is
// still upstream's own.
package jsonschema
