package survey

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard is one part of a partition of the input by server id: index I of
// N, counted from 0 as Kubernetes' JOB_COMPLETION_INDEX is.
type Shard struct {
	I int `json:"index"`
	N int `json:"count"`
}

// Whole is the run of every entry.
var Whole = Shard{0, 1}

// Of is the shard an id falls in: FNV-1a (64 bits) of the id's bytes,
// modulo n. It depends on the id alone, so machines that read the same
// input agree on the partition with no coordination, whatever order they
// read it in.
func Of(id string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64() % uint64(n))
}

// Has reports whether id falls in the shard.
func (s Shard) Has(id string) bool { return s.N <= 1 || Of(id, s.N) == s.I }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// ParseShard reads --shard and --shards with the JOB_COMPLETION_INDEX of
// the environment (envIndex, "" when unset): "i/n" names the shard;
// "/n", or --shards n, takes the index from JOB_COMPLETION_INDEX. Two
// sources that could disagree are refused: --shard and --shards together,
// or an index given both ways and different.
func ParseShard(shard string, shards int, envIndex string) (Shard, error) {
	if shard != "" && shards != 0 {
		return Shard{}, fmt.Errorf("--shard and --shards both given: use --shard i/n, or --shards n with JOB_COMPLETION_INDEX")
	}
	if shard == "" && shards == 0 {
		return Whole, nil
	}
	var idx string
	var n int
	if shard != "" {
		i, ns, ok := strings.Cut(shard, "/")
		v, err := strconv.Atoi(ns)
		if !ok || err != nil {
			return Shard{}, fmt.Errorf("--shard %q: want i/n (0 ≤ i < n), or /n with JOB_COMPLETION_INDEX set", shard)
		}
		idx, n = i, v
	} else {
		n = shards
	}
	if n < 1 {
		return Shard{}, fmt.Errorf("the shard count must be at least 1, got %d", n)
	}
	env := strings.TrimSpace(envIndex)
	switch {
	case idx == "" && env == "":
		return Shard{}, fmt.Errorf("no shard index: give --shard i/%d, or set JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it)", n)
	case idx == "":
		idx = env
	case env != "" && env != idx:
		return Shard{}, fmt.Errorf("--shard %s/%d and JOB_COMPLETION_INDEX=%s disagree: give one of them", idx, n, env)
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard index %q: want a whole number from 0 to %d", idx, n-1)
	}
	return Shard{i, n}, nil
}
