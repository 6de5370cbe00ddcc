// Package fleettest offers a scriptable robot for tests of the layers above the robot
// contract: its streams, values, metrics and resources are set by the test, it records what
// was published to it, and it can be made slow to exercise deadlines.
package fleettest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// TwistPayload is a serialized Twist of linear.x x and angular.z z: a drive command as a
// test's input stream takes it.
func TwistPayload(x, z float64) []byte {
	b, err := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: x}, Angular: &catalogpb.Vector3{Z: z}})
	if err != nil {
		panic(err)
	}
	return b
}

// Published is one message a Robot received on an input stream.
type Published struct {
	Key     fleetgate.StreamKey
	Type    string
	Payload []byte
	// Cancel is the door's cancel of the goal sent on Key (no Type, no Payload).
	Cancel bool
}

// Robot is a fleet.Robot whose behaviour the test sets through its exported fields before
// use (and under Lock afterwards, if it changes them while requests run).
type Robot struct {
	sync.Mutex
	ID, Name string
	// StreamList is what Streams returns; Values holds each output stream's current sample.
	StreamList []fleetgate.Stream
	Values     map[fleetgate.StreamKey]fleetgate.Sample
	MetricList []fleetgate.Metric // Metrics lists their types; Metric finds by type and name
	KPIList    []fleetgate.KPI
	Files      map[string][]byte // resource id to content
	FileInfo   []fleetgate.Resource
	// Delay makes every call wait this long (or until the caller's deadline).
	Delay time.Duration
	// WaitFirst makes Read of an output stream without a value wait for its first Emit, or
	// the caller's deadline, as a camera starting or a quiet topic does; else it is ENotFound.
	WaitFirst bool
	// PublishErr, when set, is what Publish returns (after recording nothing).
	PublishErr error

	published []Published
	topics    map[fleetgate.StreamKey]*fleet.Topic
}

// topic returns the topic of key, creating it (under the lock).
func (r *Robot) topic(key fleetgate.StreamKey, typ string) *fleet.Topic {
	if r.topics == nil {
		r.topics = map[fleetgate.StreamKey]*fleet.Topic{}
	}
	t := r.topics[key]
	if t == nil {
		t = fleet.NewTopic(typ, nil)
		r.topics[key] = t
	}
	return t
}

// Emit publishes a new value on an output stream: it becomes the value Read returns and goes
// to every subscriber.
func (r *Robot) Emit(key fleetgate.StreamKey, typ string, payload []byte) fleetgate.Sample {
	r.Lock()
	t := r.topic(key, typ)
	r.Unlock()
	s := t.Publish(payload, time.Now())
	r.Lock()
	if r.Values == nil {
		r.Values = map[fleetgate.StreamKey]fleetgate.Sample{}
	}
	r.Values[key] = s
	r.Unlock()
	return s
}

// Disconnect ends every subscription as a robot going offline does.
func (r *Robot) Disconnect() {
	r.Lock()
	topics := r.topics
	r.topics = nil
	r.Unlock()
	for _, t := range topics {
		t.Close(fleetgate.Errorf(fleetgate.EOffline, "robot %s disconnected", r.Info().Name))
	}
}

var _ fleet.Robot = (*Robot)(nil)

func (r *Robot) wait(ctx context.Context) error {
	r.Lock()
	d := r.Delay
	r.Unlock()
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Robot) Info() fleetgate.Info {
	return fleetgate.Info{ID: r.ID, Name: r.Name, ConfigName: "test-config", ConfigVersion: "7", AgentVersion: "test-agent"}
}

func (r *Robot) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	if err := r.wait(ctx); err != nil {
		return nil, err
	}
	r.Lock()
	defer r.Unlock()
	return slices.Clone(r.StreamList), nil
}

func (r *Robot) stream(key fleetgate.StreamKey) (fleetgate.Stream, bool) {
	for _, s := range r.StreamList {
		if s.Key() == key {
			return s, true
		}
	}
	return fleetgate.Stream{}, false
}

func (r *Robot) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	if err := r.wait(ctx); err != nil {
		return fleetgate.Sample{}, err
	}
	r.Lock()
	v, ok := r.Values[key]
	s, isStream := r.stream(key)
	if !ok && r.WaitFirst && isStream && s.Direction != fleetgate.Input {
		t := r.topic(key, s.Type)
		r.Unlock()
		sub, err := t.Subscribe()
		if err != nil {
			return fleetgate.Sample{}, err
		}
		defer sub.Close()
		first, err := sub.Next(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			return first, fleet.NoSample(key)
		}
		return first, err
	}
	r.Unlock()
	if !ok {
		return fleetgate.Sample{}, fleetgate.Errorf(fleetgate.ENotFound, "no value on %s/%s", key.Component, key.Name)
	}
	return v, nil
}

