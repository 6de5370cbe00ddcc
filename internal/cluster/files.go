package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/fleetgate/fleetgate/internal/link/cloud"
)

// filesBucket is the JetStream object store of the cloud's archived resource files: chunked and
// checksummed by NATS, so that a file one replica received is served by every other, and by the
// survivors when it is killed.
const filesBucket = "fleetgate_resources"

// files is the archive's shared half (cloud.SharedFiles).
type files struct {
	n   *Node
	obs jetstream.ObjectStore
}

var _ cloud.SharedFiles = (*files)(nil)

// Files is the store where every replica keeps and finds the archive's whole copies.
func (n *Node) Files(ctx context.Context) (cloud.SharedFiles, error) {
	js, err := jetstream.New(n.nc)
	if err != nil {
		return nil, err
	}
	obs, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: filesBucket, Description: "fleetgate: resource files the agents uploaded", Storage: jetstream.FileStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("NATS JetStream object store %s: %w", filesBucket, err)
	}
	return &files{n: n, obs: obs}, nil
}

func (f *files) Put(ctx context.Context, id string, r io.Reader, size int64, sha256hex string) error {
	if err := f.n.reachable("storing resource " + id); err != nil {
		return err
	}
	info, err := f.obs.Put(ctx, jetstream.ObjectMeta{Name: id, Description: "sha256 " + sha256hex}, r)
	if err != nil {
		return err
	}
	if int64(info.Size) != size {
		f.obs.Delete(context.Background(), id)
		return fmt.Errorf("stored %d bytes of resource %s, want %d", info.Size, id, size)
	}
	return nil
}

// Delete removes resource id from every replica's reach; an absent one is no error.
func (f *files) Delete(ctx context.Context, id string) error {
	if err := f.n.reachable("deleting resource " + id); err != nil {
		return err
	}
	if err := f.obs.Delete(ctx, id); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return err
	}
	return nil
}

func (f *files) Get(ctx context.Context, id string) (io.ReadCloser, error) {
	if err := f.n.reachable("reading resource " + id); err != nil {
		return nil, err
	}
	r, err := f.obs.Get(ctx, id)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("resource %s is in no replica's files: %w", id, os.ErrNotExist)
	}
	return r, err
}