func (r *Robot) Subscribe(ctx context.Context, key fleetgate.StreamKey, opts fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	r.Lock()
	s, ok := r.stream(key)
	if !ok || s.Direction == fleetgate.Input {
		r.Unlock()
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "no output stream %s/%s", key.Component, key.Name)
	}
	t := r.topic(key, s.Type)
	v, has := r.Values[key]
	r.Unlock()
	if _, published := t.Latest(); has && !published {
		at := v.Time
		if at.IsZero() {
			at = time.Now() // a value without a time is the robot's current one, produced now
		}
		t.PublishLatched(v.Payload, at, v.Latched)
	}
	return t.Subscribe()
}

// Publish takes a command that passed the door (door.Driven) and keeps it (Published).
func (r *Robot) Publish(ctx context.Context, cmd door.Command) error {
	if key, ok := cmd.Cancels(); ok {
		r.Lock()
		defer r.Unlock()
		r.published = append(r.published, Published{Key: key, Cancel: true})
		return nil
	}
	key, typ, payload, err := cmd.Open()
	if err != nil {
		return err
	}
	if err := r.wait(ctx); err != nil {
		return err
	}
	r.Lock()
	defer r.Unlock()
	if r.PublishErr != nil {
		return r.PublishErr
	}
	s, ok := r.stream(key)
	if !ok {
		return fleetgate.Errorf(fleetgate.ENotFound, "no stream %s/%s", key.Component, key.Name)
	}
	if s.Direction != fleetgate.Input || s.Type != typ {
		return fleetgate.Errorf(fleetgate.EInvalid, "stream %s/%s does not take %s", key.Component, key.Name, typ)
	}
	r.published = append(r.published, Published{Key: key, Type: typ, Payload: slices.Clone(payload)})
	return nil
}

// Published returns what Publish accepted, in order.
func (r *Robot) Published() []Published {
	r.Lock()
	defer r.Unlock()
	return slices.Clone(r.published)
}

func (r *Robot) Metrics(ctx context.Context) ([]fleetgate.MetricType, error) {
	if err := r.wait(ctx); err != nil {
		return nil, err
	}
	r.Lock()
	defer r.Unlock()
	var types []fleetgate.MetricType
	for _, m := range r.MetricList {
		types = append(types, m.Type)
	}
	return types, nil
}

func (r *Robot) Metric(ctx context.Context, typ fleetgate.MetricType, name string) (fleetgate.Metric, error) {
	if err := r.wait(ctx); err != nil {
		return fleetgate.Metric{}, err
	}
	r.Lock()
	defer r.Unlock()
	for _, m := range r.MetricList {
		if m.Type == typ && m.Name == name {
			return m, nil
		}
	}
	return fleetgate.Metric{}, fleetgate.Errorf(fleetgate.ENotFound, "no metric %d %q", typ, name)
}

func (r *Robot) KPIs(ctx context.Context) ([]fleetgate.KPI, error) {
	if err := r.wait(ctx); err != nil {
		return nil, err
	}
	r.Lock()
	defer r.Unlock()
	return slices.Clone(r.KPIList), nil
}

func (r *Robot) Resources(ctx context.Context) ([]fleetgate.Resource, error) {
	if err := r.wait(ctx); err != nil {
		return nil, err
	}
	r.Lock()
	defer r.Unlock()
	return slices.Clone(r.FileInfo), nil
}

func (r *Robot) OpenResource(ctx context.Context, id string) (fleet.ResourceFile, fleetgate.Resource, error) {
	if err := r.wait(ctx); err != nil {
		return nil, fleetgate.Resource{}, err
	}
	r.Lock()
	defer r.Unlock()
	data, ok := r.Files[id]
	i := slices.IndexFunc(r.FileInfo, func(res fleetgate.Resource) bool { return res.ID == id })
	if !ok || i < 0 {
		return nil, fleetgate.Resource{}, fleetgate.Errorf(fleetgate.ENotFound, "no resource %q", id)
	}
	return nopCloser{bytes.NewReader(data)}, r.FileInfo[i], nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

var _ io.ReadSeekCloser = nopCloser{}

// Subscribers is the number of open subscriptions of output stream key.
func (r *Robot) Subscribers(key fleetgate.StreamKey) int {
	r.Lock()
	t := r.topics[key]
	r.Unlock()
	if t == nil {
		return 0
	}
	return t.Subscribers()
}
